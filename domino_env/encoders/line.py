"""Observation encoders for the line games; ``"default"`` is the one ``dominoes_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % n``, so
``r = 0`` is me and, with teams, ``r = 2`` is my partner. Pips are categories (one-hot); counts are
scaled by the number of tiles in the set ``T`` so every entry lies in ``[0, 1]``. The slot table is
``DefaultLineEncoder().slots(config)``; ``slot_table_markdown(config)`` prints it for the docs.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import BYTE_FLOATS, PlannedEncoder, Slot, layout, register_encoder
from domino_env.rules.line import LineConfig, LineView


class _Plan:
    """Bit offsets for one config, per observing seat, so ``encode`` only shifts and ors.

    Every 0/1 slot is one bit of a Python ``int`` unpacked once by numpy; the few scaled counts
    (``hand_sizes``, ``stock``, ``draws`` are one contiguous run, then ``scores``) are written after.
    """

    def __init__(self, cfg: LineConfig):
        at = _starts(cfg)
        n, num_tiles, numbers = cfg.num_players, cfg.tiles.num_tiles, cfg.max_pips + 1
        self.size = _size(cfg)
        # fraction[k] = k / T for every count a round can reach (sizes, stock, draws never exceed T).
        self.fraction = tuple(k / num_tiles for k in range(num_tiles + 1))
        self.target = cfg.target_score or cfg.tiles.total_pips
        relative = [[(seat - me) % n for seat in range(n)] for me in range(n)]
        # per_seat[me][seat]: offsets of (line_by_seat, passed_on, all_hands) blocks for that seat.
        line_at, passed_at, hands_at = at["line_by_seat"], at["passed_on"], at.get("all_hands", 0)
        self.per_seat = tuple(
            tuple((line_at + r * num_tiles, passed_at + r * numbers, hands_at + r * num_tiles) for r in rel)
            for rel in relative
        )
        # to_act[me][seat], leader[me][seat]: the single bit marking ``seat`` in that relative-seat slot.
        self.to_act, self.leader = (
            tuple(tuple(1 << (at[name] + r) for r in rel) for rel in relative)
            for name in ("to_act", "leader")
        )
        # seat_bits[me]: my seat's one-hot, and my team's when there are teams (seat % 2, as LineView.team).
        self.seat_bits = tuple(
            1 << (at["seat"] + me) | (1 << (at["team"] + me % 2) if cfg.teams else 0) for me in range(n)
        )
        self.hand_at, self.passes_at = at["hand"], at["passes_in_row"]
        self.left_at, self.right_at, self.empty_bit = at["left_end"], at["right_end"], 1 << at["empty_table"]
        # _slots lays out hand_sizes, stock and draws back to back: one slice assignment fills them.
        self.counts_at, self.counts_end, self.scores_at = at["hand_sizes"], at["draws"] + n, at["scores"]
        # counts[(seat, hand_sizes, stock_size, out_of_play, draws)]: that run as float32, built once
        # (few distinct keys recur; converting a list of floats cost more than the rest of the fill).
        self.counts: dict[tuple, np.ndarray] = {}


_COUNTS_CACHE_LIMIT = 1 << 14  # a cache that fills up is emptied, so memory stays bounded


@register_encoder
class DefaultLineEncoder(PlannedEncoder):
    """Own hand, the line by who played it, open ends, sizes, passes with their ends, scores, seat."""

    name = "default"
    game = "dominoes"

    def slots(self, config: LineConfig) -> tuple[Slot, ...]:
        return _slots(config)

    def encode(self, view: LineView) -> np.ndarray:
        plan = self._plan_for(view.config)
        size = plan.size
        raw = np.frombuffer(self._bits(view, plan).to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
        out = BYTE_FLOATS.take(raw, axis=0).reshape(-1)[:size]  # float32 0/1 in one table lookup
        return self._fill_counts(out, view, plan)

    def _encode_with_mask_fused(
        self, view: LineView, plan: _Plan, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        size = plan.size
        # The mask rides in the same int, right after the observation: one unpack for both.
        bits = self._bits(view, plan) | view.legal_mask << size
        raw = np.frombuffer(bits.to_bytes((size + num_actions + 7) // 8, "little"), dtype=np.uint8)
        unpacked = BYTE_FLOATS.take(raw, axis=0).reshape(-1)  # float32 0/1 in one table lookup
        out = self._fill_counts(unpacked[:size], view, plan)
        return out, unpacked[size : size + num_actions].astype(np.int8)

    def _make_plan(self, config: LineConfig) -> _Plan:
        return _Plan(config)

    @staticmethod
    def _bits(view: LineView, plan: _Plan) -> int:
        """Every 0/1 entry of the observation as one bit set."""
        me = view.seat
        bits = view.hand << plan.hand_at | plan.seat_bits[me] | 1 << (plan.passes_at + view.passes_in_row)
        bits |= plan.leader[me][view.leader]
        for (line_at, passed_at, _), played, passed in zip(
            plan.per_seat[me], view.played_by, view.passed_on, strict=True
        ):
            bits |= played << line_at | passed << passed_at
        if view.left_end >= 0:
            bits |= 1 << (plan.left_at + view.left_end) | 1 << (plan.right_at + view.right_end)
        else:
            bits |= plan.empty_bit
        if view.current_player is not None:
            bits |= plan.to_act[me][view.current_player]
        if view.hands is not None:
            for (_, _, hands_at), hand in zip(plan.per_seat[me], view.hands, strict=True):
                bits |= hand << hands_at
        return bits

    @staticmethod
    def _fill_counts(out: np.ndarray, view: LineView, plan: _Plan) -> np.ndarray:
        """Write the scaled counts into ``out`` (whose count slots are 0) and return it."""
        me = view.seat
        key = (me, view.hand_sizes, view.stock_size, view.out_of_play, view.draws)  # drawable follows
        values = plan.counts.get(key)
        if values is None:
            # Per-seat values rotated to relative order by slicing: seat me first.
            counts = view.hand_sizes[me:] + view.hand_sizes[:me]
            counts += (view.drawable, view.stock_size, view.out_of_play) + view.draws[me:] + view.draws[:me]
            fraction = plan.fraction
            values = np.array([fraction[k] for k in counts], dtype=np.float32)
            if len(plan.counts) >= _COUNTS_CACHE_LIMIT:
                plan.counts.clear()
            plan.counts[key] = values
        out[plan.counts_at : plan.counts_end] = values
        if any(view.scores):  # the unpacked bits already left the score slots at 0
            target, scores = plan.target, view.scores[me:] + view.scores[:me]
            out[plan.scores_at : plan.scores_at + len(scores)] = [min(x / target, 1.0) for x in scores]
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
