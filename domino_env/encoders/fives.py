"""Observation encoders for All Fives and Fives and Threes; ``"default"`` is the one ``fives_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % n``, so
``r = 0`` is me and, with teams, ``r = 2`` is my partner. Tiles, pips, ends and the count are
categories (one-hot: a count of 10 scores and 11 does not, so it is no magnitude); only hand sizes,
stock counts, draws and scores are scaled numbers, every entry in ``[0, 1]``. The layout has one
block per end: four (W, E, N, S) in All Fives, two (left, right) in Fives and Threes. It reads a
``FivesView`` only (RULES-new-games.md 5), so nothing hidden can reach it. The slot table is
``DefaultFivesEncoder().slots(config)``; ``slot_table_markdown(config)`` prints it for the docs.

All the 0/1 entries are gathered into one Python ``int`` bit set and unpacked once by a table lookup
straight to float32 (with the action mask riding after them), because a numpy assignment per entry
would cost more than the game step; the few scaled numbers are written after.
"""

from __future__ import annotations

from functools import cache
from operator import itemgetter

import numpy as np

from domino_env.encoders.base import BYTE_FLOATS, PlannedEncoder, Slot, layout, register_encoder
from domino_env.rules.fives import END_STRIDE, MAX_COUNT, NUM_TILES, FivesConfig, FivesView

NUMBERS = 7  # pip values 0..6 of the double-six set
DEFAULT_TARGETS = {"all_fives": 100, "fives_and_threes": 61}
"""What scores are scaled by in one-hand play (no target): the games' usual targets"""


def end_names(config: FivesConfig) -> str:
    return "W, E, N, S" if config.is_all_fives else "left, right"


def score_scale(config: FivesConfig) -> int:
    return config.target_score or DEFAULT_TARGETS[config.variant]


@cache
def _slots(config: FivesConfig) -> tuple[Slot, ...]:
    n, t, ends = config.num_players, NUM_TILES, END_STRIDE[config.variant]
    names = end_names(config)
    parts = [
        ("hand", t, "1 if the tile (canonical index) is in my hand"),
        ("played_by", n * t, "block r, entry t: tile t is on the table, played by relative seat r"),
        ("centre", t, "one-hot centre tile: the spinner once there is one, else the lead"),
        ("arms", ends * t, f"block e ({names}), entry t: tile t lies in arm e"),
        ("open_ends", ends * NUMBERS, f"block e ({names}): one-hot value of open end e (zeros if closed)"),
        ("end_double", ends, "1 if the outermost tile of end e is a double (it counts both halves)"),
        ("spinner_sides", 3, "one-hot sides of the spinner holding a tile, 0..2 (zeros without a spinner)"),
        ("empty_table", 1, "1 before the lead of the hand"),
        ("count", MAX_COUNT[config.variant] + 1, "one-hot count of the layout (the open ends' sum)"),
        ("passed_on", n * NUMBERS, "block r, entry v: relative seat r passed this hand with v an open end"),
        ("passes_in_row", n + 1, "one-hot passes since the last tile played (0..n; n blocks the hand)"),
        ("to_act", n, "one-hot relative seat to act (zeros once the episode is over)"),
        ("leader", n, "one-hot relative seat that led this hand"),
        ("seat", n, "one-hot absolute seat of the observer"),
        ("team", 2, "one-hot team of the observer (zeros without teams)"),
    ]
    if config.open_hands:
        parts.append(("all_hands", n * t, "open_hands only: block r is relative seat r's hand"))
    parts += [
        ("hand_sizes", n, f"tiles held by relative seat r / {t}"),
        ("stock", 3, f"drawable stock / {t}, whole stock (with the reserve) / {t}, tiles out of play / {t}"),
        ("draws", n, f"tiles drawn this hand by relative seat r / {t}"),
        ("scores", n, f"score of relative seat r's side / {score_scale(config)} (the target), capped at 1"),
    ]
    return layout(parts)


