"""The browser's messages for Mexican Train: what ``protocol`` asks of a game.

Named by the record's ``web_module`` (``domino_env.games``): a seat's view as the page shows it (the
engine double in the hub, every train with its owner, marker, end and tiles, the open double to
cover, the boneyard, the round and the totals), the tile table, and what a finished round makes
public: its result, its final trains and every hand as it was at the end (the engine deals the next
round at once). A move names a train by its owner's absolute seat (``play 1-6 p2``), so a log line is
written for the seat that made it; a draw is told as ``draw``, never its tile (RULES-new-games.md 5).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from domino_env.frontends.web.protocol import ActionText, TileTable, tile_json, tiles_json
from domino_env.rules.mexican_train import (
    NUM_TILES,
    TILES,
    MexicanTrainConfig,
    MexicanTrainGame,
    MexicanTrainResult,
    MexicanTrainView,
    tile_text,
)
from domino_env.rules.tiles import iter_bits


@cache
def _table() -> TileTable:
    """The double-twelve set, each tile named low half first as the moves name it (``play 5-12 own``)."""
    return TileTable(TILES.low, TILES.high, tuple(tile_text(t) for t in range(NUM_TILES)))


def tile_table(config: MexicanTrainConfig) -> TileTable:
    return _table()


def seat_message(view: MexicanTrainView, action_text: ActionText) -> dict[str, Any]:
    """``action_text`` is the engine's ``action_to_text``, which also takes the seat a move is
    written for (its slots are relative to that seat)."""
    cfg, n, seat = view.config, view.config.num_players, view.seat
    stride = n + 1
    draw_action = stride * NUM_TILES
    legal = []
    for a in iter_bits(view.legal_mask):
        tile, slot = divmod(a, stride) if a < draw_action else (None, None)
        train = None if slot is None else slot if slot == n else (seat + slot) % n
        legal.append({"action": a, "text": action_text(a), "tile": tile, "side": train})
    plays = [(a // stride) for _s, a in view.history if a < draw_action]
    open_trains = {train for train, _value in view.open_doubles}
    return {
        "title": f"Mexican Train ({cfg.preset})",
        "preset": cfg.preset,
        "num_players": n,
        "teams": False,
        "target": None,
        "seat": seat,
        "current_player": view.current_player,
        "leader": view.first_player,
        "round": view.round_index + 1,
        "rounds": cfg.last_round(view.round_index),
        "engine": view.engine,
        "hand": tiles_json(_table(), view.hand),
        "hand_sizes": list(view.hand_sizes),
        "boneyard_size": view.boneyard_size,
        "trains": [
            {
                "owner": None if k == n else k,
                "marked": k < n and view.marked[k],
                "end": view.ends[k],
                "open_double": k in open_trains,
                "tiles": train_json(view.engine, tiles),
            }
            for k, tiles in enumerate(view.trains)
        ],
        "ends": list(view.ends),
        "open_doubles": [{"train": train, "value": value} for train, value in view.open_doubles],
        "in_run": view.in_run,
        "scores": list(view.scores),
        "last_tile": plays[-1] if plays else None,
        "legal": legal,
        "log": [{"seat": s, "text": action_text(a, s)} for s, a in view.history],
    }


def train_json(engine: int, tiles: Any) -> list[dict[str, Any]]:
    """A train from the hub outward, each tile with the halves as laid (``left``: the end it was
    played on, ``right``: the train's end after it), who played it and whether it is a double."""
    laid, end = [], engine
    for tile, seat, after in tiles:
        faces = {"left": end, "right": after, "double": end == after}
        laid.append({**tile_json(_table(), tile), "seat": seat, **faces})
        end = after
    return laid


def apply(engine: MexicanTrainGame, action: int) -> dict[str, Any] | None:
    """``engine.apply(action)``; the round it finished (its result, final trains and every hand
    left), else ``None``."""
    seat, value, rounds = engine.current_player, engine.engine, len(engine.results)
    trains, hands, ends = [list(t) for t in engine.trains], list(engine.hands), list(engine.ends)
    engine.apply(action)  # raises before anything changes
    if len(engine.results) == rounds:
        return None
    stride = engine.num_players + 1
    if action < engine.draw_action:  # the next round is dealt already: add the round's last tile
        tile, slot = divmod(action, stride)
        train = engine.train_of(seat, slot)
        trains[train].append((tile, seat, TILES.other_half(tile, ends[train])))
        hands[seat] &= ~(1 << tile)
    return {
        "round": rounds + 1,
        "engine": value,
        "trains": [train_json(value, t) for t in trains],
        "hands": [tiles_json(_table(), h) for h in hands],
        "result": _result_json(engine.results[-1]),
    }


def match_facts(engine: MexicanTrainGame) -> dict[str, Any]:
    """The results of the rounds played so far."""
    return {"results": [_result_json(r) for r in engine.results]}


def _result_json(result: MexicanTrainResult) -> dict[str, Any]:
    return {
        "kind": result.kind,
        "engine": result.engine,
        "winners": [] if result.out is None else [result.out],
        "pips": list(result.pips),
        "round_points": list(result.round_points),
        "text": result.describe(),
    }
