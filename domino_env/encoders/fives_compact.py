"""The "compact" All Fives / Fives and Threes observation: one flat float32 vector, seat-relative.

Relative seat ``j`` is the seat ``j`` places to my left (``(me + j) % n``); ``j = 0`` is me. Pips
are categories, so open ends, the spinner and voids are one-hot / bit vectors; counts are scaled by
a fixed constant of the slot. ``compact_slots`` lists every slot with its meaning (the docs table is
generated from it); ``encode_compact`` is the reference, and ``vector.fives.VectorFivesGame`` fills
the same slots for a whole batch from its arrays (the differential test holds them bit-identical).
The 0/1 slots come first and the scaled ones after them, so both the reference and the batched
engine build the first as one bit string unpacked once.

Voids: what public moves prove, and only that (RULES-new-games.md 5 allows passes and draws with
the open ends at that moment).

- A **pass** proves the seat holds no tile matching any open end: a seat passes only when it can
  neither play nor draw, and with nothing drawable its hand only shrinks for the rest of the hand.
- A **draw** under ``draw_policy="must_play"`` proves the hand before it matched no open end; every
  kept drawn tile matched none either (else the seat would have played it), and the one that fits
  is played at once, so after the turn the seat still lacks the ends of the draw. A kept tile may
  hold any *other* number, so a draw replaces the seat's voids with those ends.
- A **draw** under ``"may_draw"`` proves nothing and clears the seat's voids.
- Every void set is emptied when a hand is dealt.

A void is stated as of the end of that seat's last turn (a seat still drawing may hold a tile it
just drew), which is always the case when another seat observes: only relative seats 1..n-1 show.

Look-ahead per legal play (``look_ahead_points``): what the play scores, and the most any single
tile whose place I do not know would score laid next. A count scores on a multiple of five (or of
three): modular sums that a small network learns slowly and a club player reads off the table, so
the observation states them. Both come from the public layout and my own hand only.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import Encoder, Slot, layout, register_encoder, scaled
from domino_env.rules.fives import (
    END_STRIDE,
    MAX_COUNT,
    NUM_TILES,
    TILE_IS_DOUBLE,
    TILE_LOW,
    FivesConfig,
    FivesView,
    Layout,
    count_points,
    tile_points,
)
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits

NUMBERS = 7  # pip values 0..6 of the double-six set
NUM_ENDS = 4  # W, E, N, S (Fives and Threes uses W and E only)
# The scale of the score slot in one-hand play (no target): the preset targets, in the score unit.
_HAND_SCORE_SCALE = {("all_fives", "points"): 100, ("all_fives", "fives"): 20, ("fives_and_threes", None): 61}


def score_scale(config: FivesConfig) -> int:
    """What the score slot divides by: the target, else the game's usual target (one-hand play)."""
    return config.target_score or _HAND_SCORE_SCALE[config.variant, config.score_unit]


def compact_slots(config: FivesConfig) -> tuple[Slot, ...]:
    """The slot table of the compact observation for ``config`` (see the module docstring)."""
    n, plays = config.num_players, END_STRIDE[config.variant] * NUM_TILES
    parts = [  # the 0/1 slots first, then the scaled ones (a batched engine unpacks the first in one go)
        ("hand", NUM_TILES, "tiles in my hand"),
        ("table", NUM_TILES, "tiles on the table"),
        ("unknown", NUM_TILES, "tiles whose place I do not know (other hands, stock, out of play)"),
        ("ends", NUM_ENDS * NUMBERS, "per end W, E, N, S, one-hot open value; zero while not open"),
        ("end_doubles", NUM_ENDS, "per end, its outer tile is a double (not the spinner): counts twice"),
        ("arms", NUM_ENDS, "per arm W, E, N, S, a tile lies on it beyond the centre tile"),
        ("spinner", NUMBERS, "one-hot value of the spinner; zero while there is none"),
        ("voids", (n - 1) * NUMBERS, "per relative seat 1..n-1, numbers it is known to lack"),
        ("pass_streak", n, "one-hot passes since the last tile played"),
        ("leader", n, "one-hot relative seat that led this hand"),
    ]
    if config.open_hands:
        parts.append(("open_hands", (n - 1) * NUM_TILES, "hands of relative seats 1..n-1 (open_hands)"))
    parts += [
        ("count", 1, "the count of the layout / the game's largest count"),
        ("unseen", NUMBERS, "per number, unknown tiles holding it / 7"),
        ("hand_sizes", n, "tiles held per relative seat / 28"),
        ("stock", 1, "drawable stock / 28 (0 in Fives and Threes)"),
        ("scores", n, "per relative seat, its side's score / target (one hand: usual target), max 1"),
        ("play_points", plays, "per play action, what the count scores after it / max_play_points"),
        ("reply_points", plays, "per play action, the most one unknown tile scores next / max_play_points"),
    ]
    return layout(parts)


@cache
def slot_slices(config: FivesConfig) -> dict[str, slice]:
    """``name -> slice`` of every compact slot, for code that fills whole slots at once."""
    return {s.name: slice(s.start, s.start + s.length) for s in compact_slots(config)}


def known_voids(view: FivesView) -> list[int]:
    """Per absolute seat, a bit set over numbers it is known to lack, replayed from ``history``."""
    cfg = view.config
    draw_action = cfg.num_actions - 2
    keep_on_draw = cfg.draw_policy == "must_play"
    voids = [0] * cfg.num_players
    for seat, action, _points, ends in view.history:
        if action < draw_action:
            continue
        values = 0
        for v in ends:
            if v >= 0:
                values |= 1 << v
        if action == draw_action:
            voids[seat] = values if keep_on_draw else 0
        else:
            voids[seat] |= values
    return voids


