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
from domino_env.encoders.line_compact import scaled
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


def _bits(mask: int, width: int) -> np.ndarray:
    return np.array([mask >> i & 1 for i in range(width)], dtype=np.float32)


def encode_compact(view: Texas42View) -> np.ndarray:
    """The compact observation of ``view.seat`` (the reference the batched engine must equal)."""
    cfg, me = view.config, view.seat
    lay = slot_slices(cfg)
    obs = np.zeros(max(sl.stop for sl in lay.values()), np.float32)

    def one_hot(name: str, seat: int) -> None:
        if seat >= 0:
            obs[lay[name].start + (seat - me) % SEATS] = 1

    played = 0
    for tiles in view.played_by:
        played |= tiles
    known = view.hand | played
    for hand in view.hands or ():
        known |= hand
    unknown = TILES.full_mask & ~known
    obs[lay["hand"]] = _bits(view.hand, NUM_TILES)
    obs[lay["unknown"]] = _bits(unknown, NUM_TILES)
    obs[lay["played"]] = _bits(played, NUM_TILES)
    for seat, tile in view.trick:
        obs[lay["trick"].start + (seat - me) % SEATS * NUM_TILES + tile] = 1
    if view.phase == PLAY_PHASE:
        one_hot("trick_leader", view.trick[0][0] if view.trick else view.to_act)
    for r in range(1, SEATS):
        start = lay["voids"].start + (r - 1) * NUM_SUITS
        obs[start : start + NUM_SUITS] = _bits(view.voids[(me + r) % SEATS], NUM_SUITS)
    if view.phase <= PLAY_PHASE:
        obs[lay["phase"].start + view.phase] = 1
        one_hot("to_act", view.to_act)
    one_hot("shaker", view.shaker)
    for seat, bid in enumerate(view.bids):
        obs[lay["bids"].start + (seat - me) % SEATS * BID_CATEGORIES + bid + 1] = 1
    one_hot("bidder", view.bidder)
    one_hot("declarer", view.declarer)
    if view.declaration >= 0:
        obs[lay["declaration"].start + view.declaration - TRUMP] = 1
    one_hot("sitting_out", view.sitting_out)
    if view.hands is not None:
        others = [view.hands[(me + r) % SEATS] for r in range(1, SEATS)]
        obs[lay["open_hands"]] = np.concatenate([_bits(h, NUM_TILES) for h in others])
    suits = suits_in_force(view.declaration, cfg)
    obs[lay["unseen"]] = scaled([(unknown & s).bit_count() for s in suits], HAND_SIZE)
    obs[lay["hand_sizes"]] = scaled([view.hand_sizes[(me + r) % SEATS] for r in range(SEATS)], HAND_SIZE)
    mine = me % 2
    tricks = [0, 0]
    for winner in view.trick_winners:
        tricks[winner % 2 != mine] += 1
    obs[lay["tricks"]] = scaled(tricks, HAND_SIZE)
    obs[lay["points"]] = scaled([view.points[mine], view.points[1 - mine]], POINTS_PER_HAND)
    target = cfg.target_marks
    marks = [min(view.marks[mine], target), min(view.marks[1 - mine], target)]
    obs[lay["marks"]] = scaled(marks, target)
    return obs


@register_encoder
class Texas42CompactEncoder(Encoder):
    """``observation_encoder="compact"`` for Texas 42: ``encode_compact`` behind the interface."""

    name = "compact"
    game = "texas42"

    def slots(self, config: Texas42Config) -> tuple[Slot, ...]:
        return compact_slots(config)

    def encode(self, view: Texas42View) -> np.ndarray:
        return encode_compact(view)
