"""Block and Draw line games (docs/rules.md sections 1, 2, 4, 5) as a pure engine over bit sets.

A hand is an ``int`` bit set over the canonical tile index. With ``suit_mask[v]`` (every tile
holding number ``v``) the tiles that fit an open end are one ``&``, and ``_spread`` turns a tile
set into the even action ids ``2*t`` (side 0) so the legal mask is a handful of integer operations.

The engine plays a whole match: when a round ends and no side has reached ``target_score`` the next
round is dealt at once from the same ``numpy.random.Generator`` (the only source of randomness),
with the lead passing to the left. ``target_score=None`` makes the match a single round.

Action ids (docs/rules.md 2.7), with ``T`` tiles in the set: ``2*t + s`` places tile ``t`` on side ``s``
(0 = left end, 1 = right end), ``2T`` = draw, ``2T + 1`` = pass.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import Any, NamedTuple

import numpy as np

from domino_env.rules.conventions import (
    CachedMoves,
    Engine,
    check_action_id,
    check_choice,
    check_generator,
    check_move_text,
    copy_generator,
    generator_from_state,
    is_int,
    load_match,
    parse_hands_stock_leader,
    save_match,
)
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.tiles import TileSet, iter_bits, tile_set

VARIANTS = ("block", "draw")
PRESETS = ("pagat", "boardpan")
DRAW_POLICIES = ("any", "when_stuck")
FIRST_LEADERS = ("random", "highest_double")
SCORINGS = ("others_minus_own", "others")
SIDE_NAMES = ("left", "right")
MAX_TARGET_SCORE = 1000  # ten times the presets' largest target: a match ends in bounded rounds
SAVE_FORMAT = "domino-env/line"
SAVE_VERSIONS = (1,)  # what from_json reads; to_json writes the last

# docs/rules.md 2.1: hand sizes by (variant, players); four players in teams use _TEAM_HAND_SIZE.
_HAND_SIZE = {
    ("block", 2): 7, ("block", 3): 5, ("block", 4): 5,
    ("draw", 2): 7, ("draw", 3): 7, ("draw", 4): 6,
}
_TEAM_HAND_SIZE = {"block": 7, "draw": 6}
_PRESET_DEFAULTS: dict[str, dict[str, Any]] = {
    "pagat": {"draw_reserve": 2, "draw_policy": "any", "first_leader": "random",
              "scoring": "others_minus_own"},
    "boardpan": {"draw_reserve": 0, "draw_policy": "when_stuck", "first_leader": "highest_double",
                 "scoring": "others"},
}
_PRESET_TARGET = "preset"


def _preset_target(preset: str, num_players: int) -> int:
    if preset == "pagat":
        return 100 if num_players == 2 else 61
    return 100


@dataclass(frozen=True)
class LineConfig:
    """Every option of docs/rules.md 2.1. ``None`` (and ``target_score="preset"``) take the preset's value.

    Integer options accept numpy integers (stored as ``int``), never ``bool``; ``target_score`` is
    at most ``MAX_TARGET_SCORE`` (docs/decisions.md).

    After construction every field is concrete, so ``LineConfig(**asdict(cfg)) == cfg`` and a saved
    game stores exactly the rules it was played with. ``target_score=None`` means one practice round.
    """

    variant: str = "block"
    num_players: int = 2
    teams: bool = False
    preset: str = "pagat"
    max_pips: int = 6
    hand_size: int | None = None
    draw_reserve: int | None = None
    draw_policy: str | None = None
    first_leader: str | None = None
    scoring: str | None = None
    target_score: int | str | None = _PRESET_TARGET
    open_hands: bool = False

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_choice("preset", self.preset, PRESETS)
        if not is_int(self.num_players) or self.num_players not in (2, 3, 4):
            raise ValueError(f"num_players must be 2, 3 or 4, got {self.num_players!r}")
        for flag in ("teams", "open_hands"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.teams and self.num_players != 4:
            raise ValueError(f"teams need exactly 4 players, got num_players={self.num_players}")
        tiles = tile_set(self.max_pips)  # validates max_pips
        for name, value in _PRESET_DEFAULTS[self.preset].items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        object.__setattr__(self, "hand_size", self._hand_size(tiles.num_tiles))
        if self.target_score == _PRESET_TARGET:
            object.__setattr__(self, "target_score", _preset_target(self.preset, self.num_players))
        check_choice("draw_policy", self.draw_policy, DRAW_POLICIES)
        check_choice("first_leader", self.first_leader, FIRST_LEADERS)
        check_choice("scoring", self.scoring, SCORINGS)
        if not is_int(self.hand_size) or self.hand_size < 1:
            raise ValueError(f"hand_size must be a positive integer, got {self.hand_size!r}")
        dealt = self.hand_size * self.num_players
        if dealt > tiles.num_tiles:
            raise ValueError(
                f"{self.num_players} hands of {self.hand_size} need {dealt} tiles but "
                f"a double-{self.max_pips} set holds {tiles.num_tiles}"
            )
        if not is_int(self.draw_reserve) or self.draw_reserve < 0:
            raise ValueError(f"draw_reserve must be a non-negative integer, got {self.draw_reserve!r}")
        if self.variant == "draw" and self.draw_reserve > tiles.num_tiles - dealt:
            raise ValueError(
                f"draw_reserve={self.draw_reserve} exceeds the stock of {tiles.num_tiles - dealt} tiles"
            )
        target = self.target_score
        if target is not None and (not is_int(target) or not 1 <= target <= MAX_TARGET_SCORE):
            raise ValueError(
                f"target_score must be an integer 1..{MAX_TARGET_SCORE} or None (one round), got {target!r}"
            )
        for name in ("num_players", "hand_size", "draw_reserve", "target_score"):  # numpy ints as int
            if is_int(getattr(self, name)):
                object.__setattr__(self, name, int(getattr(self, name)))

    def _hand_size(self, num_tiles: int) -> Any:
        """The given ``hand_size``, else docs/rules.md 2.1's default: the table's size when the set
        holds it (with Draw's reserve in the stock), else the size that leaves one hand's worth
        undealt, so that small sets (double-2 to double-5) play out of the box with hidden tiles."""
        if self.hand_size is not None:
            return self.hand_size  # validated by the caller
        size = _TEAM_HAND_SIZE[self.variant] if self.teams else _HAND_SIZE[self.variant, self.num_players]
        stock = num_tiles - size * self.num_players
        reserve = self.draw_reserve if self.variant == "draw" and is_int(self.draw_reserve) else 0
        if stock >= reserve:
            return size
        return max(1, num_tiles // (self.num_players + 1))

    @classmethod
    def make(cls, one_round: bool = False, **options: Any) -> LineConfig:
        """The config of ``options``, every one checked (``target_score`` too); ``one_round=True``
        then plays a single round (``target_score=None``), as the envs' ``episode="round"`` does."""
        config = cls(**options)
        return replace(config, target_score=None) if one_round else config

    @property
    def tiles(self) -> TileSet:
        return tile_set(self.max_pips)

    @property
    def num_actions(self) -> int:
        return 2 * self.tiles.num_tiles + 2

    @property
    def max_decisions(self) -> int:
        """Most decisions one dealt round can take (a bound, not always reached; a match has no
        bound, since a round may score nothing; a custom ``deal`` of other sizes has its own).

        Plays: at most the tiles that can reach a hand, ``P = dealt + drawable stock``. Draws: at
        most the drawable stock ``S``. Passes: at most ``n - 1`` between two plays (``n`` in a row
        block the round) and ``n`` after the last, so ``P(n - 1) + 1``. In all ``nP + S + 1``.
        """
        dealt, drawable = self.hand_size * self.num_players, self.drawable_stock
        return self.num_players * (dealt + drawable) + drawable + 1

    @property
    def drawable_stock(self) -> int:
        """Tiles a dealt round lets players draw (Draw: the stock less the reserve; Block: 0)."""
        if self.variant != "draw":
            return 0
        return self.tiles.num_tiles - self.hand_size * self.num_players - self.draw_reserve

    @property
    def max_round_points(self) -> int:
        """Most points one side can score in a round: the pips of the whole set (a bound; the
        winners score at most the pips left in the other hands)."""
        return self.tiles.total_pips

    @property
    def num_sides(self) -> int:
        """Scoring sides: two teams, or one per player."""
        return 2 if self.teams else self.num_players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.teams else seat


@dataclass(frozen=True)
class RoundResult:
    """How a round ended. ``round_points[i]`` is what seat ``i``'s side scored (partners alike)."""

    leader: int
    kind: str  # "domino" or "blocked"
    winners: tuple[int, ...]  # seats credited with the win; () when nobody scores
    pips: tuple[int, ...]  # pips left in each hand
    round_points: tuple[int, ...]

    def describe(self) -> str:
        """One line for people: how the round ended, pips left and points per seat."""
        seats = ", ".join(str(s) for s in self.winners)
        if self.kind == "domino":
            how = f"seat {seats} went out"
        elif self.winners:
            how = f"blocked, fewest pips: seat{'s' * (len(self.winners) > 1)} {seats}"
        else:
            how = "blocked, the sides tie on pips: nobody scores"
        return f"{how}; pips left {list(self.pips)}; round points {list(self.round_points)}"


class LineView(NamedTuple):
    """What seat ``seat`` may know (docs/rules.md 4). Hands are bit sets over the canonical tile index.

    ``line`` lists ``(tile, seat, side)`` in the order played. ``history`` lists this round's events
    ``(seat, action, left_end, right_end)`` with the open ends *before* the event (-1 on an empty
    table), so a pass carries the ends it passed on; a draw is the draw action id, never the tile.
    ``played_by``, ``passed_on``, ``draws`` and ``drawn_on`` summarise this round's public history
    per seat (the tiles it played, the numbers that were an open end when it passed, how many tiles
    it drew, the numbers that were an open end at its latest draw), kept up to date by the engine so
    encoders need not replay ``history``.
    ``hands`` is every hand only with ``open_hands``; otherwise ``None``.

    A NamedTuple (immutable, and built positionally in ``LineGame.view``) because a view is made
    at every step: a frozen dataclass took longer to build than the engine took to move.
    """

    config: LineConfig
    seat: int
    team: int | None
    hand: int
    legal_mask: int
    current_player: int | None
    leader: int
    round_index: int
    left_end: int
    right_end: int
    line: tuple[tuple[int, int, int], ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    drawable: int
    out_of_play: int
    passes_in_row: int
    history: tuple[tuple[int, int, int, int], ...]
    scores: tuple[int, ...]
    played_by: tuple[int, ...]
    passed_on: tuple[int, ...]
    draws: tuple[int, ...]
    drawn_on: tuple[int, ...]
    hands: tuple[int, ...] | None = None


_new_tuple = tuple.__new__  # builds a view from its fields in one C call (LineGame.view)

# Mutable per-state lists a clone must copy.
_LIST_FIELDS = (
    "hands", "stock", "line", "history", "scores", "results", "_actions", "played_by", "passed_on", "draws",
    "drawn_on",
)


def _spread(mask: int) -> int:
    """Tile bit set -> action bit set with tile ``t`` on side 0 (bit ``2t``): ``(2^t)^2 = 2^(2t)``."""
    out = 0
    while mask:
        low = mask & -mask
        out |= low * low
        mask ^= low
    return out


def lead_rank(tiles: TileSet, t: int) -> int:
    """Tile ``t``'s place in the first-leader order of docs/rules.md 2.1 (``first_leader="highest_double"``):
    doubles above other tiles, then more pips, then the higher half. Distinct tiles rank differently,
    so one tile of a deal is the top; an integer so a batched engine can keep it as an array."""
    return tiles.is_double(t) * 10_000 + tiles.pips[t] * 100 + tiles.high[t]


@cache
def _lead_order(tiles: TileSet) -> tuple[int, ...]:
    """Every tile of the set, top ``lead_rank`` first (ranked once per set, not once per deal)."""
    return tuple(sorted(range(tiles.num_tiles), key=lambda t: lead_rank(tiles, t), reverse=True))


def highest_double_holder(tiles: TileSet, hands: Sequence[int]) -> int:
    """The seat whose hand (a bit set) holds the deal's top tile by ``lead_rank``: it leads first
    under ``first_leader="highest_double"`` (the highest double, else the heaviest tile)."""
    dealt = 0
    for h in hands:
        dealt |= h
    best = next(t for t in _lead_order(tiles) if dealt >> t & 1)
    return next(s for s, h in enumerate(hands) if h >> best & 1)


def line_in_table_order(tiles: TileSet, line: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """``(tile, shown left half, shown right half)`` from the left end to the right, replayed from a
    line of ``(tile, seat, side)`` in the order played (the text and the picture of the table)."""
    left: list[tuple[int, int, int]] = []
    right: list[tuple[int, int, int]] = []
    ends = [-1, -1]
    for t, _seat, side in line:
        lo, hi = tiles.low[t], tiles.high[t]
        if ends[0] < 0:
            ends = [lo, hi]
            right.append((t, lo, hi))
        elif side == 0:
            new = hi if lo == ends[0] else lo
            left.append((t, new, ends[0]))
            ends[0] = new
        else:
            new = hi if lo == ends[1] else lo
            right.append((t, ends[1], new))
            ends[1] = new
    return left[::-1] + right


def game_from_save(game_type: Callable[..., Engine], config_type: Callable[..., Any], index_key: str,
                   data: dict) -> Engine:
    """A line or Fives game as its saved round (``index_key``) was dealt, after the saved match so
    far: ``load_match``'s restore step for the engines whose saved deal names its leader."""
    game = game_type(config_type(**data["config"]), generator_from_state(data["rng"]), deal=data["deal"])
    if game._deal["leader"] != data["deal"].get("leader"):
        raise ValueError("the saved deal must name its leader")
    game._restore_match(data["scores"], data["results"], data[index_key])
    return game


class LineGame(CachedMoves):
    """A Block or Draw match (one or more rounds) between ``num_players`` seats."""

    __slots__ = (
        "config", "tiles", "num_players", "num_actions", "draw_action", "pass_action", "rng",
        "hands", "stock", "out_of_play", "left", "right", "line", "current", "leader", "passes",
        "history", "scores", "results", "round_index", "_terminal", "_deal", "_actions", "_round_start",
        "_mask", "played_by", "passed_on", "draws", "drawn_on",
    )

    def __init__(self, config: LineConfig, rng: np.random.Generator, deal: Mapping[str, Any] | None = None):
        """Start a match. ``rng`` is the match's only source of randomness (deals, the first leader
        by lot); a ``TypeError`` unless it is a ``numpy.random.Generator``. ``deal`` (``hands``,
        optional ``stock`` drawn from the front, optional ``leader``) sets up the first round
        exactly; later rounds are shuffled from ``rng``."""
        self.config = config
        self.tiles = config.tiles
        self.num_players = config.num_players
        self.num_actions = config.num_actions
        self.draw_action = 2 * self.tiles.num_tiles
        self.pass_action = self.draw_action + 1
        self.rng = check_generator(rng)
        self.scores = [0] * self.num_players
        self.results: list[RoundResult] = []
        self.round_index = 0
        self._terminal = False
        if deal is None:
            self._start_round(*self._random_deal(), leader=None)
        else:
            self._start_round(*self._parse_deal(deal))

    # ----- dealing -----------------------------------------------------------------------------
    def _random_deal(self) -> tuple[list[int], list[int]]:
        order = self.rng.permutation(self.tiles.num_tiles).tolist()  # Python ints, in one call
        k = self.config.hand_size
        hands = [order[i * k:(i + 1) * k] for i in range(self.num_players)]
        return hands, order[k * self.num_players:]

    def _parse_deal(self, deal: Mapping[str, Any]) -> tuple[list[list[int]], list[int], int | None]:
        no_stock = "Block has no stock: undealt tiles are out of play; omit deal['stock']"
        return parse_hands_stock_leader(deal, self.tiles, self.num_players,
                                        no_stock if self.config.variant == "block" else None)

    def _first_leader(self) -> int:
        """docs/rules.md 2.1: by lot, or the holder of the highest double (else the heaviest tile)."""
        if self.config.first_leader == "random":
            return int(self.rng.integers(self.num_players))
        return highest_double_holder(self.tiles, self.hands)

    def _start_round(self, hands: list[list[int]], stock: list[int], leader: int | None) -> None:
        self.hands = [sum([1 << t for t in h]) for h in hands]
        in_hands = 0
        for h in self.hands:
            in_hands |= h
        if self.config.variant == "block":
            self.stock: list[int] = []
        else:
            self.stock = list(stock)
        self.out_of_play = self.tiles.full_mask & ~in_hands & ~sum(1 << t for t in self.stock)
        if leader is None:
            leader = self._first_leader() if not self.results else (self.leader + 1) % self.num_players
        self.leader = self.current = leader
        self.left = self.right = -1
        self.line: list[tuple[int, int, int]] = []
        self.history: list[tuple[int, int, int, int]] = []
        self.passes = 0
        self.played_by = [0] * self.num_players  # per seat: tiles it played this round
        self.passed_on = [0] * self.num_players  # per seat: numbers that were an open end at its passes
        self.draws = [0] * self.num_players  # per seat: tiles it drew this round
        self.drawn_on = [0] * self.num_players  # per seat: numbers that were an open end at its latest draw
        self._mask = -1
        self._deal = {"hands": [list(h) for h in hands], "stock": list(self.stock), "leader": leader}
        self._actions: list[int] = []
        self._round_start = (list(self.scores), len(self.results))

    # ----- protocol ----------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self._terminal else self.current

    @property
    def is_terminal(self) -> bool:
        return self._terminal

    @property
    def drawable(self) -> int:
        """Tiles the current round still lets players draw (the reserve is never drawn)."""
        return max(0, len(self.stock) - self.config.draw_reserve)

    def _legal(self, seat: int) -> int:
        hand = self.hands[seat]
        if self.left < 0:
            return _spread(hand)  # the opening: any tile, side 0
        suit = self.tiles.suit_mask
        fit_left = hand & suit[self.left]
        fit_right = hand & suit[self.right]
        mask = _spread(fit_left) | _spread(fit_right) << 1
        can_draw = (
            self.config.variant == "draw"
            and len(self.stock) > self.config.draw_reserve
            and (self.config.draw_policy == "any" or not (fit_left | fit_right))
        )
        if can_draw:
            mask |= 1 << self.draw_action
        elif not (fit_left | fit_right):
            mask |= 1 << self.pass_action
        return mask

    def apply(self, action: int, seat: int | None = None) -> None:
        """Play ``action`` (a Python or numpy integer, never a ``bool``) for the seat to act (checked
        against ``seat`` when given).

        Raises ``IllegalActionError`` naming the move and the legal moves; the state is untouched.
        """
        if type(action) is not int:  # the common plain int skips is_int's isinstance tests
            if not is_int(action):
                raise IllegalActionError(self._illegal_message(action, seat))
            action = int(action)  # a numpy integer: as an int before it meets the bit sets
        if (
            not 0 <= action < self.num_actions
            or not self.legal_mask() >> action & 1
            or (seat is not None and seat != self.current)
        ):
            raise IllegalActionError(self._illegal_message(action, seat))
        s = self.current
        self._mask = -1
        self.history.append((s, action, self.left, self.right))
        self._actions.append(action)
        if action == self.draw_action:
            self.hands[s] |= 1 << self.stock.pop(0)
            self.draws[s] += 1
            self.drawn_on[s] = 1 << self.left | 1 << self.right
            return
        if action == self.pass_action:
            self.passed_on[s] |= 1 << self.left | 1 << self.right
            self.passes += 1
            if self.passes == self.num_players:
                self._end_round("blocked", s)
            else:
                self.current = (s + 1) % self.num_players
            return
        t, side = action >> 1, action & 1
        low, high = self.tiles.low[t], self.tiles.high[t]
        if self.left < 0:
            self.left, self.right = low, high
        elif side == 0:
            self.left = high if low == self.left else low
        else:
            self.right = high if low == self.right else low
        self.hands[s] ^= 1 << t
        self.played_by[s] |= 1 << t
        self.line.append((t, s, side))
        self.passes = 0
        if self.hands[s] == 0:
            self._end_round("domino", s)
        else:
            self.current = (s + 1) % self.num_players

    # ----- scoring -----------------------------------------------------------------------------
    def _end_round(self, kind: str, last_seat: int) -> None:
        cfg = self.config
        pips = tuple(self.tiles.mask_pips(h) for h in self.hands)
        if kind == "domino":
            winners: tuple[int, ...] = (last_seat,)
        else:
            low = min(pips)
            winners = tuple(s for s in range(self.num_players) if pips[s] == low)
            if len({cfg.side_of(s) for s in winners}) > 1:
                winners = ()
        points = [0] * self.num_players
        if winners:
            side = cfg.side_of(winners[0])
            won = sum(p for s, p in enumerate(pips) if cfg.side_of(s) != side)
            if cfg.scoring == "others_minus_own":
                won -= pips[winners[0]]
            for s in range(self.num_players):
                if cfg.side_of(s) == side:
                    points[s] = won
                    self.scores[s] += won
        self.results.append(RoundResult(self.leader, kind, winners, pips, tuple(points)))
        if cfg.target_score is None or max(self.scores) >= cfg.target_score:
            self._terminal = True
        else:
            self.round_index += 1
            self._start_round(*self._random_deal(), leader=None)

    # ----- boardpan automatic move ---------------------------------------------------------------
    def auto_move(self) -> int:
        """docs/rules.md 2.5: heaviest playable tile (ties: lowest action id) on its first legal side,
        else draw if allowed, else pass."""
        legal = self.legal_mask()
        if not legal:
            raise IllegalActionError("the match is over: there is no move to make")
        best, best_pips = -1, -1
        for a in iter_bits(legal & ((1 << self.draw_action) - 1)):
            if self.tiles.pips[a >> 1] > best_pips:
                best, best_pips = a, self.tiles.pips[a >> 1]
        if best >= 0:
            return best
        return self.draw_action if legal >> self.draw_action & 1 else self.pass_action

    # ----- text --------------------------------------------------------------------------------
    def action_to_text(self, action: int) -> str:
        """docs/rules.md 3.9 notation: ``"play 6-5 left"``, ``"draw"``, ``"pass"``; ``ValueError`` unless
        ``action`` is an action id (a Python or numpy integer, not a ``bool``)."""
        action = check_action_id(action, self.num_actions)
        if action == self.draw_action:
            return "draw"
        if action == self.pass_action:
            return "pass"
        return f"play {self.tiles.name(action >> 1)} {SIDE_NAMES[action & 1]}"

    def action_from_text(self, text: str) -> int:
        """Inverse of ``action_to_text``; the halves may be written in either order. Unreadable
        text raises ``ValueError``, anything but a string ``TypeError``."""
        words = check_move_text(text).strip().lower().split()
        if words == ["draw"]:
            return self.draw_action
        if words == ["pass"]:
            return self.pass_action
        if len(words) == 3 and words[0] == "play" and words[2] in SIDE_NAMES:
            return 2 * self.tiles.parse(words[1]) + SIDE_NAMES.index(words[2])
        raise ValueError(f"cannot read move {text!r}: write 'play 6-5 left' or 'right', 'draw', 'pass'")

    def render_text(self, seat: int | None = None) -> str:
        """ANSI/plain text of the table; doubles stand crosswise. ``seat`` hides the other hands."""
        ts = self.tiles
        rows = ["", "", ""]
        for _tile, a, b in line_in_table_order(ts, self.line):
            if a == b:
                cells = (f"┌{a}┐", "│─│", f"└{a}┘")
            else:
                cells = (" " * 5, f"[{a}|{b}]", " " * 5)
            for i, c in enumerate(cells):
                rows[i] += c
        target = self.config.target_score
        lines = [
            f"{self.config.preset} {self.config.variant}, round {self.round_index + 1}, "
            f"leader seat {self.leader}, scores {self.scores}" + (f" (target {target})" if target else ""),
            *(r.rstrip() for r in rows if r.strip()),
        ]
        if self.left >= 0:
            lines.append(f"open ends: {self.left} (left) and {self.right} (right)")
        lines.append(
            f"stock {len(self.stock)} (drawable {self.drawable}), out of play {self.out_of_play.bit_count()}"
        )
        for s, h in enumerate(self.hands):
            visible = seat is None or seat == s or self.config.open_hands
            shown = " ".join(ts.names(h)) if visible else f"{h.bit_count()} tiles"
            marker = ">" if s == self.current_player else " "
            lines.append(f"{marker} seat {s}: {shown}")
        if self._terminal:
            lines.append(f"match over; last round: {self.results[-1].describe()}")
        elif self.results and not self.line:  # a new round: say how the one before ended
            lines.append(f"previous round: {self.results[-1].describe()}")
        return "\n".join(lines)

    # ----- views -------------------------------------------------------------------------------
    def view(self, seat: int) -> LineView:
        """What ``seat`` may know (docs/rules.md 4); nothing else of the state reaches encoders or bots."""
        cfg = self.config
        current = None if self._terminal else self.current
        # Positional, in LineView's field order, through tuple.__new__: keywords, or the NamedTuple's
        # own __new__ (a Python function of 23 arguments), cost more than the rest of the view.
        return _new_tuple(LineView, (
            cfg,  # config
            seat,  # seat
            seat % 2 if cfg.teams else None,  # team
            self.hands[seat],  # hand
            self.legal_mask() if seat == current else 0,  # legal_mask
            current,  # current_player
            self.leader,  # leader
            self.round_index,  # round_index
            self.left,  # left_end
            self.right,  # right_end
            tuple(self.line),  # line
            tuple(map(int.bit_count, self.hands)),  # hand_sizes
            len(self.stock),  # stock_size
            max(0, len(self.stock) - cfg.draw_reserve),  # drawable (the property, inlined)
            self.out_of_play.bit_count(),  # out_of_play
            self.passes,  # passes_in_row
            tuple(self.history),  # history
            tuple(self.scores),  # scores
            tuple(self.played_by),  # played_by
            tuple(self.passed_on),  # passed_on
            tuple(self.draws),  # draws
            tuple(self.drawn_on),  # drawn_on
            tuple(self.hands) if cfg.open_hands else None,  # hands
        ))

    # ----- copies and saved games --------------------------------------------------------------
    def clone(self) -> LineGame:
        """An independent copy (its own generator state too)."""
        new = copy.copy(self)
        for name in _LIST_FIELDS:
            setattr(new, name, list(getattr(self, name)))
        new.rng = copy_generator(self.rng)
        return new

    def to_json(self) -> str:
        """The match as JSON: rules, generator state, the current round's deal and its moves."""
        return save_match(self, SAVE_FORMAT, SAVE_VERSIONS, "round_index", self._round_start)

    @classmethod
    def from_json(cls, text: str) -> LineGame:
        """Restore ``to_json`` output by replaying the round's moves. Anything else raises
        ``ValueError``: malformed input, another format, or a version not in ``SAVE_VERSIONS``."""
        restore = partial(game_from_save, cls, LineConfig, "round_index")
        return load_match(text, SAVE_FORMAT, SAVE_VERSIONS, "round_index", restore, "line")

    def _restore_match(self, scores: Any, results: Any, round_index: Any) -> None:
        n, cfg = self.num_players, self.config
        if not (isinstance(scores, list) and len(scores) == n and all(is_int(x) and x >= 0 for x in scores)):
            raise ValueError(f"'scores' must list {n} non-negative integers")
        if any(scores[s] != scores[s + 2] for s in range(n - 2)) and cfg.teams:
            raise ValueError("partners must have equal scores")
        if cfg.target_score is not None and max(scores) >= cfg.target_score:
            raise ValueError("the saved scores already reach the target: the match ended before this round")
        if not isinstance(results, list) or (cfg.target_score is None and results):
            raise ValueError("'results' must list the finished rounds (none in one-round play)")
        self.results = [self._read_result(i, r) for i, r in enumerate(results)]
        if [sum(r.round_points[s] for r in self.results) for s in range(n)] != scores:
            raise ValueError("'scores' are not the sum of the saved round results")
        if round_index != len(self.results):
            raise ValueError("'round_index' must equal the number of finished rounds")
        self.scores = list(scores)
        self.round_index = round_index
        self._round_start = (list(scores), len(self.results))

    def _read_result(self, index: int, saved: Any) -> RoundResult:
        """Saved round result ``index`` with every field checked (a save is untrusted input)."""
        n = self.num_players

        def per_seat(x: Any) -> bool:
            return isinstance(x, list) and len(x) == n and all(is_int(v) and v >= 0 for v in x)

        if not (
            isinstance(saved, dict)
            and set(saved) == set(RoundResult.__dataclass_fields__)
            and is_int(saved["leader"]) and 0 <= saved["leader"] < n
            and saved["kind"] in ("domino", "blocked")
            and isinstance(saved["winners"], list)
            and all(is_int(s) and 0 <= s < n for s in saved["winners"])
            and per_seat(saved["pips"]) and per_seat(saved["round_points"])
        ):
            raise ValueError(
                f"saved round result {index} is not a round result "
                "(leader, kind, winners, pips, round_points)"
            )
        return RoundResult(saved["leader"], saved["kind"], tuple(saved["winners"]), tuple(saved["pips"]),
                           tuple(saved["round_points"]))

