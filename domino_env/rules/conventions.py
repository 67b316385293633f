"""What both rules engines share: integer ids, generators and the saved-game envelope.

``LineGame`` and ``Texas42Game`` agree on these so that callers (environments, bots, the batched
engines' reference tests) can treat them alike:

- **Integers.** An action id, a tile id, a seat or an integer option is a Python ``int`` or a numpy
  integer; a ``bool`` (``True`` is an ``int`` in Python) is refused. Values are stored as ``int``.
- **Generators.** Every engine takes an explicit ``numpy.random.Generator``, its only source of
  randomness; none makes its own.
- **Moves.** The line, Fives and Mexican Train engines cache the legal mask of the seat to act and
  word a refused move alike (``CachedMoves``).
- **Scripted deals.** A deal's tile lists (hands, stock or boneyard, trains) hold tile ids or text
  such as ``"6-5"``, each tile at most once over all of them (``DealtTiles``); the line and Fives
  engines read their ``{"hands", "stock", "leader"}`` alike (``parse_hands_stock_leader``).
- **Saved games.** ``to_json`` writes ``{"format": "domino-env/<engine>", "version": N, ...}``;
  ``from_json`` refuses any other format or version, and anything malformed, with a ``ValueError``.
  The line, Fives and Mexican Train engines save a match the same way (``save_match`` and
  ``load_match``): the current round's deal and moves, replayed on load.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict
from numbers import Real
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from domino_env.rules.tiles import iter_bits

if TYPE_CHECKING:
    from domino_env.rules.tiles import TileSet

Engine = TypeVar("Engine")

# numpy's bit generators, by the name a generator state records: the only ones a save may name.
BIT_GENERATORS: dict[str, type[np.random.BitGenerator]] = {
    cls.__name__: cls
    for cls in (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64)
}


def is_int(x: Any) -> bool:
    """A Python or numpy integer that is not a ``bool``."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_non_negative(name: str, value: Any) -> float:
    """``value`` as a float; ``ValueError`` naming option ``name`` unless it is a finite number >= 0
    (not a ``bool``)."""
    if not isinstance(value, Real) or isinstance(value, (bool, np.bool_)) or not math.isfinite(value) \
            or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def check_choice(name: str, value: Any, allowed: tuple) -> None:
    """``ValueError`` naming option ``name`` and its choices unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def check_action_id(action: Any, num_actions: int) -> int:
    """``action`` as an ``int`` when it is an action id ``0..num_actions - 1``; else ``ValueError``."""
    if not is_int(action) or not 0 <= action < num_actions:
        raise ValueError(f"action must be an integer id 0..{num_actions - 1}, got {action!r}")
    return int(action)


def check_move_text(text: Any) -> str:
    """``text`` itself when it is a string (a move to read); else ``TypeError``."""
    if not isinstance(text, str):
        raise TypeError(f"a move is text such as 'pass' or 'play 6-4', got {type(text).__name__} {text!r}")
    return text


def check_generator(rng: Any) -> np.random.Generator:
    """``rng`` when it is a ``numpy.random.Generator``; else ``TypeError`` (a seed is not one)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {type(rng).__name__}"
        )
    return rng


