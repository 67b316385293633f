"""Observation encoders for Texas 42; ``"default"`` is the one ``texas42_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % n``, so
``r = 0`` is me and (four players) ``r = 2`` my partner; teams are "mine" then "theirs" (three
players: points by side, the bidder or the two opponents; marks by player). Tiles, seats, bids and
contracts are categories (one-hot or bit vectors over the variant's tile ids: 28, 27 without 0-1,
56 in Texas 88); only points and marks are scaled numbers, so every entry lies in ``[0, 1]``.
Sizes follow the config (players, tiles, point bids; 88 adds the discard phase and the bid
winner's own discards). The slot table is
``DefaultTexas42Encoder().slots(config)``; ``slot_table_markdown(config)`` prints it for the docs.

All the 0/1 entries are gathered into one Python ``int`` bit set and unpacked once, because a
numpy assignment per entry would cost more than the whole game step.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import PlannedEncoder, Slot, layout, register_encoder
from domino_env.rules.texas42 import (
    DONE,
    NUM_SUITS,
    PLAY,
    PLAY_PHASE,
    TRUMP,
    Texas42Config,
    Texas42View,
)

DECLARATIONS = PLAY - TRUMP  # trump 0-6, doubles, follow-me, Nello, Sevens (every variant)


def bid_categories(config: Texas42Config) -> int:
    """Per seat: not bid yet, then the bid action ids (pass, points, marks, Plunge)."""
    return config.variant.num_bid_actions + 1


def phase_names(config: Texas42Config) -> tuple[str, ...]:
    return ("bid", "declare", "play", "discard") if config.variant.kitty_size else ("bid", "declare", "play")


def point_bids_text(config: Texas42Config) -> str:
    bids = config.variant.point_bids
    step = "" if bids[1] - bids[0] == 1 else f" by {bids[1] - bids[0]}"
    return f"{bids[0]}..{bids[-1]}{step}"


# Slots the default and compact encoders share, in this order (one text for both slot tables).
@cache
def trick_slots(config: Texas42Config) -> tuple[tuple[str, int, str], ...]:
    n, t = config.num_players, config.variant.num_tiles
    return (
        ("trick", n * t, "per relative seat, its tile in the trick in progress"),
        ("trick_leader", n, "one-hot relative seat leading the trick in progress (play phase)"),
    )


@cache
def auction_slots(config: Texas42Config) -> tuple[tuple[str, int, str], ...]:
    n, phases = config.num_players, phase_names(config)
    declarer = "the partner after Plunge" if config.num_players == 4 else "the bidder"
    sitting_out = "Nello partner" if config.num_players == 4 else "never with this many players"
    return (
        ("phase", len(phases), f"one-hot: {', '.join(phases)} (all zero once the episode is over)"),
        ("to_act", n, "one-hot relative seat to act (all zero once the episode is over)"),
        ("shaker", n, "one-hot relative seat of the shaker (dealer)"),
        ("bids", n * bid_categories(config),
         f"per relative seat, one-hot bid: not yet, pass, {point_bids_text(config)}, 1..7m, plunge 4..7m"),
        ("bidder", n, "one-hot relative seat of the highest bidder so far"),
        ("declarer", n, f"one-hot relative seat naming the contract ({declarer})"),
        ("declaration", DECLARATIONS, "one-hot contract: trump 0-6, doubles, follow-me, Nello, Sevens"),
        ("sitting_out", n, f"one-hot relative seat sitting out ({sitting_out})"),
    )


def open_hands_slot(config: Texas42Config) -> tuple[str, int, str]:
    n = config.num_players
    text = f"hands of relative seats 1..{n - 1} (open_hands)"
    return ("open_hands", (n - 1) * config.variant.num_tiles, text)


def discards_slot(config: Texas42Config) -> tuple[str, int, str]:
    """Texas 88 only: what the bid winner put down (nobody else sees it)."""
    return ("discards", config.variant.num_tiles, "my discards (only when I won the bid and took the kitty)")


@cache
def score_slots(config: Texas42Config) -> tuple[tuple[str, int, str], ...]:
    v = config.variant
    if v.lone_bidder:
        return (
            ("points", 2, f"points taken this hand by my side, the other side (the bidder alone, "
                          f"the two opponents together) / {v.points_per_hand}"),
            ("marks", v.num_sides, "marks of relative seats 0..2 / target_marks (capped at 1)"),
        )
    return (
        ("points", 2, f"points taken this hand by my team, their team / {v.points_per_hand}"),
        ("marks", 2, "marks of my team, their team / target_marks (capped at 1)"),
    )


def mark_sides(config: Texas42Config) -> tuple[tuple[int, ...], ...]:
    """``[me]``: the mark-holding sides in slot order: mine first (my team, then theirs; with three
    players me, then the seats to my left)."""
    k = config.variant.num_sides
    return tuple(tuple((config.side_of(me) + r) % k for r in range(k)) for me in range(config.num_players))


@cache
def _slots(config: Texas42Config) -> tuple[Slot, ...]:
    n, t = config.num_players, config.variant.num_tiles
    parts = [("hand", t, "tiles in my hand")]
    if config.variant.kitty_size:
        parts.append(discards_slot(config))
    parts += [
        ("played_by", n * t, "per relative seat, the tiles it has played this hand"),
        *trick_slots(config),
        ("voids", n * NUM_SUITS, "per relative seat, suits it failed to follow (0-6, trump, doubles)"),
        *auction_slots(config),
    ]
    if config.open_hands:
        parts.append(open_hands_slot(config))
    parts += score_slots(config)
    return layout(parts)


class _Plan:
    """Bit offsets for one config, per observing seat, so ``encode`` only shifts and ors."""

    def __init__(self, config: Texas42Config):
        slots = _slots(config)
        at = {s.name: s.start for s in slots}
        n, t = config.num_players, config.variant.num_tiles
        categories = bid_categories(config)
        self.num_players = n
        self.num_bits = at["points"]  # every slot before "points" is 0/1
        self.size = slots[-1].start + slots[-1].length
        self.target = config.target_marks
        self.points_per_hand = config.variant.points_per_hand
        self.lone_bidder = config.variant.lone_bidder
        self.mark_sides = mark_sides(config)
        self.discards_at = at.get("discards", -1)
        # seat_bits[me][seat]: offsets of (played_by, voids, bids, trick) for that seat's slots.
        self.seat_bits = tuple(
            tuple(
                (
                    at["played_by"] + r * t,
                    at["voids"] + r * NUM_SUITS,
                    at["bids"] + r * categories + 1,  # +1: bid id -1 (not yet) is category 0
                    at["trick"] + r * t,
                )
                for r in ((seat - me) % n for seat in range(n))
            )
            for me in range(n)
        )
        # one_hot[name][me][seat]: the single bit marking ``seat`` in a relative-seat slot.
        self.one_hot = {
            name: tuple(tuple(1 << (at[name] + (seat - me) % n) for seat in range(n)) for me in range(n))
            for name in ("trick_leader", "to_act", "shaker", "bidder", "declarer", "sitting_out")
        }
        # phase_bit[phase id]: its one-hot bit (the discard phase, id 4, is the fourth entry).
        self.phase_bit = tuple(1 << (at["phase"] + min(p, 3)) for p in range(5))
        self.declaration_at = at["declaration"] - config.variant.trump  # the variant's ids, not 42's
        self.open_at, self.tiles = at.get("open_hands", -1), t


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
        if view.discards and view.discards[0] >= 0:  # Texas 88: the bid winner's own discards
            for tile in view.discards:
                bits |= 1 << (plan.discards_at + tile)
        seat_bits = plan.seat_bits[me]
        for (played_at, voids_at, bids_at, _), played, voids, bid in zip(
            seat_bits, view.played_by, view.voids, view.bids, strict=True
        ):
            bits |= played << played_at | voids << voids_at | 1 << (bids_at + bid)
        for seat, tile in view.trick:
            bits |= 1 << (seat_bits[seat][3] + tile)
        one_hot = plan.one_hot
        bits |= one_hot["shaker"][me][view.shaker]
        if view.phase != DONE:
            bits |= plan.phase_bit[view.phase] | one_hot["to_act"][me][view.current_player]
            if view.phase == PLAY_PHASE:
                leader = view.trick[0][0] if view.trick else view.current_player
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
            n = plan.num_players
            for r in range(1, n):
                bits |= view.hands[(me + r) % n] << (plan.open_at + (r - 1) * plan.tiles)
        return bits

    @staticmethod
    def _fill(unpacked: np.ndarray, view: Texas42View, plan: _Plan) -> np.ndarray:
        """The observation: the unpacked 0/1 entries, then points and marks."""
        num_bits = plan.num_bits
        out = np.empty(plan.size, dtype=np.float32)
        out[:num_bits] = unpacked
        me = view.seat
        target, per_hand, marks, points = plan.target, plan.points_per_hand, view.marks, view.points
        if plan.lone_bidder:  # three players: points by side (bidder / opponents), marks by player
            mine = int(me != view.bidder)
            out[num_bits:] = [points[mine] / per_hand, points[1 - mine] / per_hand,
                              *(min(marks[k], target) / target for k in plan.mark_sides[me])]
            return out
        mine, theirs = me & 1, 1 - (me & 1)  # two teams: a tuple, the cheapest fill per step
        out[num_bits:] = (
            points[mine] / per_hand,
            points[theirs] / per_hand,
            min(marks[mine], target) / target,
            min(marks[theirs], target) / target,
        )
        return out
