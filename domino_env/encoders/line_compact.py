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

from domino_env.encoders.base import Encoder, Slot, layout, register_encoder
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


def scaled(counts: np.ndarray | int, scale: int) -> np.ndarray:
    """``counts / scale`` in float32: the one rounding both the reference and the batched engine use."""
    return np.asarray(counts, dtype=np.float32) / np.float32(scale)


def _rotate(values: tuple[int, ...], seat: int) -> list[int]:
    """Per-seat values listed from ``seat`` leftwards: relative seat ``j`` is ``(seat + j) % n``."""
    n = len(values)
    return [values[(seat + j) % n] for j in range(n)]


def _bits(mask: int, width: int) -> np.ndarray:
    return np.array([mask >> i & 1 for i in range(width)], dtype=np.float32)


def known_voids(view: LineView) -> list[int]:
    """Per absolute seat, a bit set over numbers it is known to lack (rules in the module docstring)."""
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
    cfg, me = view.config, view.seat
    ts, n, numbers = cfg.tiles, cfg.num_players, cfg.max_pips + 1
    lay = slot_slices(cfg)
    line = 0
    for tile, _seat, _side in view.line:
        line |= 1 << tile
    seen = view.hand | line
    for hand in view.hands or ():
        seen |= hand
    unknown = ts.full_mask & ~seen
    obs = np.zeros(max(sl.stop for sl in lay.values()), np.float32)
    obs[lay["hand"]] = _bits(view.hand, ts.num_tiles)
    obs[lay["line"]] = _bits(line, ts.num_tiles)
    obs[lay["unknown"]] = _bits(unknown, ts.num_tiles)
    if view.left_end >= 0:
        obs[lay["left_end"].start + view.left_end] = 1
        obs[lay["right_end"].start + view.right_end] = 1
    obs[lay["unseen"]] = scaled([(unknown & m).bit_count() for m in ts.suit_mask], numbers)
    voids = _rotate(tuple(known_voids(view)), me)[1:]
    obs[lay["voids"]] = np.concatenate([_bits(v, numbers) for v in voids])
    obs[lay["hand_sizes"]] = scaled(_rotate(view.hand_sizes, me), ts.num_tiles)
    obs[lay["stock"]] = scaled(view.drawable, ts.num_tiles)
    if view.passes_in_row < n:
        obs[lay["pass_streak"].start + view.passes_in_row] = 1
    obs[lay["leader"].start + (view.leader - me) % n] = 1
    target = cfg.target_score or 1
    obs[lay["scores"]] = scaled([min(x, target) for x in _rotate(view.scores, me)], target)
    if view.hands is not None:
        others = _rotate(view.hands, me)[1:]
        obs[lay["open_hands"]] = np.concatenate([_bits(h, ts.num_tiles) for h in others])
    return obs


@register_encoder
class LineCompactEncoder(Encoder):
    """``observation_encoder="compact"`` for the line games: ``encode_compact`` behind the interface."""

    name = "compact"
    game = "line"

    def slots(self, config: LineConfig) -> tuple[Slot, ...]:
        return compact_slots(config)

    def encode(self, view: LineView) -> np.ndarray:
        return encode_compact(view)
