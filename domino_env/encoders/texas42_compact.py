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

from domino_env.encoders.base import Encoder, Slot, layout, register_encoder
from domino_env.rules.texas42 import (
    HAND_SIZE,
    NUM_BID_ACTIONS,
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

SEATS = 4
BID_CATEGORIES = NUM_BID_ACTIONS + 1  # not bid yet, then the bid action ids 0..23
DECLARATIONS = PLAY - TRUMP  # trump 0-6, doubles, follow-me, Nello, Sevens
NUMBER_SUITS = (*TILES.suit_mask, 0, 0)  # suits before a declaration: the numbers, no trump or doubles


@cache
def compact_slots(config: Texas42Config) -> tuple[Slot, ...]:
    """The slot table of the compact observation for ``config`` (see the module docstring)."""
    parts = [
        ("hand", NUM_TILES, "tiles in my hand"),
        ("unknown", NUM_TILES, "tiles whose place I do not know (other hands, Nello partner's included)"),
        ("played", NUM_TILES, "tiles played this hand (finished tricks and the trick in progress)"),
        ("trick", SEATS * NUM_TILES, "per relative seat, its tile in the trick in progress"),
        ("trick_leader", SEATS, "one-hot relative seat leading the trick in progress (play phase)"),
        (
            "voids",
            (SEATS - 1) * NUM_SUITS,
            "per relative seat 1..3, suits it failed to follow (0-6, trump, doubles)",
        ),
        ("phase", 3, "one-hot: bid, declare, play (all zero once the episode is over)"),
        ("to_act", SEATS, "one-hot relative seat to act (all zero once the episode is over)"),
        ("shaker", SEATS, "one-hot relative seat of the shaker (dealer)"),
        (
            "bids",
            SEATS * BID_CATEGORIES,
            "per relative seat, one-hot bid: not yet, pass, 30..41, 1..7m, plunge 4..7m",
        ),
        ("bidder", SEATS, "one-hot relative seat of the highest bidder so far"),
        ("declarer", SEATS, "one-hot relative seat naming the contract (the partner after Plunge)"),
        ("declaration", DECLARATIONS, "one-hot contract: trump 0-6, doubles, follow-me, Nello, Sevens"),
        ("sitting_out", SEATS, "one-hot relative seat sitting out (Nello partner)"),
    ]
    if config.open_hands:
        parts.append(("open_hands", (SEATS - 1) * NUM_TILES, "hands of relative seats 1..3 (open_hands)"))
    parts += [
        ("unseen", NUM_SUITS, "per suit (0-6, trump, doubles), unknown tiles of that suit / 7"),
        ("hand_sizes", SEATS, "tiles held per relative seat / 7"),
        ("tricks", 2, "tricks taken this hand by my team, their team / 7"),
        ("points", 2, "points taken this hand by my team, their team / 42"),
        ("marks", 2, "marks of my team, their team / target_marks (capped at 1)"),
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
    """Slot starts for one config, and the divisors of the scaled slots, computed once."""

    def __init__(self, config: Texas42Config):
        slots = compact_slots(config)
        self.at = {s.name: s.start for s in slots}
        self.num_bits = self.at["unseen"]  # every slot before "unseen" is 0/1
        self.size = slots[-1].start + slots[-1].length
        self.target = config.target_marks
        scales = [HAND_SIZE] * (NUM_SUITS + SEATS + 2) + [POINTS_PER_HAND] * 2 + [self.target] * 2
        self.scales = np.array(scales, np.float32)


@cache
def _plan(config: Texas42Config) -> _Plan:
    return _Plan(config)


def encode_compact(view: Texas42View) -> np.ndarray:
    """The compact observation of ``view.seat`` (the reference the batched engine must equal)."""
    return _encode(view, _plan(view.config))


def _encode(view: Texas42View, plan: _Plan) -> np.ndarray:
    """Every 0/1 entry is gathered into one Python ``int`` and unpacked once (an assignment per
    entry would cost more than the game step); the scaled entries are one float32 division."""
    at, me = plan.at, view.seat

    def one_hot(name: str, seat: int) -> int:
        return 1 << (at[name] + (seat - me) % SEATS) if seat >= 0 else 0

    played = 0
    for tiles in view.played_by:
        played |= tiles
    known = view.hand | played
    for hand in view.hands or ():
        known |= hand
    unknown = TILES.full_mask & ~known
    bits = view.hand << at["hand"] | unknown << at["unknown"] | played << at["played"]
    for seat, tile in view.trick:
        bits |= 1 << (at["trick"] + (seat - me) % SEATS * NUM_TILES + tile)
    if view.phase == PLAY_PHASE:
        bits |= one_hot("trick_leader", view.trick[0][0] if view.trick else view.to_act)
    for r in range(1, SEATS):
        bits |= view.voids[(me + r) % SEATS] << (at["voids"] + (r - 1) * NUM_SUITS)
    if view.phase <= PLAY_PHASE:
        bits |= 1 << (at["phase"] + view.phase) | one_hot("to_act", view.to_act)
    for seat, bid in enumerate(view.bids):
        bits |= 1 << (at["bids"] + (seat - me) % SEATS * BID_CATEGORIES + bid + 1)
    bits |= one_hot("shaker", view.shaker) | one_hot("bidder", view.bidder)
    bits |= one_hot("declarer", view.declarer) | one_hot("sitting_out", view.sitting_out)
    if view.declaration >= 0:
        bits |= 1 << (at["declaration"] + view.declaration - TRUMP)
    if view.hands is not None:
        for r in range(1, SEATS):
            bits |= view.hands[(me + r) % SEATS] << (at["open_hands"] + (r - 1) * NUM_TILES)
    num_bits = plan.num_bits
    out = np.empty(plan.size, np.float32)
    raw = np.frombuffer(bits.to_bytes((num_bits + 7) // 8, "little"), np.uint8)
    out[:num_bits] = np.unpackbits(raw, count=num_bits, bitorder="little")

    mine = me % 2
    tricks = [0, 0]
    for winner in view.trick_winners:
        tricks[winner % 2 != mine] += 1
    counts = [(unknown & suit).bit_count() for suit in suits_in_force(view.declaration, view.config)]
    counts += [view.hand_sizes[(me + r) % SEATS] for r in range(SEATS)]
    counts += tricks
    counts += (view.points[mine], view.points[1 - mine])
    counts += (min(view.marks[mine], plan.target), min(view.marks[1 - mine], plan.target))
    out[num_bits:] = np.array(counts, np.float32) / plan.scales  # the float32 division of ``scaled``
    return out


@register_encoder
class Texas42CompactEncoder(Encoder):
    """``observation_encoder="compact"`` for Texas 42: ``encode_compact`` behind the interface."""

    name = "compact"
    game = "texas42"

    def slots(self, config: Texas42Config) -> tuple[Slot, ...]:
        return compact_slots(config)

    def __init__(self) -> None:
        self._config: Texas42Config | None = None

    def encode(self, view: Texas42View) -> np.ndarray:
        if view.config is not self._config:  # identity, not equality: hashing a config is slow
            self._config, self._plan = view.config, _plan(view.config)
        return _encode(view, self._plan)
