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
    _config: LineConfig | None = None  # the config of the last view, to skip hashing it each step

    def slots(self, config: LineConfig) -> tuple[Slot, ...]:
        return _slots(config)

    def encode(self, view: LineView) -> np.ndarray:
        cfg = view.config
        if cfg is not self._config:
            self._config, self._at, self._size = cfg, _starts(cfg), _size(cfg)
        at = self._at
        n, me = cfg.num_players, view.seat
        num_tiles = cfg.tiles.num_tiles
        numbers = cfg.max_pips + 1
        ones = [at["hand"] + t for t in iter_bits(view.hand)]  # entries set to 1, filled in one go
        line = at["line_by_seat"]
        ones += [line + ((seat - me) % n) * num_tiles + t for t, seat, _side in view.line]
        if view.left_end >= 0:
            ones += (at["left_end"] + view.left_end, at["right_end"] + view.right_end)
        else:
            ones.append(at["empty_table"])
        draws = [0] * n
        passed = at["passed_on"]
        draw_action = 2 * num_tiles
        for seat, action, left, right in view.history:
            r = (seat - me) % n
            if action == draw_action:
                draws[r] += 1
            elif action == draw_action + 1:
                ones += (passed + r * numbers + left, passed + r * numbers + right)
        ones.append(at["passes_in_row"] + view.passes_in_row)
        if view.current_player is not None:
            ones.append(at["to_act"] + (view.current_player - me) % n)
        ones += (at["leader"] + (view.leader - me) % n, at["seat"] + me)
        if view.team is not None:
            ones.append(at["team"] + view.team)
        if view.hands is not None:
            for seat, h in enumerate(view.hands):
                base = at["all_hands"] + ((seat - me) % n) * num_tiles
                ones += [base + t for t in iter_bits(h)]
        target = cfg.target_score or cfg.tiles.total_pips
        index = ones + [at["hand_sizes"] + r for r in range(n)] + [at["draws"] + r for r in range(n)]
        index += [at["scores"] + r for r in range(n)] + [at["stock"], at["stock"] + 1, at["stock"] + 2]
        order = [(me + r) % n for r in range(n)]  # the seat at each relative position
        values = [1.0] * len(ones) + [view.hand_sizes[s] / num_tiles for s in order]
        values += [min(d / num_tiles, 1.0) for d in draws]
        values += [min(view.scores[s] / target, 1.0) for s in order]
        values += (view.drawable / num_tiles, view.stock_size / num_tiles, view.out_of_play / num_tiles)
        out = np.zeros(self._size, dtype=np.float32)
        out[index] = values  # one numpy call: per-entry assignment dominates the cost otherwise
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
        ("stock", 3, "drawable stock / T, whole stock (with the reserve) / T, tiles out of play / T"),
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


# The registry imports this module for game "line"; importing the other line encoders registers them.
from domino_env.encoders import line_compact, line_history  # noqa: E402, F401
