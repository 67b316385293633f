"""Observation encoders for the line games; ``"default"`` is the one ``dominoes_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % n``, so
``r = 0`` is me and, with teams, ``r = 2`` is my partner. Pips are categories (one-hot); counts are
scaled by the number of tiles in the set ``T`` so every entry lies in ``[0, 1]``. The slot table is
``DefaultLineEncoder().slots(config)``; ``slot_table_markdown(config)`` prints it for the docs.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import Encoder, Slot, layout, register_encoder
from domino_env.rules.line import LineConfig, LineView
from domino_env.tiles import iter_bits


@register_encoder
class DefaultLineEncoder(Encoder):
    """Own hand, the line by who played it, open ends, sizes, passes with their ends, scores, seat."""

    name = "default"
    game = "line"

    def slots(self, config: LineConfig) -> tuple[Slot, ...]:
        return _slots(config)

    def encode(self, view: LineView) -> np.ndarray:
        cfg = view.config
        at = _starts(cfg)
        n, me = cfg.num_players, view.seat
        num_tiles = cfg.tiles.num_tiles
        values = cfg.max_pips + 1
        out = np.zeros(_size(cfg), dtype=np.float32)
        hand = at["hand"]
        for t in iter_bits(view.hand):
            out[hand + t] = 1.0
        line = at["line_by_seat"]
        for t, seat, _side in view.line:
            out[line + ((seat - me) % n) * num_tiles + t] = 1.0
        if view.left_end >= 0:
            out[at["left_end"] + view.left_end] = 1.0
            out[at["right_end"] + view.right_end] = 1.0
        else:
            out[at["empty_table"]] = 1.0
        draws = [0] * n
        passed = at["passed_on"]
        draw_action = 2 * num_tiles
        for seat, action, left, right in view.history:
            r = (seat - me) % n
            if action == draw_action:
                draws[r] += 1
            elif action == draw_action + 1:
                out[passed + r * values + left] = 1.0
                out[passed + r * values + right] = 1.0
        target = cfg.target_score or cfg.tiles.total_pips
        for seat in range(n):
            r = (seat - me) % n
            out[at["hand_sizes"] + r] = view.hand_sizes[seat] / num_tiles
            out[at["draws"] + r] = min(draws[r] / num_tiles, 1.0)
            out[at["scores"] + r] = min(view.scores[seat] / target, 1.0)
        out[at["stock"]] = view.drawable / num_tiles
        out[at["stock"] + 1] = view.stock_size / num_tiles
        out[at["out_of_play"]] = view.out_of_play / num_tiles
        out[at["passes_in_row"] + view.passes_in_row] = 1.0
        if view.current_player is not None:
            out[at["to_act"] + (view.current_player - me) % n] = 1.0
        out[at["leader"] + (view.leader - me) % n] = 1.0
        out[at["seat"] + me] = 1.0
        if view.team is not None:
            out[at["team"] + view.team] = 1.0
        if view.hands is not None:
            for seat, h in enumerate(view.hands):
                base = at["all_hands"] + ((seat - me) % n) * num_tiles
                for t in iter_bits(h):
                    out[base + t] = 1.0
        return out


@cache
def _slots(cfg: LineConfig) -> tuple[Slot, ...]:
    n, num_tiles, values = cfg.num_players, cfg.tiles.num_tiles, cfg.max_pips + 1
    parts = [
        ("hand", num_tiles, "1 if the tile (canonical index) is in my hand"),
        ("line_by_seat", n * num_tiles, "block r, entry t: tile t is on the line, played by relative seat r"),
        ("left_end", values, "one-hot number of the left open end (zeros on an empty table)"),
        ("right_end", values, "one-hot number of the right open end (zeros on an empty table)"),
        ("empty_table", 1, "1 before the opening tile of the round"),
        ("hand_sizes", n, "tiles held by relative seat r / T"),
        ("stock", 2, "drawable stock / T, whole stock (with the reserve) / T; 0 in Block"),
        ("out_of_play", 1, "tiles out of play this round / T"),
        ("draws", n, "tiles drawn this round by relative seat r / T"),
        ("passed_on", n * values, "block r, entry v: relative seat r passed this round with v an open end"),
        ("passes_in_row", n, "one-hot count of passes since the last tile played (0..n-1)"),
        ("to_act", n, "one-hot relative seat to act (zeros once the episode is over)"),
        ("leader", n, "one-hot relative seat that led this round"),
        ("scores", n, "match score of relative seat r's side / target (or / set pips), capped at 1"),
        ("seat", n, "one-hot absolute seat of the observer"),
        ("team", 2, "one-hot team of the observer (zeros without teams)"),
    ]
    if cfg.open_hands:
        parts.append(("all_hands", n * num_tiles, "open_hands only: block r is relative seat r's hand"))
    return layout(parts)


@cache
def _starts(cfg: LineConfig) -> dict[str, int]:
    return {s.name: s.start for s in _slots(cfg)}


@cache
def _size(cfg: LineConfig) -> int:
    last = _slots(cfg)[-1]
    return last.start + last.length
