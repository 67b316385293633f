"""The browser's messages for the line games (Block and Draw): what ``protocol`` asks of a game.

Named by the record's ``web_module`` (``domino_env.games``): a seat's view as the page shows it, the
tile table, and what a finished round makes public (its result, its final line and every hand as it
was at the end, shown while the engine has already dealt the next round).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from domino_env.frontends.web.protocol import ActionText, TileTable, tile_json, tiles_json
from domino_env.rules.line import LineConfig, LineGame, LineView, RoundResult, line_in_table_order
from domino_env.rules.tiles import TileSet, iter_bits


@cache
def _table(tiles: TileSet) -> TileTable:
    return TileTable(tiles.low, tiles.high, tuple(tiles.name(t) for t in range(tiles.num_tiles)))


def tile_table(config: LineConfig) -> TileTable:
    return _table(config.tiles)


def seat_message(view: LineView, action_text: ActionText) -> dict[str, Any]:
    cfg, tiles = view.config, view.config.tiles
    table = _table(tiles)
    draw_action = 2 * tiles.num_tiles
    legal = []
    for a in iter_bits(view.legal_mask):
        tile, side = (a >> 1, a & 1) if a < draw_action else (None, None)
        legal.append({"action": a, "text": action_text(a), "tile": tile, "side": side})
    return {
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
        "hand": tiles_json(table, view.hand),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "drawable": view.drawable,
        "out_of_play": view.out_of_play,
        "line": line_json(tiles, view.line),
        "ends": None if view.left_end < 0 else [view.left_end, view.right_end],
        "scores": list(view.scores),
        "scoring": cfg.scoring,
        "last_tile": _last_tile(view.history, draw_action),
        "legal": legal,
        "log": [{"seat": s, "text": action_text(a)} for s, a, _left, _right in view.history],
    }


def _last_tile(history: Any, draw_action: int) -> int | None:
    """The tile played last this round (the page highlights it), or ``None``."""
    for _seat, action, _left, _right in reversed(history):
        if action < draw_action:
            return action >> 1
    return None


def line_json(tiles: TileSet, line: Any) -> list[dict[str, Any]]:
    """The line from its left end to its right, each tile with the halves as shown (``left``,
    ``right``) and whether it is a double (drawn crosswise)."""
    table = _table(tiles)
    return [
        {**tile_json(table, t), "left": a, "right": b, "double": tiles.low[t] == tiles.high[t]}
        for t, a, b in line_in_table_order(tiles, line)
    ]


def apply(engine: LineGame, action: int) -> dict[str, Any] | None:
    """``engine.apply(action)``; the round it finished (its final line, its result and every hand
    left, turned up to count the pips), else ``None``."""
    seat, line, rounds = engine.current_player, list(engine.line), len(engine.results)
    hands = list(engine.hands)
    engine.apply(action)
    if len(engine.results) == rounds:
        return None
    if action < engine.draw_action:  # the next round may be dealt already: add the round's last tile
        line.append((action >> 1, seat, action & 1))
        hands[seat] &= ~(1 << (action >> 1))
    table = _table(engine.tiles)
    return {
        "round": rounds + 1,
        "line": line_json(engine.tiles, line),
        "hands": [tiles_json(table, h) for h in hands],
        "result": _result_json(engine.results[-1]),
    }


def match_facts(engine: LineGame) -> dict[str, Any]:
    """The results of the rounds played so far."""
    return {"results": [_result_json(r) for r in engine.results]}


def _result_json(result: RoundResult) -> dict[str, Any]:
    return {
        "kind": result.kind,
        "winners": list(result.winners),
        "pips": list(result.pips),
        "round_points": list(result.round_points),
        "text": result.describe(),
    }
