"""The "compact" Texas 42 observation: one flat float32 vector, relative to the observing seat.

Relative seat ``r`` is seat ``(me + r) % 4``: ``r = 0`` is me, ``r = 2`` my partner, so one network
can play every seat; teams are "mine" then "theirs". Tiles, seats, bids and contracts are categories
(bit vectors and one-hots); counts are scaled by a fixed constant of their slot, so every entry lies
in ``[0, 1]``. All 0/1 slots come first, then the scaled ones.

Belief features (what the public record proves, never a guess):

- ``voids``: for each other seat, the suits it failed to follow this hand (0-6, trump, doubles under
  the contract in force). Sevens forces tiles by pips, so a Sevens play proves no void.
- ``unknown``: the tiles whose place I do not know: not in my hand and not played (the Nello
  partner's face-down hand included); nothing with ``open_hands``.
- ``unseen``: per suit, how many unknown tiles it holds. Suits are those of the contract in force
  (``rules.texas42.declared_scheme``: with 5s trump, 5-4 counts as a trump and not a four); before
  the declaration, and under Sevens, the seven numbers (a non-double counts in both of its numbers).

``compact_slots`` is the slot table (the docs are generated from it); ``encode_compact`` is the
reference that ``vector.texas42.VectorTexas42Game`` must equal bit for bit.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import BYTE_FLOATS, PlannedEncoder, Slot, layout, register_encoder
from domino_env.encoders.texas42 import (
    AUCTION_SLOTS,
    BID_CATEGORIES,
    OPEN_HANDS_SLOT,
    SCORE_SLOTS,
    SEATS,
    TRICK_SLOTS,
)
from domino_env.rules.texas42 import (
    HAND_SIZE,
    NUM_SUITS,
    NUM_TILES,
    PLAY,
    PLAY_PHASE,
    POINTS_PER_HAND,
    SEVENS,
    TILES,
    TRUMP,
    Texas42Config,
    Texas42View,
    declared_scheme,
)

NUMBER_SUITS = (*TILES.suit_mask, 0, 0)  # suits before a declaration: the numbers, no trump or doubles
SEAT_SLOTS = ("shaker", "bidder", "declarer", "sitting_out", "to_act", "trick_leader")  # one-hot seats


@cache
def compact_slots(config: Texas42Config) -> tuple[Slot, ...]:
    """The slot table of the compact observation for ``config`` (see the module docstring)."""
    parts = [
        ("hand", NUM_TILES, "tiles in my hand"),
        ("unknown", NUM_TILES, "tiles whose place I do not know (other hands, Nello partner's included)"),
        ("played", NUM_TILES, "tiles played this hand (finished tricks and the trick in progress)"),
        *TRICK_SLOTS,
        (
            "voids",
            (SEATS - 1) * NUM_SUITS,
            "per relative seat 1..3, suits it failed to follow (0-6, trump, doubles)",
        ),
        *AUCTION_SLOTS,
    ]
    if config.open_hands:
        parts.append(OPEN_HANDS_SLOT)
    parts += [
        ("unseen", NUM_SUITS, "per suit (0-6, trump, doubles), unknown tiles of that suit / 7"),
        ("hand_sizes", SEATS, "tiles held per relative seat / 7"),
        ("tricks", 2, "tricks taken this hand by my team, their team / 7"),
        *SCORE_SLOTS,
    ]
    return layout(parts)


@cache
def slot_slices(config: Texas42Config) -> dict[str, slice]:
    """``name -> slice`` of every compact slot, for code that fills whole slots at once."""
    return {s.name: slice(s.start, s.start + s.length) for s in compact_slots(config)}


def suits_in_force(declaration: int, config: Texas42Config) -> tuple[int, ...]:
    """Per suit (0-6, trump, doubles), the tiles following it under ``declaration`` (-1: none yet)."""
    if declaration < 0 or declaration == SEVENS:
        return NUMBER_SUITS
    return declared_scheme(declaration, config).follow


class _Plan:
    """Bit offsets per observing seat and scaled-value tables for one config, computed once, so an
    encode only shifts, ors and looks up.

    Every 0/1 entry (all slots before ``unseen``) is one bit of a Python ``int`` unpacked once by
    numpy (an assignment per entry would cost more than the game step); the scaled entries come from
    tables of the float32 quotients ``count / scale``, so values are those of a float32 division.
    """

    def __init__(self, config: Texas42Config):
        slots = compact_slots(config)
        at = {s.name: s.start for s in slots}
        self.num_bits = at["unseen"]  # every slot before "unseen" is 0/1
        self.size = slots[-1].start + slots[-1].length
        self.hand_at, self.unknown_at, self.played_at = at["hand"], at["unknown"], at["played"]
        self.phase_at, self.declaration_at = at["phase"], at["declaration"] - TRUMP
        relative = [[(seat - me) % SEATS for seat in range(SEATS)] for me in range(SEATS)]
        # trick_at[me][seat], bids_at[me][seat]: that seat's block; +1: bid -1 (not yet) is category 0.
        self.trick_at = tuple(tuple(at["trick"] + r * NUM_TILES for r in rel) for rel in relative)
        self.bids_at = tuple(tuple(at["bids"] + r * BID_CATEGORIES + 1 for r in rel) for rel in relative)
        # others[me]: (seat, voids offset, open_hands offset) of relative seats 1..3.
        open_at = at.get("open_hands", 0)
        self.others = tuple(
            tuple(
                ((me + r) % SEATS, at["voids"] + (r - 1) * NUM_SUITS, open_at + (r - 1) * NUM_TILES)
                for r in range(1, SEATS)
            )
            for me in range(SEATS)
        )
        # one_hot[me]: per seat slot (in SEAT_SLOTS order), the bit marking each seat; a fifth entry 0
        # makes seat -1 (none yet) mark nothing.
        self.one_hot = tuple(
            tuple(tuple(1 << (at[name] + r) for r in rel) + (0,) for name in SEAT_SLOTS) for rel in relative
        )
        # suits[declaration]: the suits ``unseen`` counts under it (-1: before the declaration).
        self.suits = {d: suits_in_force(d, config) for d in (-1, *range(TRUMP, PLAY))}
        self.target = config.target_marks
        # Lookup tables of the float32 quotients k / scale for every reachable count k.
        self.per_seven, self.per_hand, self.per_target = (
            (np.arange(top + 1, dtype=np.float32) / np.float32(scale)).tolist()
            for top, scale in ((NUM_TILES, HAND_SIZE), (POINTS_PER_HAND, POINTS_PER_HAND), (self.target,) * 2)
        )


@cache
def _plan(config: Texas42Config) -> _Plan:
    return _Plan(config)


def encode_compact(view: Texas42View) -> np.ndarray:
    """The compact observation of ``view.seat`` (the reference the batched engine must equal)."""
    return _observation(view, _plan(view.config), 0, 0)[0]


def _observation(
    view: Texas42View, plan: _Plan, mask: int, num_actions: int
) -> tuple[np.ndarray, np.ndarray]:
    """The observation of ``view`` and every unpacked bit as float32, ``mask`` (``num_actions`` long)
    from ``plan.size`` on: it rides in the same ``int`` after the 0/1 entries so one unpack makes
    both, and only ``encode_with_mask`` pays for turning it into int8."""
    # One unpacking of the view in field order: cheaper than some twenty attribute reads.
    (_, me, phase, to_act, hand, sizes, shaker, bids, bidder, _, declarer, declaration, sitting_out,
     trick, _, winners, played_by, voids, points, marks, _, hands, _) = view
    num_bits, size = plan.num_bits, plan.size
    p0, p1, p2, p3 = played_by
    played = p0 | p1 | p2 | p3
    known = hand | played
    bits = hand << plan.hand_at | played << plan.played_at
    bids_at = plan.bids_at[me]
    bits |= 1 << (bids_at[me] + bids[me])
    for seat, voids_at, _ in plan.others[me]:  # one loop over the other seats for voids and bids
        bits |= voids[seat] << voids_at | 1 << (bids_at[seat] + bids[seat])
    trick_at = plan.trick_at[me]
    for seat, tile in trick:
        bits |= 1 << (trick_at[seat] + tile)
    shaker_bit, bidder_bit, declarer_bit, sitting_out_bit, to_act_bit, trick_leader_bit = plan.one_hot[me]
    bits |= shaker_bit[shaker] | bidder_bit[bidder]
    bits |= declarer_bit[declarer] | sitting_out_bit[sitting_out]
    if phase <= PLAY_PHASE:
        bits |= 1 << (plan.phase_at + phase) | to_act_bit[to_act]
        if phase == PLAY_PHASE:
            bits |= trick_leader_bit[trick[0][0] if trick else to_act]
    if declaration >= 0:
        bits |= 1 << (plan.declaration_at + declaration)
    if hands is not None:
        for seat, _, open_at in plan.others[me]:
            bits |= hands[seat] << open_at
            known |= hands[seat]
    unknown = TILES.full_mask & ~known
    bits |= unknown << plan.unknown_at | mask << size  # the scaled slots' bits stay 0, then the mask
    raw = np.frombuffer(bits.to_bytes((size + num_actions + 7) // 8, "little"), np.uint8)
    unpacked = BYTE_FLOATS.take(raw, axis=0).reshape(-1)  # float32 0/1 in one table lookup
    out = unpacked[:size]

    mine, theirs = me % 2, 1 - me % 2
    my_tricks = winners.count(mine) + winners.count(mine + 2)  # two C counts, not a Python loop
    per_seven, per_hand, per_target, target = plan.per_seven, plan.per_hand, plan.per_target, plan.target
    scaled = [per_seven[(unknown & suit).bit_count()] for suit in plan.suits[declaration]]
    scaled += [per_seven[k] for k in sizes[me:] + sizes[:me]]  # rotated by slicing: seat me first
    scaled += (
        per_seven[my_tricks],
        per_seven[len(winners) - my_tricks],
        per_hand[points[mine]],
        per_hand[points[theirs]],
        per_target[min(marks[mine], target)],
        per_target[min(marks[theirs], target)],
    )
    out[num_bits:] = scaled
    return out, unpacked


@register_encoder
class Texas42CompactEncoder(PlannedEncoder):
    """``observation_encoder="compact"`` for Texas 42: ``encode_compact`` behind the interface."""

    name = "compact"
    game = "texas42"

    def slots(self, config: Texas42Config) -> tuple[Slot, ...]:
        return compact_slots(config)

    def encode(self, view: Texas42View) -> np.ndarray:
        return _observation(view, self._plan_for(view.config), 0, 0)[0]

    def _encode_with_mask_fused(
        self, view: Texas42View, plan: _Plan, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        out, unpacked = _observation(view, plan, view.legal_mask, num_actions)
        return out, unpacked[plan.size : plan.size + num_actions].astype(np.int8)

    def _make_plan(self, config: Texas42Config) -> _Plan:
        return _plan(config)
