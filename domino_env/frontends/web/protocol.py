"""The messages between the server and a browser, and the checks on what a browser sends.

**Server to browser.** Everything a seat's page shows is built by ``seat_message`` from that
seat's view (``engine.view(seat)``, docs/rules.md 4) and nothing else of the engine, so a hidden tile
cannot reach a browser by accident. The table adds only public facts: seat names, the turn timer,
the results of finished rounds or hands, and the line of the round that just ended (its plays were
public when made). The replay viewer's frames (``full_frame``) add every hand: they are built only
for finished or imported games.

**Browser to server.** ``parse_client_message`` accepts ``{"type": "move", "action": <id>,
"move_number": <n>}`` (an action id from the ``legal`` list of the state message numbered ``n``)
and ``{"type": "ping"}``; anything else raises ``ProtocolError`` naming what was wrong and what is
allowed. The move number makes a move meant for an older state (a double click, a message crossing
a bot's move) an error instead of a move in the new state. Whether a well-formed move is legal, and
whether it is the seat's turn, is the table's check (``server.Table.submit``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from domino_env.rules.line import LineConfig, LineGame, LineView, line_in_table_order
from domino_env.rules.texas42 import PHASE_NAMES, Texas42Config, Texas42Game, Texas42View, hand_moves
from domino_env.rules.tiles import TileSet, iter_bits

PROTOCOL_VERSION = 1
MAX_MESSAGE_CHARS = 1000
CLIENT_MESSAGE_TYPES = ("move", "ping")

ActionText = Callable[[int], str]


class ProtocolError(ValueError):
    """A browser message the server refuses; the text goes back to that browser."""


def parse_client_message(text: str | bytes) -> dict[str, Any]:
    """A checked client message: ``{"type": "move", "action": int, "move_number": int}`` or
    ``{"type": "ping"}``."""
    if isinstance(text, bytes):
        raise ProtocolError("messages are JSON text, not binary frames")
    if len(text) > MAX_MESSAGE_CHARS:
        raise ProtocolError(f"message longer than {MAX_MESSAGE_CHARS} characters")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as err:
        raise ProtocolError(
            f'message is not JSON ({err.msg}); send e.g. {{"type": "move", "action": 12, "move_number": 3}}'
        ) from None
    if not isinstance(message, dict) or message.get("type") not in CLIENT_MESSAGE_TYPES:
        raise ProtocolError(f"a message is a JSON object whose 'type' is one of {list(CLIENT_MESSAGE_TYPES)}")
    fields = {"type", "action", "move_number"} if message["type"] == "move" else {"type"}
    if set(message) != fields:
        raise ProtocolError(
            f"a {message['type']!r} message has exactly the fields {sorted(fields)}, got {sorted(message)}"
        )
    for field in fields - {"type"}:
        if type(message[field]) is not int:
            raise ProtocolError(
                f"a move's {field!r} must be an integer (an action id from 'legal' and the "
                f"'move_number' of the state it answers), got {message[field]!r}"
            )
    return message


# ----- tiles ---------------------------------------------------------------------------------------
def _tiles_of(config: LineConfig | Texas42Config) -> Any:
    """The tile table of a config: ``TileSet`` (line games) or ``Variant`` (42); both have
    ``low`` and ``high`` per tile id."""
    return config.variant if isinstance(config, Texas42Config) else config.tiles


def tile_json(tiles: Any, t: int) -> dict[str, Any]:
    """One tile as the page draws it: ``id``, halves ``a`` <= ``b``, ``name`` (as in the move notation)."""
    name = tiles.name(t) if isinstance(tiles, TileSet) else tiles.names[t]
    return {"id": t, "a": tiles.low[t], "b": tiles.high[t], "name": name}


def tiles_json(tiles: Any, mask: int) -> list[dict[str, Any]]:
    return [tile_json(tiles, t) for t in iter_bits(mask)]


# ----- one seat's view -----------------------------------------------------------------------------
def seat_message(view: LineView | Texas42View, action_text: ActionText) -> dict[str, Any]:
    """What the page of ``view.seat`` shows, from the view alone (``action_text``: the engine's
    ``action_to_text``, which depends only on the rules)."""
    if isinstance(view, LineView):
        message = _line_message(view, action_text)
    else:
        message = _texas42_message(view, action_text)
    if view.hands is not None:  # open_hands: the practice option that shows every hand to all
        message["hands"] = [tiles_json(_tiles_of(view.config), h) for h in view.hands]
    return message


def _line_message(view: LineView, action_text: ActionText) -> dict[str, Any]:
    cfg, tiles = view.config, view.config.tiles
    draw_action = 2 * tiles.num_tiles
    legal = []
    for a in iter_bits(view.legal_mask):
        tile, side = (a >> 1, a & 1) if a < draw_action else (None, None)
        legal.append({"action": a, "text": action_text(a), "tile": tile, "side": side})
    return {
        "game": "dominoes",
        "title": f"{cfg.variant.title()} ({cfg.preset})",
        "variant": cfg.variant,
        "preset": cfg.preset,
        "num_players": cfg.num_players,
        "teams": cfg.teams,
        "target": cfg.target_score,
        "seat": view.seat,
        "current_player": view.current_player,
        "leader": view.leader,
        "round": view.round_index + 1,
        "hand": tiles_json(tiles, view.hand),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "drawable": view.drawable,
        "out_of_play": view.out_of_play,
        "line": line_json(tiles, view.line),
        "ends": None if view.left_end < 0 else [view.left_end, view.right_end],
        "scores": list(view.scores),
        "legal": legal,
        "log": [{"seat": s, "text": action_text(a)} for s, a, _left, _right in view.history],
    }


def line_json(tiles: Any, line: Any) -> list[dict[str, Any]]:
    """The line from its left end to its right, each tile with the halves as shown (``left``,
    ``right``) and whether it is a double (drawn crosswise)."""
    return [
        {**tile_json(tiles, t), "left": a, "right": b, "double": tiles.low[t] == tiles.high[t]}
        for t, a, b in line_in_table_order(tiles, line)
    ]


def _texas42_message(view: Texas42View, action_text: ActionText) -> dict[str, Any]:
    cfg, v = view.config, view.config.variant

    def text(a: int) -> str | None:
        return action_text(a) if a >= 0 else None

    legal = []
    for a in iter_bits(view.legal_mask):
        tile = a - v.play if v.play <= a < v.play + v.num_tiles else None
        legal.append({"action": a, "text": action_text(a), "tile": tile, "side": None})

    def trick_json(trick: Any) -> list[dict[str, Any]]:
        return [{"seat": s, "tile": tile_json(v, t)} for s, t in trick]

    return {
        "game": "texas42",
        "title": f"{v.name} ({cfg.preset})",
        "preset": cfg.preset,
        "num_players": cfg.num_players,
        "teams": True,
        "target": cfg.target_marks if cfg.episode == "game" else None,
        "seat": view.seat,
        "current_player": view.current_player,
        "phase": PHASE_NAMES[view.phase],
        "shaker": view.shaker,
        "hand": tiles_json(v, view.hand),
        "hand_sizes": list(view.hand_sizes),
        "bids": [text(b) for b in view.bids],
        "bidder": view.bidder,
        "bid": text(view.bid),
        "declarer": view.declarer,
        "declaration": text(view.declaration),
        "sitting_out": view.sitting_out,
        "trick": trick_json(view.trick),
        "tricks": [
            {"plays": trick_json(t), "winner": w}
            for t, w in zip(view.tricks, view.trick_winners, strict=True)
        ],
        "points": list(view.points),
        "marks": list(view.marks),
        "legal": legal,
        "log": [{"seat": s, "text": text(a) or "discard"} for s, a, _lead in hand_moves(view)],
    }


# ----- the table's public record of finished rounds -------------------------------------------------
class RoundKeeper:
    """Applies moves to an engine and keeps what finished rounds made public: a line game's
    results and the final line of the round just ended (the engine deals the next round at once),
    a 42 hand's ``last_result``. Used by the tables and the replay viewer alike."""

    def __init__(self, engine: LineGame | Texas42Game):
        self.engine = engine
        self.previous: dict[str, Any] | None = None

    def apply(self, action: int) -> None:
        """``engine.apply(action)`` (raises ``IllegalActionError``, changing nothing), then note a
        finished round or hand."""
        engine = self.engine
        if isinstance(engine, Texas42Game):
            scored = engine.hands_scored
            engine.apply(action)
            if engine.hands_scored != scored:
                self.previous = {"result": engine.last_result}
            return
        seat, line, rounds = engine.current_player, list(engine.line), len(engine.results)
        engine.apply(action)
        if len(engine.results) != rounds and not engine.is_terminal:  # the next round is dealt already
            if action < engine.draw_action:
                line.append((action >> 1, seat, action & 1))
            self.previous = {
                "line": line_json(engine.tiles, line),
                "result": _result_json(engine.results[-1]),
            }

    def public(self) -> dict[str, Any]:
        """Public facts of the match so far, for every seat's message."""
        engine = self.engine
        if isinstance(engine, Texas42Game):
            return {"previous": self.previous, "hands_scored": engine.hands_scored}
        return {"previous": self.previous, "results": [_result_json(r) for r in engine.results]}


def _result_json(result: Any) -> dict[str, Any]:
    return {
        "kind": result.kind,
        "winners": list(result.winners),
        "pips": list(result.pips),
        "round_points": list(result.round_points),
        "text": result.describe(),
    }


def full_frame(engine: LineGame | Texas42Game, keeper: RoundKeeper) -> dict[str, Any]:
    """A replay frame: the view of the seat to act (or seat 0 at the end) with every hand added.
    Only for finished or imported games: it shows what no seat may see during play."""
    seat = engine.current_player if engine.current_player is not None else 0
    frame = seat_message(engine.view(seat), engine.action_to_text)
    tiles = _tiles_of(engine.config)
    frame["hands"] = [tiles_json(tiles, h) for h in engine.hands]
    frame.update(keeper.public())
    return frame
