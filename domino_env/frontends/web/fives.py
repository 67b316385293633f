"""The browser's messages for All Fives and Fives and Threes: what ``protocol`` asks of a game.

Named by the record's ``web_module`` (``domino_env.games``): a seat's view as the page shows it (the
layout as a centre and its arms W, E, N, S, as the terminal's picture draws it, the open ends, the
count, the points each play scored, the scores), the tile table, and what a finished hand makes
public: its result, its final layout and every hand as it was at the end (the engine deals the next
hand at once, so the page would never show them). A draw is told as ``draw``, never its tile
(RULES-new-games.md 5).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from domino_env.frontends.web.protocol import ActionText, TileTable, tile_json, tiles_json
from domino_env.rules.fives import (
    END_NAMES,
    END_STRIDE,
    LINE_END_NAMES,
    NUM_TILES,
    TILE_HIGH,
    TILE_LOW,
    FivesConfig,
    FivesGame,
    FivesResult,
    FivesView,
)
from domino_env.rules.tiles import iter_bits

TITLES = {"all_fives": "All Fives", "fives_and_threes": "Fives and Threes"}


@cache
def _table() -> TileTable:
    """The double-six set, each tile named low half first as the moves name it (``play 3-5 east``)."""
    low, high = TILE_LOW.tolist(), TILE_HIGH.tolist()
    return TileTable(low, high, tuple(f"{a}-{b}" for a, b in zip(low, high, strict=True)))


def tile_table(config: FivesConfig) -> TileTable:
    return _table()


def end_names(config: FivesConfig) -> tuple[str, ...]:
    """The ends a tile may go on, by end id: west, east, north, south (All Fives) or left, right."""
    return END_NAMES if config.is_all_fives else LINE_END_NAMES


def seat_message(view: FivesView, action_text: ActionText) -> dict[str, Any]:
    cfg = view.config
    stride = END_STRIDE[cfg.variant]
    draw_action = stride * NUM_TILES
    legal = []
    for a in iter_bits(view.legal_mask):
        tile, end = divmod(a, stride) if a < draw_action else (None, None)
        legal.append({"action": a, "text": action_text(a), "tile": tile, "side": end})
    plays = [(s, a, points) for s, a, points, _ends in view.history if a < draw_action]
    return {
        "title": f"{TITLES[cfg.variant]} ({cfg.preset})",
        "variant": cfg.variant,
        "preset": cfg.preset,
        "num_players": cfg.num_players,
        "teams": cfg.teams,
        "target": cfg.target_score,
        "exact_target": bool(cfg.exact_target),
        "unit": "fives" if cfg.score_unit == "fives" else "points",
        "seat": view.seat,
        "current_player": view.current_player,
        "leader": view.leader,
        "round": view.hand_index + 1,
        "hand": tiles_json(_table(), view.hand),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "drawable": view.drawable,
        "reserve": view.reserve,
        "out_of_play": view.out_of_play,
        "layout": layout_json(view.centre, view.arms, view.spinner),
        "spinner_sides": view.spinner_sides,
        "end_names": list(end_names(cfg)),
        "ends": [v if v >= 0 else None for v in view.open_ends[:stride]],
        "count": view.count,
        "scores": list(view.scores),
        "last_tile": plays[-1][1] // stride if plays else None,
        "legal": legal,
        "log": [{"seat": s, "text": action_text(a), "points": p} for s, a, p, _ends in view.history],
    }


def layout_json(centre: Any, arms: Any, spinner: int) -> dict[str, Any] | None:
    """The layout as the page draws it (``None`` while the table is empty): the ``centre`` (its
    ``west`` and ``east`` halves; ``spinner`` when it spins) and the ``arms`` W, E, N, S, each from
    the centre outward, every tile with the halves facing the centre (``inner``) and away
    (``outer``) and who played it."""
    if centre is None:
        return None
    table = _table()

    def placed(record: tuple[int, int, int, int, int]) -> dict[str, Any]:
        tile, seat, _when, inner, outer = record
        double = inner == outer
        return {**tile_json(table, tile), "seat": seat, "inner": inner, "outer": outer, "double": double}

    tile, seat, _when, west, east = centre
    return {
        "centre": {**tile_json(table, tile), "seat": seat, "west": west, "east": east,
                   "double": west == east, "spinner": tile == spinner},
        "arms": [[placed(r) for r in arm] for arm in arms],
    }


def apply(engine: FivesGame, action: int) -> dict[str, Any] | None:
    """``engine.apply(action)``; the hand it finished (its result, final layout and every hand
    left), else ``None``. The move is first played on a copy told to stop after this hand, whose
    layout and hands are the hand's last."""
    hands = len(engine.results)
    probe = engine.clone()
    one_hand = None if engine.config.is_all_fives else False
    probe.config = replace(engine.config, target_score=None, exact_target=one_hand)
    engine.apply(action)  # raises before anything changes, the probe untouched
    if len(engine.results) == hands:
        return None
    probe.apply(action)
    return {
        "round": hands + 1,
        "layout": layout_json(probe.centre, probe.arms, probe.spinner),
        "hands": [tiles_json(_table(), h) for h in probe.hands],
        "result": _result_json(engine.results[-1]),
    }


def match_facts(engine: FivesGame) -> dict[str, Any]:
    """The results of the hands played so far."""
    return {"results": [_result_json(r) for r in engine.results]}


def _result_json(result: FivesResult) -> dict[str, Any]:
    return {
        "kind": result.kind,
        "winners": list(result.winners),
        "pips": list(result.pips),
        "play_points": list(result.play_points),
        "hand_points": list(result.hand_points),
        "round_points": list(result.points),
        "text": result.describe(),
    }
