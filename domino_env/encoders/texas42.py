"""Observation encoders for Texas 42; ``"default"`` is the one ``texas42_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % 4``, so
``r = 0`` is me and ``r = 2`` my partner; teams are "mine" then "theirs". Tiles, seats, bids and
contracts are categories (one-hot or bit vectors over the canonical tile index); only points and
marks are scaled numbers, so every entry lies in ``[0, 1]``. The slot table is
``DefaultTexas42Encoder().slots(config)``; ``slot_table_markdown(config)`` prints it for the docs.

All the 0/1 entries are gathered into one Python ``int`` bit set and unpacked once, because a
numpy assignment per entry would cost more than the whole game step.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import PlannedEncoder, Slot, layout, register_encoder
from domino_env.rules.texas42 import (
    NUM_BID_ACTIONS,
    NUM_SUITS,
    NUM_TILES,
    PLAY,
    PLAY_PHASE,
    POINTS_PER_HAND,
    TRUMP,
    Texas42Config,
    Texas42View,
)

SEATS = 4
BID_CATEGORIES = NUM_BID_ACTIONS + 1  # not bid yet, then the bid action ids 0..23
DECLARATIONS = PLAY - TRUMP  # trump 0-6, doubles, follow-me, Nello, Sevens


# Slots the default and compact encoders share, in this order (one text for both slot tables).
TRICK_SLOTS = (
    ("trick", SEATS * NUM_TILES, "per relative seat, its tile in the trick in progress"),
    ("trick_leader", SEATS, "one-hot relative seat leading the trick in progress (play phase)"),
)
AUCTION_SLOTS = (
    ("phase", 3, "one-hot: bid, declare, play (all zero once the episode is over)"),
    ("to_act", SEATS, "one-hot relative seat to act (all zero once the episode is over)"),
    ("shaker", SEATS, "one-hot relative seat of the shaker (dealer)"),
    ("bids", SEATS * BID_CATEGORIES,
     "per relative seat, one-hot bid: not yet, pass, 30..41, 1..7m, plunge 4..7m"),
    ("bidder", SEATS, "one-hot relative seat of the highest bidder so far"),
    ("declarer", SEATS, "one-hot relative seat naming the contract (the partner after Plunge)"),
    ("declaration", DECLARATIONS, "one-hot contract: trump 0-6, doubles, follow-me, Nello, Sevens"),
    ("sitting_out", SEATS, "one-hot relative seat sitting out (Nello partner)"),
)
OPEN_HANDS_SLOT = ("open_hands", (SEATS - 1) * NUM_TILES, "hands of relative seats 1..3 (open_hands)")
SCORE_SLOTS = (
    ("points", 2, "points taken this hand by my team, their team / 42"),
    ("marks", 2, "marks of my team, their team / target_marks (capped at 1)"),
)


@cache
def _slots(config: Texas42Config) -> tuple[Slot, ...]:
    parts = [
        ("hand", NUM_TILES, "tiles in my hand"),
        ("played_by", SEATS * NUM_TILES, "per relative seat, the tiles it has played this hand"),
        *TRICK_SLOTS,
        ("voids", SEATS * NUM_SUITS, "per relative seat, suits it failed to follow (0-6, trump, doubles)"),
        *AUCTION_SLOTS,
    ]
    if config.open_hands:
        parts.append(OPEN_HANDS_SLOT)
    parts += SCORE_SLOTS
    return layout(parts)


class _Plan:
    """Bit offsets for one config, per observing seat, so ``encode`` only shifts and ors."""

    def __init__(self, config: Texas42Config):
        slots = _slots(config)
        at = {s.name: s.start for s in slots}
        self.num_bits = at["points"]  # every slot before "points" is 0/1
        self.size = slots[-1].start + slots[-1].length
        self.target = config.target_marks
        # seat_bits[me][seat]: offsets of (played_by, voids, bids, trick) for that seat's slots.
        self.seat_bits = tuple(
            tuple(
                (
                    at["played_by"] + r * NUM_TILES,
                    at["voids"] + r * NUM_SUITS,
                    at["bids"] + r * BID_CATEGORIES + 1,  # +1: bid id -1 (not yet) is category 0
                    at["trick"] + r * NUM_TILES,
                )
                for r in ((seat - me) % SEATS for seat in range(SEATS))
            )
            for me in range(SEATS)
        )
        # one_hot[name][me][seat]: the single bit marking ``seat`` in a relative-seat slot.
        self.one_hot = {
            name: tuple(
                tuple(1 << (at[name] + (seat - me) % SEATS) for seat in range(SEATS)) for me in range(SEATS)
            )
            for name in ("trick_leader", "to_act", "shaker", "bidder", "declarer", "sitting_out")
        }
        self.phase_at, self.declaration_at = at["phase"], at["declaration"] - TRUMP
        self.open_at = at.get("open_hands", -1)


@register_encoder
class DefaultTexas42Encoder(PlannedEncoder):
    """Own hand, bids, contract, the trick in progress, tiles played by seat, voids, points, marks."""

    name = "default"
    game = "texas42"

    def slots(self, config: Texas42Config) -> tuple[Slot, ...]:
        return _slots(config)

    def encode(self, view: Texas42View) -> np.ndarray:
        plan = self._plan_for(view.config)
        num_bits = plan.num_bits
        raw = np.frombuffer(self._bits(view, plan).to_bytes((num_bits + 7) // 8, "little"), dtype=np.uint8)
        return self._fill(np.unpackbits(raw, count=num_bits, bitorder="little"), view, plan)

    def _encode_with_mask_fused(
        self, view: Texas42View, plan: _Plan, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        num_bits = plan.num_bits
        # The mask rides in the same int, right after the 0/1 entries: one unpack for both.
        bits = self._bits(view, plan) | view.legal_mask << num_bits
        raw = np.frombuffer(bits.to_bytes((num_bits + num_actions + 7) // 8, "little"), dtype=np.uint8)
        unpacked = np.unpackbits(raw, count=num_bits + num_actions, bitorder="little")
        return self._fill(unpacked[:num_bits], view, plan), unpacked[num_bits:].view(np.int8)

    def _make_plan(self, config: Texas42Config) -> _Plan:
        return _Plan(config)

    @staticmethod
    def _bits(view: Texas42View, plan: _Plan) -> int:
        """Every 0/1 entry of the observation (all slots before ``points``) as one bit set."""
        me = view.seat
        bits = view.hand
        seat_bits = plan.seat_bits[me]
        for (played_at, voids_at, bids_at, _), played, voids, bid in zip(
            seat_bits, view.played_by, view.voids, view.bids, strict=True
        ):
            bits |= played << played_at | voids << voids_at | 1 << (bids_at + bid)
        for seat, tile in view.trick:
            bits |= 1 << (seat_bits[seat][3] + tile)
        one_hot = plan.one_hot
        bits |= one_hot["shaker"][me][view.shaker]
        if view.phase <= PLAY_PHASE:
            bits |= 1 << (plan.phase_at + view.phase) | one_hot["to_act"][me][view.to_act]
            if view.phase == PLAY_PHASE:
                leader = view.trick[0][0] if view.trick else view.to_act
                bits |= one_hot["trick_leader"][me][leader]
        for name, seat in (
            ("bidder", view.bidder),
            ("declarer", view.declarer),
            ("sitting_out", view.sitting_out),
        ):
            if seat >= 0:
                bits |= one_hot[name][me][seat]
        if view.declaration >= 0:
            bits |= 1 << (plan.declaration_at + view.declaration)
        if view.hands is not None:
            for r in range(1, SEATS):
                bits |= view.hands[(me + r) % SEATS] << (plan.open_at + (r - 1) * NUM_TILES)
        return bits

    @staticmethod
    def _fill(unpacked: np.ndarray, view: Texas42View, plan: _Plan) -> np.ndarray:
        """The observation: the unpacked 0/1 entries, then points and marks."""
        num_bits = plan.num_bits
        out = np.empty(plan.size, dtype=np.float32)
        out[:num_bits] = unpacked
        mine, theirs = view.seat % 2, 1 - view.seat % 2
        target = plan.target
        out[num_bits:] = (
            view.points[mine] / POINTS_PER_HAND,
            view.points[theirs] / POINTS_PER_HAND,
            min(view.marks[mine], target) / target,
            min(view.marks[theirs], target) / target,
        )
        return out


# The registry imports this module for game "texas42"; importing the other 42 encoders registers them.
from domino_env.encoders import texas42_compact, texas42_history  # noqa: E402, F401