_PLACEHOLDER_SEED = np.random.SeedSequence(0)  # overwritten at once: skips reading OS entropy


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in ``rng``'s state: what an engine's ``clone()`` gives its copy
    (a quarter of a deepcopy's time; the search clones engines by the thousand)."""
    bit_generator = type(rng.bit_generator)(_PLACEHOLDER_SEED)
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


def generator_from_state(state: Any) -> np.random.Generator:
    """A generator restored from a saved ``bit_generator.state``; only numpy's bit generators
    (``BIT_GENERATORS``) are built, so a save cannot name any other callable."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise ValueError(f"'rng' must be the state of one of numpy's bit generators {sorted(BIT_GENERATORS)}")
    bit_generator = BIT_GENERATORS[name]()
    try:
        bit_generator.state = state
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        raise ValueError(f"'rng' is not a valid {name} state: {err}") from err
    return np.random.Generator(bit_generator)


class CachedMoves:
    """``legal_mask`` (cached per move: ``_mask`` is -1 once stale), ``legal_actions``, and the
    message of a refused move naming the legal ones. An engine brings ``_legal(seat)``,
    ``action_to_text``, ``num_actions``, ``current`` and ``_terminal``; ``_OVER`` names what has ended
    once ``_terminal`` is set."""

    _OVER = "match"

    def legal_mask(self) -> int:
        """Bit set over action ids for the seat to act (0 once it is over); cached per move."""
        if self._mask < 0:
            self._mask = 0 if self._terminal else self._legal(self.current)
        return self._mask

    def legal_actions(self) -> list[int]:
        return list(iter_bits(self.legal_mask()))

    def _illegal_message(self, action: Any, seat: int | None) -> str:
        if self._terminal:
            return f"illegal move {self._describe(action)}: the {self._OVER} is over, no move is legal"
        legal = ", ".join(self.action_to_text(a) for a in iter_bits(self._legal(self.current)))
        who = f"seat {self.current} is to act"
        if seat is not None and seat != self.current:
            who += f", not seat {seat}"
        return f"illegal move {self._describe(action)} ({who}); legal moves: {legal}"

    def _describe(self, action: Any) -> str:
        if is_int(action) and 0 <= action < self.num_actions:
            return f"{self.action_to_text(int(action))!r} (action {int(action)})"
        return f"action {action!r} (ids are integers 0..{self.num_actions - 1})"


class DealtTiles:
    """Reads the tile lists of one scripted deal: each item a tile id or its text (``tiles.parse``),
    no tile twice over every list read (nor any of ``taken``, tiles already out of the deal).
    ``name`` writes a tile in the messages, ``taken_note`` says what ``taken`` is."""

    def __init__(self, tiles: TileSet, name: Callable[[int], str] | None = None, taken: int = 0,
                 taken_note: str = ""):
        self.tiles, self.name, self.seen = tiles, name or tiles.name, taken
        self.twice = f"is dealt twice (or is {taken_note})" if taken_note else "is dealt twice"
        self.example = self.name(tiles.parse(f"{tiles.max_pips - 1}-{tiles.max_pips}"))

    def __call__(self, items: Any, what: str) -> list[int]:
        """The tile ids of ``items``, the list ``what`` names, in order; a ``ValueError`` names the
        first bad item."""
        if not isinstance(items, (list, tuple)):
            raise ValueError(f"{what} must be a list of tiles, got {items!r}")
        out = []
        for item in items:
            if is_int(item) and 0 <= item < self.tiles.num_tiles:
                t = int(item)
            elif isinstance(item, str):
                t = self.tiles.parse(item)
            else:
                raise ValueError(f"{what}: {item!r} is not a tile (write '{self.example}' or a tile id)")
            if self.seen >> t & 1:
                raise ValueError(f"tile {self.name(t)} {self.twice}")
            self.seen |= 1 << t
            out.append(t)
        return out


def parse_hands_stock_leader(deal: Any, tiles: TileSet, num_players: int, no_stock: str | None = None
                             ) -> tuple[list[list[int]], list[int], int | None]:
    """The hands, stock and leader of a scripted deal ``{"hands", "stock", "leader"}`` (the line and
    Fives engines); ``no_stock`` is the refusal of a stock where the rules deal none."""
    if not isinstance(deal, Mapping):
        raise ValueError(f"deal must map 'hands', 'stock', 'leader', not {type(deal).__name__}")
    unknown = set(deal) - {"hands", "stock", "leader"}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; expected 'hands', 'stock', 'leader'")
    hands_in = deal.get("hands")
    if not isinstance(hands_in, (list, tuple)) or len(hands_in) != num_players:
        raise ValueError(f"deal['hands'] must list {num_players} hands, got {hands_in!r}")
    read = DealtTiles(tiles)
    hands = [read(h, f"hand {i}") for i, h in enumerate(hands_in)]
    if not all(hands):
        raise ValueError("every hand must hold at least one tile")
    stock = read(deal.get("stock", []), "stock")
    if stock and no_stock:
        raise ValueError(no_stock)
    leader = deal.get("leader")
    if leader is not None and (not is_int(leader) or not 0 <= leader < num_players):
        raise ValueError(f"deal['leader'] must be a seat 0..{num_players - 1}, got {leader!r}")
    return hands, stock, None if leader is None else int(leader)


def read_save(text: Any, save_format: str, versions: tuple[int, ...]) -> dict:
    """The JSON object of a saved game after checking its format and version; ``ValueError`` for
    text that is not JSON (nested too deeply included), another format, or a version not in
    ``versions`` (a save without one predates versioning)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise ValueError(f"a saved game is JSON text, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("the saved game is nested too deeply to be a saved game") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"the saved game is not valid JSON: {err}") from err
    if not isinstance(data, dict):
        raise ValueError(f"a saved game is a JSON object, got {type(data).__name__}")
    supported = f"{save_format} version {', '.join(map(str, versions))}"
    if data.get("format") != save_format:
        if "format" not in data and "version" not in data:
            raise ValueError(
                f"the save names no format or version (not a saved game, or one written before saves "
                f"were versioned); this domino-env reads {supported}"
            )
        raise ValueError(
            f"not a {save_format} save (its format is {data.get('format')!r}); this reads {supported}"
        )
    version = data.get("version")
    if type(version) is not int or version not in versions:
        found = "has no version" if version is None else f"has version {version!r}"
        raise ValueError(f"the save {found}; this domino-env reads {supported}")
    return data


def save_match(game: Any, save_format: str, versions: tuple[int, ...], index_key: str,
               round_start: tuple[list[int], int]) -> str:
    """``game`` saved as JSON by the latest of ``versions``: rules, generator state, the scores and
    finished results when its round began (``round_start``), the round's index (``index_key``:
    ``"round_index"`` or ``"hand_index"``), deal (``game._deal``) and moves (``game._actions``).
    Replaying the moves from the deal (``load_match``) is exact and smaller than the whole state."""
    scores, n_results = round_start
    return json.dumps({
        "format": save_format,
        "version": versions[-1],
        "config": asdict(game.config),
        "rng": game.rng.bit_generator.state,
        "scores": scores,
        "results": [asdict(r) for r in game.results[:n_results]],
        index_key: getattr(game, index_key),
        "deal": game._deal,
        "actions": game._actions,
    })


def load_match(text: Any, save_format: str, versions: tuple[int, ...], index_key: str,
               restore: Callable[[dict], Engine], name: str) -> Engine:
    """A ``save_match`` save loaded: ``restore`` builds the game as its round was dealt from the save's
    JSON object (checking what it reads), then the round's moves are replayed. Anything malformed,
    moves past the round's end included, raises ``ValueError`` naming the ``name`` engine."""
    unit = index_key.removesuffix("_index")
    try:
        data = read_save(text, save_format, versions)
        game = restore(data)
        actions = data["actions"]
        if not isinstance(actions, list):
            raise ValueError("'actions' must be a list")
        start = getattr(game, index_key)
        for action in actions:
            if game._terminal:
                raise ValueError("moves continue after the match ended")
            game.apply(action)
            if getattr(game, index_key) != start:
                raise ValueError(f"the saved moves run past the end of the {unit}")
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as err:
        raise ValueError(f"malformed saved {name} game: {err}") from err
    return game
