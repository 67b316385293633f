"""The browser's messages for Texas 42: what ``protocol`` asks of a game.

Named by the record's ``web_module`` (``domino_env.games``): a seat's view as the page shows it
(bids, contract, tricks, marks), the tile table, and what a scored hand makes public: its result,
its deciding trick (the engine deals the next hand at once, so the page would never show it) and every
hand as it was at the end.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domino_env.frontends.web.protocol import ActionText, TileTable, tile_json, tiles_json
from domino_env.rules.texas42 import (
    PHASE_NAMES,
    PLAY_PHASE,
    Texas42Config,
    Texas42Game,
    Texas42View,
    hand_moves,
)
from domino_env.rules.tiles import iter_bits


def tile_table(config: Texas42Config) -> TileTable:
    v = config.variant
    return TileTable(v.low, v.high, v.names)


def seat_message(view: Texas42View, action_text: ActionText) -> dict[str, Any]:
    cfg, v = view.config, view.config.variant
    table = tile_table(cfg)

    def text(a: int) -> str | None:
        return action_text(a) if a >= 0 else None

    legal = []
    for a in iter_bits(view.legal_mask):
        tile = a - v.play if v.play <= a < v.play + v.num_tiles else None
        legal.append({"action": a, "text": action_text(a), "tile": tile, "side": None})

    def trick_json(trick: Any) -> list[dict[str, Any]]:
        return [{"seat": s, "tile": tile_json(table, t)} for s, t in trick]

    return {
        "title": f"{v.name} ({cfg.preset})",
        "preset": cfg.preset,
        "num_players": cfg.num_players,
        "teams": True,
        "target": cfg.target_marks if cfg.episode == "game" else None,
        "seat": view.seat,
        "current_player": view.current_player,
        "phase": PHASE_NAMES[view.phase],
        "shaker": view.shaker,
        "hand": tiles_json(table, view.hand),
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


def public_text(config: Texas42Config, action: int) -> str:
    """A move as every seat may read it: a Texas 88 discard hides its tile (the discards stay hidden,
    docs/rules.md 3.8), anything else is the move's text."""
    v = config.variant
    if v.kitty_size and v.discard <= action < v.discard + v.num_tiles:
        return "discard"
    return v.action_text[action]


def apply(engine: Texas42Game, action: int) -> dict[str, Any] | None:
    """``engine.apply(action)``; the hand it scored (its ``last_result``, deciding trick and the hands
    left), else ``None``."""
    scored = engine.hands_scored
    probe = None
    if engine.phase == PLAY_PHASE:  # a play may end the hand: play it first on a copy told to stop there
        probe = engine.clone()
        probe.config = replace(engine.config, episode="hand")
    engine.apply(action)  # raises before anything changes, the probe untouched
    if engine.hands_scored == scored:
        return None
    finished = {"hand": engine.hands_scored, "result": engine.last_result, "trick": None, "hands": None}
    if probe is not None:
        probe.apply(action)
        table = tile_table(engine.config)
        finished["trick"] = {
            "plays": [{"seat": s, "tile": tile_json(table, t)} for s, t in probe.tricks[-1]],
            "winner": probe.trick_winners[-1],
        }
        finished["hands"] = [tiles_json(table, h) for h in probe.hands]
    return finished


def match_facts(engine: Texas42Game) -> dict[str, Any]:
    """How many hands have been scored."""
    return {"hands_scored": engine.hands_scored}
