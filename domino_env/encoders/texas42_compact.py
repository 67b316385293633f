"""The "compact" Texas 42 observation: one flat float32 vector, relative to the observing seat.

Relative seat ``r`` is seat ``(me + r) % n``: ``r = 0`` is me, (four players) ``r = 2`` my partner,
so one network can play every seat; teams are "mine" then "theirs" (three players: tricks and
points by side, the bidder or the two opponents; marks by player). Sizes and scales follow the
config (``compact_slots``): 27 tile slots with three players, 56 in Texas 88. Tiles, seats, bids
and contracts are categories (bit vectors and one-hots); counts are scaled by a fixed constant of
their slot, so every entry lies in ``[0, 1]``. All 0/1 slots come first, then the scaled ones.

Belief features (what the public record proves, never a guess):

- ``voids``: for each other seat, the suits it failed to follow this hand (0-6, trump, doubles under
  the contract in force). Sevens forces tiles by pips, so a Sevens play proves no void.
- ``unknown``: the tiles whose place I do not know: not in my hand and not played (the Nello
  partner's face-down hand included; in Texas 88 the kitty and another seat's discards, while the
  bid winner knows its own); nothing with ``open_hands`` (except those 88 tiles).
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
    auction_slots,
    bid_categories,
    discards_slot,
    mark_sides,
    open_hands_slot,
    score_slots,
    trick_slots,
)
from domino_env.rules.texas42 import (
    DONE,
    NUM_SUITS,
    PLAY_PHASE,
    Texas42Config,
    Texas42View,
    Variant,
    declared_scheme,
)

SEAT_SLOTS = ("shaker", "bidder", "declarer", "sitting_out", "to_act", "trick_leader")  # one-hot seats


@cache
def compact_slots(config: Texas42Config) -> tuple[Slot, ...]:
    """The slot table of the compact observation for ``config`` (see the module docstring)."""
    v, n = config.variant, config.num_players
    t = v.num_tiles
    hidden = "Nello partner's included" if n == 4 else "kitty and discards included" if v.kitty_size else ""
    parts = [("hand", t, "tiles in my hand")]
    if v.kitty_size:
        parts.append(discards_slot(config))
    parts += [
        ("unknown", t, f"tiles whose place I do not know (other hands{', ' + hidden if hidden else ''})"),
        ("played", t, "tiles played this hand (finished tricks and the trick in progress)"),
        *trick_slots(config),
        (
            "voids",
            (n - 1) * NUM_SUITS,
            f"per relative seat 1..{n - 1}, suits it failed to follow (0-6, trump, doubles)",
        ),
        *auction_slots(config),
    ]
    if config.open_hands:
        parts.append(open_hands_slot(config))
    mine = "my side, the other side" if v.lone_bidder else "my team, their team"
    parts += [
        ("unseen", NUM_SUITS,
         f"per suit (0-6, trump, doubles), unknown tiles of that suit / {_suit_scale(v)}"),
        ("hand_sizes", n, f"tiles held per relative seat / {_hand_scale(v)}"),
        ("tricks", 2, f"tricks taken this hand by {mine} / {v.num_tricks}"),
        *score_slots(config),
    ]
    return layout(parts)


def _suit_scale(v: Variant) -> int:
    """Most tiles of one suit: 7 a set (14 in 88)."""
    return 7 * (2 if v.texas88 else 1)


def _hand_scale(v: Variant) -> int:
    """Most tiles in a hand: the deal's, or the 88 bid winner's with the kitty."""
    return v.hand_size + v.kitty_size


@cache
def slot_slices(config: Texas42Config) -> dict[str, slice]:
    """``name -> slice`` of every compact slot, for code that fills whole slots at once."""
    return {s.name: slice(s.start, s.start + s.length) for s in compact_slots(config)}


def suits_in_force(declaration: int, config: Texas42Config) -> tuple[int, ...]:
    """Per suit (0-6, trump, doubles), the tiles following it under ``declaration`` (-1: none yet)."""
    v = config.variant
    if declaration < 0 or declaration == v.sevens:
        return (*v.suit_mask, 0, 0)  # before a declaration: the numbers, no trump or doubles
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
        v, n, t = config.variant, config.num_players, config.variant.num_tiles
        categories = bid_categories(config)
        self.num_bits = at["unseen"]  # every slot before "unseen" is 0/1
        self.size = slots[-1].start + slots[-1].length
        self.full_mask = v.full_mask
        self.hand_at, self.unknown_at, self.played_at = at["hand"], at["unknown"], at["played"]
        self.discards_at = at.get("discards", -1)
        # phase_bit[phase id]: its one-hot bit (the discard phase, id 4, is the fourth entry).
        self.phase_bit = tuple(1 << (at["phase"] + min(p, 3)) for p in range(5))
        self.declaration_at = at["declaration"] - v.trump  # the variant's ids: 3 players and 88 bid 14 ways
        relative = [[(seat - me) % n for seat in range(n)] for me in range(n)]
        # trick_at[me][seat], bids_at[me][seat]: that seat's block; +1: bid -1 (not yet) is category 0.
        self.trick_at = tuple(tuple(at["trick"] + r * t for r in rel) for rel in relative)
        self.bids_at = tuple(tuple(at["bids"] + r * categories + 1 for r in rel) for rel in relative)
        # others[me]: (seat, voids offset, open_hands offset) of relative seats 1..n-1.
        open_at = at.get("open_hands", 0)
        self.others = tuple(
            tuple(
                ((me + r) % n, at["voids"] + (r - 1) * NUM_SUITS, open_at + (r - 1) * t) for r in range(1, n)
            )
            for me in range(n)
        )
        # one_hot[me]: per seat slot (in SEAT_SLOTS order), the bit marking each seat; a last entry 0
        # makes seat -1 (none yet) mark nothing.
        self.one_hot = tuple(
            tuple(tuple(1 << (at[name] + r) for r in rel) + (0,) for name in SEAT_SLOTS) for rel in relative
        )
        # suits[declaration]: the suits ``unseen`` counts under it (-1: before the declaration).
        self.suits = {d: suits_in_force(d, config) for d in (-1, *range(v.trump, v.play))}
        self.lone_bidder = v.lone_bidder
        self.mates = tuple(tuple(s for s in range(n) if s % 2 == me % 2) for me in range(n))  # teams
        self.mark_sides = mark_sides(config)
        self.target = config.target_marks
        # Lookup tables of the float32 quotients k / scale for every reachable count k.
        self.per_suit, self.per_hand_size, self.per_trick, self.per_points, self.per_target = (
            (np.arange(top + 1, dtype=np.float32) / np.float32(scale)).tolist()
            for top, scale in (
                (t, _suit_scale(v)),
                (_hand_scale(v), _hand_scale(v)),
                (v.num_tricks, v.num_tricks),
                (v.points_per_hand, v.points_per_hand),
                (self.target, self.target),
            )
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
    (_, me, phase, current, hand, sizes, shaker, bids, bidder, _, declarer, declaration, sitting_out,
     trick, _, winners, played_by, voids, points, marks, _, hands, discards) = view
    num_bits, size = plan.num_bits, plan.size
    played = sum(played_by)  # disjoint bit sets: the sum is their union
    known = hand | played
    bits = hand << plan.hand_at | played << plan.played_at
    if discards and discards[0] >= 0:  # Texas 88: the bid winner's own discards
        for tile in discards:
            known |= 1 << tile
            bits |= 1 << (plan.discards_at + tile)
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
    if phase != DONE:
        bits |= plan.phase_bit[phase] | to_act_bit[current]
        if phase == PLAY_PHASE:
            bits |= trick_leader_bit[trick[0][0] if trick else current]
    if declaration >= 0:
        bits |= 1 << (plan.declaration_at + declaration)
    if hands is not None:
        for seat, _, open_at in plan.others[me]:
            bits |= hands[seat] << open_at
            known |= hands[seat]
    unknown = plan.full_mask & ~known
    bits |= unknown << plan.unknown_at | mask << size  # the scaled slots' bits stay 0, then the mask
    raw = np.frombuffer(bits.to_bytes((size + num_actions + 7) // 8, "little"), np.uint8)
    unpacked = BYTE_FLOATS.take(raw, axis=0).reshape(-1)  # float32 0/1 in one table lookup
    out = unpacked[:size]

    if plan.lone_bidder:  # my side: the bidder alone, or the two opponents
        mine = int(me != bidder)
        bidder_tricks = winners.count(bidder)
        my_tricks = len(winners) - bidder_tricks if mine else bidder_tricks
    else:
        mine = me % 2
        my_tricks = sum(map(winners.count, plan.mates[me]))  # C counts, not a Python loop
    per_suit, per_hand_size, per_trick = plan.per_suit, plan.per_hand_size, plan.per_trick
    per_points, per_target, target = plan.per_points, plan.per_target, plan.target
    scaled = [per_suit[(unknown & suit).bit_count()] for suit in plan.suits[declaration]]
    scaled += [per_hand_size[k] for k in sizes[me:] + sizes[:me]]  # rotated by slicing: seat me first
    scaled += (
        per_trick[my_tricks],
        per_trick[len(winners) - my_tricks],
        per_points[points[mine]],
        per_points[points[1 - mine]],
    )
    scaled += [per_target[min(marks[k], target)] for k in plan.mark_sides[me]]
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