def end_doubles(view: FivesView) -> list[bool]:
    """Per end, whether its open end's outer tile is a double that is not the spinner."""
    out = [False] * NUM_ENDS
    for e, v in enumerate(view.open_ends):
        if v < 0:
            continue
        arm = view.arms[e]
        if arm:
            out[e] = bool(TILE_IS_DOUBLE[arm[-1][0]])
        else:  # the centre is this end's tile: a lone double lead, or the spinner (never "twice")
            out[e] = view.spinner < 0 and bool(TILE_IS_DOUBLE[view.centre[0]])
    return out


def look_ahead_points(view: FivesView, unknown: int) -> tuple[dict[int, int], dict[int, int]]:
    """Per legal play action, what the count scores after it, and the most a tile of ``unknown``
    (the tiles whose place the seat does not know) would score laid next on that layout (0 when none
    fits), in the score unit. The target rules (an exact 61) are not applied: this is the count."""
    cfg = view.config
    stride, spins = END_STRIDE[cfg.variant], cfg.spinner == "first_double"
    layout_now = Layout.of(view)
    play, reply = {}, {}
    for a in iter_bits(view.legal_mask & ((1 << stride * NUM_TILES) - 1)):
        after = layout_now.place(*divmod(a, stride), spins)
        play[a] = count_points(cfg, after.count(cfg.double_count))
        best = tile_points(after, cfg)
        reply[a] = max([0, *(best[u] for u in iter_bits(unknown))])
    return play, reply


class _Plan:
    """Bit offsets and tables of the float32 quotients ``scaled`` gives for one config, so an
    encode only shifts, ors and looks up (its values are those of ``scaled``, bit for bit)."""

    def __init__(self, cfg: FivesConfig):
        slots = compact_slots(cfg)
        self.at = {s.name: s.start for s in slots}
        self.size = slots[-1].start + slots[-1].length
        self.flags = self.at["count"]  # the 0/1 slots end here; the scaled ones follow in one run
        self.number = (*(1 << v for v in range(NUMBERS)), 0)  # index -1: a closed end
        self.scale = score_scale(cfg)
        self.per_count, self.per_number, self.per_tile, self.per_score, self.per_play = (
            scaled(np.arange(top + 1), scale).tolist()
            for top, scale in ((4 * 12, MAX_COUNT[cfg.variant]), (NUMBERS, NUMBERS), (NUM_TILES, NUM_TILES),
                               (self.scale, self.scale), (cfg.max_play_points, cfg.max_play_points))
        )


@cache
def _plan(config: FivesConfig) -> _Plan:
    return _Plan(config)


def encode_compact(view: FivesView) -> np.ndarray:
    """The compact observation of ``view.seat`` (the reference the batched engine must equal).

    The 0/1 slots (they come first) are one Python ``int`` unpacked once by numpy; the scaled slots
    after them are one list of table values."""
    cfg = view.config
    plan = _plan(cfg)
    at, n, me = plan.at, cfg.num_players, view.seat
    table = 0
    if view.centre is not None:
        table = 1 << view.centre[0]
        for arm in view.arms:
            for record in arm:
                table |= 1 << record[0]
    seen = view.hand | table
    others = [(me + r) % n for r in range(1, n)]
    if view.hands is not None:
        for seat in others:
            seen |= view.hands[seat]
    unknown = DOUBLE_SIX.full_mask & ~seen
    number = plan.number
    bits = view.hand << at["hand"] | table << at["table"] | unknown << at["unknown"]
    for e, (v, double) in enumerate(zip(view.open_ends, end_doubles(view), strict=True)):
        bits |= number[v] << (at["ends"] + NUMBERS * e) | double << (at["end_doubles"] + e)
        bits |= bool(view.arms[e]) << (at["arms"] + e)
    if view.spinner >= 0:
        bits |= 1 << (at["spinner"] + int(TILE_LOW[view.spinner]))
    voids = known_voids(view)
    for r, seat in enumerate(others):
        bits |= voids[seat] << (at["voids"] + NUMBERS * r)
        if view.hands is not None:
            bits |= view.hands[seat] << (at["open_hands"] + NUM_TILES * r)
    bits |= 1 << (at["pass_streak"] + view.passes_in_row) | 1 << (at["leader"] + (view.leader - me) % n)
    flags = plan.flags
    out = np.zeros(plan.size, np.float32)
    raw = np.frombuffer(bits.to_bytes((flags + 7) // 8, "little"), np.uint8)
    out[:flags] = np.unpackbits(raw, count=flags, bitorder="little")
    sizes, scores = view.hand_sizes[me:] + view.hand_sizes[:me], view.scores[me:] + view.scores[:me]
    out[flags : at["play_points"]] = [
        plan.per_count[view.count],
        *(plan.per_number[(unknown & m).bit_count()] for m in DOUBLE_SIX.suit_mask),
        *(plan.per_tile[k] for k in sizes),
        plan.per_tile[view.drawable],
        *(plan.per_score[min(x, plan.scale)] for x in scores),
    ]
    play, reply = look_ahead_points(view, unknown)
    for name, points in (("play_points", play), ("reply_points", reply)):
        for a, x in points.items():
            out[at[name] + a] = plan.per_play[x]
    return out


@register_encoder
class FivesCompactEncoder(Encoder):
    """``observation_encoder="compact"`` for All Fives and Fives and Threes: ``encode_compact``."""

    name = "compact"
    game = "fives"

    def slots(self, config: FivesConfig) -> tuple[Slot, ...]:
        return compact_slots(config)

    def encode(self, view: FivesView) -> np.ndarray:
        return encode_compact(view)
