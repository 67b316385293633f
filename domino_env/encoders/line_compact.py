"""The "compact" line-game observation: one flat float32 vector, relative to the observing seat.

Relative seat ``j`` is the seat ``j`` places to my left (``(me + j) % n``); ``j = 0`` is me, so one
network can play every seat. Numbers (pips) are categories, so ends and voids are one-hot / bit
vectors; counts are scaled by a fixed constant of the slot so values stay near ``[0, 1]``.

The slots (hand, line, unknown tiles, both open ends, unseen count per number, voids of every
other seat, hand sizes, drawable stock, pass streak, leader, scores, and with ``open_hands`` the
other hands) are listed with their meaning by ``compact_slots``, which the docs table is generated
from. ``encode_compact`` is the reference; ``vector.line.VectorLineGame`` fills the same slots for a
whole batch and the differential tests hold the two bit-identical.

Voids: what public actions prove, and only that (so the slot is sound, never a guess).

- A **pass** with open ends ``a, b`` proves the seat holds neither ``a`` nor ``b``.  In Block hands
  only shrink, so the void lasts the whole round; in Draw a pass also means the drawable stock is
  empty (a player passes only when unable to draw), so no later draw can undo it.
- A **draw** under ``draw_policy="when_stuck"`` (boardpan: draw only while unable to play) proves the
  hand before it lacked ``a`` and ``b``; each kept drawn tile lacked them too (else the seat would
  have stopped drawing), and the one that fits is played at once, so after the seat's turn it still
  lacks ``a`` and ``b``.  But a kept tile may hold any *other* number, so a draw replaces the seat's
  voids with ``{a, b}`` instead of adding to them.
- A **draw** under ``draw_policy="any"`` (pagat: draw whenever stock remains) proves nothing; the tile
  drawn may hold anything: it clears the seat's voids.
- Every void set is emptied at the start of a round.

A void is stated as of the end of that seat's last turn, which is always the case when another
seat observes.  Numbers that are void for everyone because I have seen all their tiles are left to
``unseen`` (a count of zero), not repeated here.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from domino_env.encoders.base import PlannedEncoder, Slot, layout, register_encoder, scaled
from domino_env.rules.line import LineConfig, LineView


def compact_slots(config: LineConfig) -> tuple[Slot, ...]:
    """The slot table of the compact observation for ``config`` (see the module docstring)."""
    n, n_tiles, numbers = config.num_players, config.tiles.num_tiles, config.max_pips + 1
    parts = [
        ("hand", n_tiles, "tiles in my hand"),
        ("line", n_tiles, "tiles on the line"),
        ("unknown", n_tiles, "tiles whose place I do not know (other hands, stock, out of play)"),
        ("left_end", numbers, "one-hot left open end; zero while the line is empty"),
        ("right_end", numbers, "one-hot right open end; zero while the line is empty"),
        ("unseen", numbers, "per number, unknown tiles holding it / (max_pips + 1)"),
        ("voids", (n - 1) * numbers, "per relative seat 1..n-1, numbers it is known to lack"),
        ("hand_sizes", n, "tiles held per relative seat / tiles in the set"),
        ("stock", 1, "drawable stock / tiles in the set"),
        ("pass_streak", n, "one-hot passes since the last tile played; zero once blocked"),
        ("leader", n, "one-hot relative seat that led this round"),
        ("scores", n, "per relative seat, its side's score / target, capped at 1; 0 in one-round play"),
    ]
    if config.open_hands:
        parts.append(("open_hands", (n - 1) * n_tiles, "hands of relative seats 1..n-1 (open_hands)"))
    return layout(parts)


@cache
def slot_slices(config: LineConfig) -> dict[str, slice]:
    """``name -> slice`` of every compact slot, for code that fills whole slots at once."""
    return {s.name: slice(s.start, s.start + s.length) for s in compact_slots(config)}


def known_voids(view: LineView) -> list[int]:
    """Per absolute seat, a bit set over numbers it is known to lack (rules in the module docstring).

    This replays ``history``, the rules as stated; the encoder reads the same sets off the per-seat
    summaries as ``passed_on | drawn_on`` (``drawn_on`` only under ``"when_stuck"``), because a seat
    passes only once nothing is drawable, so all its passes follow all its draws in a round.
    """
    cfg = view.config
    draw_action = 2 * cfg.tiles.num_tiles
    voids = [0] * cfg.num_players
    for seat, action, left, right in view.history:
        ends = 0 if left < 0 else (1 << left) | (1 << right)
        if action == draw_action + 1:
            voids[seat] |= ends
        elif action == draw_action:
            voids[seat] = ends if cfg.draw_policy == "when_stuck" else 0
    return voids


def encode_compact(view: LineView) -> np.ndarray:
    """The compact observation of ``view.seat`` (the reference the batched engine must equal)."""
    return _observation(view, _plan(view.config), 0, 0)[0]


class _Plan:
    """Bit offsets and scaled-value tables for one config, so an encode only shifts, ors and looks up.

    Every 0/1 slot is one bit of a Python ``int`` unpacked once by numpy (a numpy assignment per slot
    cost more than a game step); the scaled slots (``unseen``, ``hand_sizes`` + ``stock``, ``scores``)
    are written after from tables of the float32 quotients ``scaled`` gives, so values are identical.
    """

    def __init__(self, cfg: LineConfig):
        slots = compact_slots(cfg)
        at = {s.name: s.start for s in slots}
        n, num_tiles, numbers = cfg.num_players, cfg.tiles.num_tiles, cfg.max_pips + 1
        self.size = slots[-1].start + slots[-1].length
        self.full_mask, self.suit_mask = cfg.tiles.full_mask, cfg.tiles.suit_mask
        self.hand_at, self.line_at, self.unknown_at = at["hand"], at["line"], at["unknown"]
        self.left_at, self.right_at = at["left_end"], at["right_end"]
        # Voids are passed_on | drawn_on (see known_voids): keep drawn_on only under "when_stuck".
        self.drawn_kept = -1 if cfg.draw_policy == "when_stuck" else 0
        # others[me]: (seat, voids offset, open_hands offset) of relative seats 1..n-1.
        open_at = at.get("open_hands", 0)
        self.others = tuple(
            tuple(
                ((me + r) % n, at["voids"] + (r - 1) * numbers, open_at + (r - 1) * num_tiles)
                for r in range(1, n)
            )
            for me in range(n)
        )
        # leader[me][seat]: the leader bit of ``seat``; streak[k]: the pass-streak bit (none once blocked).
        self.leader = tuple(tuple(1 << (at["leader"] + (s - me) % n) for s in range(n)) for me in range(n))
        self.streak = tuple(1 << (at["pass_streak"] + k) for k in range(n)) + (0,)
        self.unseen = slice(at["unseen"], at["unseen"] + numbers)
        # _slots lays out hand_sizes then stock back to back: one slice assignment fills both.
        self.counts = slice(at["hand_sizes"], at["stock"] + 1)
        self.scores = slice(at["scores"], at["scores"] + n)
        self.target = cfg.target_score or 1
        # Lookup tables of the exact float32 values ``scaled(k, scale)`` for every reachable k.
        self.per_number, self.per_tile, self.per_target = (
            tuple(scaled(np.arange(scale + 1), scale).tolist()) for scale in (numbers, num_tiles, self.target)
        )


@cache
def _plan(config: LineConfig) -> _Plan:
    return _Plan(config)


def _observation(view: LineView, plan: _Plan, mask: int, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """The observation of ``view`` and the int8 array of ``mask`` (``num_actions`` long), which rides
    in the same ``int`` after the observation's bits so one unpack makes both."""
    me, size = view.seat, plan.size
    played = 0
    for tiles in view.played_by:  # every tile on the line was played by someone this round
        played |= tiles
    seen = view.hand | played
    bits = view.hand << plan.hand_at | played << plan.line_at
    bits |= plan.leader[me][view.leader] | plan.streak[view.passes_in_row]
    if view.left_end >= 0:
        bits |= 1 << (plan.left_at + view.left_end) | 1 << (plan.right_at + view.right_end)
    passed_on, drawn_on, drawn_kept = view.passed_on, view.drawn_on, plan.drawn_kept
    for seat, voids_at, _ in plan.others[me]:
        bits |= (passed_on[seat] | drawn_on[seat] & drawn_kept) << voids_at
    if view.hands is not None:
        for seat, _, open_at in plan.others[me]:
            bits |= view.hands[seat] << open_at
            seen |= view.hands[seat]
    unknown = plan.full_mask & ~seen
    bits |= unknown << plan.unknown_at | mask << size
    raw = np.frombuffer(bits.to_bytes((size + num_actions + 7) // 8, "little"), np.uint8)
    unpacked = np.unpackbits(raw, count=size + num_actions, bitorder="little")
    out = unpacked[:size].astype(np.float32)
    per_number, per_tile = plan.per_number, plan.per_tile
    out[plan.unseen] = [per_number[(unknown & suit).bit_count()] for suit in plan.suit_mask]
    sizes = view.hand_sizes
    out[plan.counts] = [per_tile[k] for k in sizes[me:] + sizes[:me] + (view.drawable,)]
    if any(view.scores):  # the unpacked bits already left the score slots at 0
        per_target, target, scores = plan.per_target, plan.target, view.scores[me:] + view.scores[:me]
        out[plan.scores] = [per_target[min(x, target)] for x in scores]
    return out, unpacked[size:].view(np.int8)


@register_encoder
class LineCompactEncoder(PlannedEncoder):
    """``observation_encoder="compact"`` for the line games: ``encode_compact`` behind the interface."""

    name = "compact"
    game = "dominoes"

    def slots(self, config: LineConfig) -> tuple[Slot, ...]:
        return compact_slots(config)

    def encode(self, view: LineView) -> np.ndarray:
        return _observation(view, self._plan_for(view.config), 0, 0)[0]

    def _encode_with_mask_fused(
        self, view: LineView, plan: _Plan, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        return _observation(view, plan, view.legal_mask, num_actions)

    def _make_plan(self, config: LineConfig) -> _Plan:
        return _plan(config)
