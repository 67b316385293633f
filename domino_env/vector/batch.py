"""The record every batched engine returns (docs/architecture.md, "Batched engines")."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Batch(NamedTuple):
    """One lockstep step of ``B`` games.

    ``done[b]`` means game ``b`` ended on this step and was reset: ``rewards[b]`` still belong to
    the finished game, while ``seat``/``obs``/``mask`` already describe the new one.
    """

    seat: np.ndarray  # (B,) int64, the seat to act
    obs: np.ndarray  # (B, obs_dim) float32, compact observation of that seat
    mask: np.ndarray  # (B, num_actions) bool, its legal actions
    rewards: np.ndarray  # (B, num_players) float32, every seat's reward for the step just taken
    done: np.ndarray  # (B,) bool


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``(B, A)`` bool mask (every row non-empty).

    Works on the packed mask: pick the ``r``-th set bit by halving each 64-bit word with popcounts,
    four times cheaper than a cumulative sum over the whole mask."""
    b, a = mask.shape
    packed = np.zeros((b, -(-a // 64) * 8), np.uint8)
    packed[:, : -(-a // 8)] = np.packbits(mask, axis=1, bitorder="little")
    words = packed.view(np.uint64)
    before = np.bitwise_count(words).cumsum(axis=1, dtype=np.int64)  # set bits up to each word
    r = (rng.random(b) * before[:, -1]).astype(np.int64)
    rows = np.arange(b)
    w = (r[:, None] >= before).sum(axis=1)  # the word holding the r-th set bit
    r -= np.where(w > 0, before[rows, w - 1], 0)
    word = words[rows, w]
    pos = np.zeros(b, np.uint64)
    for width in (32, 16, 8, 4, 2, 1):
        below = np.bitwise_count((word >> pos) & np.uint64((1 << width) - 1)).astype(np.int64)
        above = r >= below
        r -= above * below
        pos += above.astype(np.uint64) * np.uint64(width)
    return 64 * w + pos.astype(np.int64)