class _Plan:
    """Bit offsets for one config, per observing seat, so ``encode`` only shifts and ors."""

    def __init__(self, config: FivesConfig):
        slots = _slots(config)
        at = {s.name: s.start for s in slots}
        n = config.num_players
        self.num_players = n
        self.stride = END_STRIDE[config.variant]
        self.draw_action = self.stride * NUM_TILES
        self.num_bits = at["hand_sizes"]  # every slot before it is 0/1
        self.size = slots[-1].start + slots[-1].length
        self.scale = score_scale(config)
        self.fraction = tuple(k / NUM_TILES for k in range(NUM_TILES + 1))  # sizes, stock and draws / T
        # in_order[me](per_seat): a per-seat tuple rotated to relative order (me first)
        self.in_order = tuple(itemgetter(*((me + r) % n for r in range(n))) for me in range(n))
        relative = [[(seat - me) % n for seat in range(n)] for me in range(n)]
        # played_at[me][seat]: where that seat's played_by block starts in me's observation
        played_at = tuple(tuple(at["played_by"] + r * NUM_TILES for r in rel) for rel in relative)
        self.hands_at = tuple(tuple(at.get("all_hands", 0) + r * NUM_TILES for r in rel) for rel in relative)
        self.to_act = tuple(tuple(1 << (at["to_act"] + r) for r in rel) for rel in relative)
        # seat_and_leader[me][leader]: me's seat and team bits and the leader's bit, fixed in a hand
        self.seat_and_leader = tuple(
            tuple(
                1 << (at["seat"] + me) | (1 << (at["team"] + me % 2) if config.teams else 0)
                | 1 << (at["leader"] + r)
                for r in rel
            )
            for me, rel in enumerate(relative)
        )
        # placed[me][e][seat][t]: tile t in block e (arm e, or the centre for e = stride) and in seat's
        # played_by block, so a tile on the table costs one lookup.
        blocks = [at["arms"] + e * NUM_TILES for e in range(self.stride)] + [at["centre"]]
        self.placed = tuple(
            tuple(
                tuple(
                    tuple(1 << (block + t) | 1 << (start + t) for t in range(NUM_TILES)) for start in starts
                )
                for block in blocks
            )
            for starts in played_at
        )
        # One-hot slots as bits by value: passes[k], count[c], sides[k], end_value[e][v], passed[me][seat][v]
        self.passes, self.count, self.sides = (
            tuple(1 << (at[name] + k) for k in range(length))
            for name, length in (("passes_in_row", n + 1), ("count", MAX_COUNT[config.variant] + 1),
                                 ("spinner_sides", 3))
        )
        self.end_value = tuple(
            tuple(1 << (at["open_ends"] + e * NUMBERS + v) for v in range(NUMBERS))
            for e in range(self.stride)
        )
        self.passed = tuple(
            tuple(tuple(1 << (start + v) for v in range(NUMBERS)) for start in starts)
            for starts in (tuple(at["passed_on"] + r * NUMBERS for r in rel) for rel in relative)
        )
        self.end_double_bits = tuple(1 << (at["end_double"] + e) for e in range(self.stride))
        self.hand_at = at["hand"]
        self.empty_bit = 1 << at["empty_table"]


@register_encoder
class DefaultFivesEncoder(PlannedEncoder):
    """Own hand, the layout by arm and by who played it, open ends, spinner, count, sizes, passes, scores."""

    name = "default"
    game = "fives"

    def slots(self, config: FivesConfig) -> tuple[Slot, ...]:
        return _slots(config)

    def encode(self, view: FivesView) -> np.ndarray:
        config = view.config
        return self._encode_with_mask_fused(view, self._plan_for(config), config.num_actions)[0]

    def _encode_with_mask_fused(
        self, view: FivesView, plan: _Plan, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        size = plan.size
        bits, draws = self._bits(view, plan)
        # The mask rides in the same int after the observation (whose scaled slots are 0 bits).
        bits |= view.legal_mask << size
        raw = np.frombuffer(bits.to_bytes((size + num_actions + 7) // 8, "little"), dtype=np.uint8)
        unpacked = BYTE_FLOATS.take(raw, axis=0).reshape(-1)  # float32 0/1 in one table lookup
        out = unpacked[:size]
        fraction, scale, in_order = plan.fraction, plan.scale, plan.in_order[view.seat]
        as_fraction = fraction.__getitem__
        out[plan.num_bits:] = [
            *map(as_fraction, in_order(view.hand_sizes)),
            fraction[view.drawable], fraction[view.stock_size], fraction[view.out_of_play],
            *map(as_fraction, in_order(draws)),
            *[x / scale if x < scale else 1.0 for x in in_order(view.scores)],
        ]
        return out, unpacked[size : size + num_actions].astype(np.int8)

    def _make_plan(self, config: FivesConfig) -> _Plan:
        return _Plan(config)

    @staticmethod
    def _bits(view: FivesView, plan: _Plan) -> tuple[int, list[int]]:
        """Every 0/1 entry of the observation (all slots before ``hand_sizes``) as one bit set, and
        the tiles each seat drew this hand (read in the same pass over the history)."""
        me = view.seat
        bits = view.hand << plan.hand_at | plan.seat_and_leader[me][view.leader]
        bits |= plan.passes[view.passes_in_row]
        if view.current_player is not None:
            bits |= plan.to_act[me][view.current_player]
        centre = view.centre
        if centre is None:
            bits |= plan.empty_bit
        else:
            placed_blocks = plan.placed[me]
            bits |= placed_blocks[-1][centre[1]][centre[0]] | plan.count[view.count]
            plain_centre = view.spinner < 0 and centre[3] == centre[4]  # a double lead, no spinner
            for arm, placed, end_value, double_bit, value in zip(
                view.arms, placed_blocks, plan.end_value, plan.end_double_bits, view.open_ends, strict=False
            ):
                for tile, seat, _when, _inner, _outer in arm:
                    bits |= placed[seat][tile]
                if value >= 0:
                    bits |= end_value[value]
                if (arm[-1][3] == arm[-1][4]) if arm else plain_centre:  # the outer tile is a double
                    bits |= double_bit
            if view.spinner >= 0:
                bits |= plan.sides[view.spinner_sides]
        passed, draw_action = plan.passed[me], plan.draw_action
        draws = [0] * plan.num_players
        for seat, action, _points, ends in view.history:
            if action < draw_action:
                continue
            if action == draw_action:
                draws[seat] += 1
            else:  # a pass, on the ends it faced
                passed_on = passed[seat]
                for value in ends:
                    if value >= 0:
                        bits |= passed_on[value]
        if view.hands is not None:
            for hands_at, hand in zip(plan.hands_at[me], view.hands, strict=True):
                bits |= hand << hands_at
        return bits, draws
