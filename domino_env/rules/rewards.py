"""Episode and reward options of the games, and the line games' zero-sum formula.

Shared by the environments (``envs.dominoes_v0``, ``envs.texas42_v0``) and the batched engines
(``vector.line``, ``vector.texas42``), so a batched engine validates the same options and pays the
same rewards without importing PettingZoo.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

EPISODES = ("round", "match")
REWARDS = ("zero_sum", "points", "win_loss")
TEXAS42_REWARDS = ("zero_sum", "marks", "win_loss")


def zero_sum(
    side_values: Sequence[float] | np.ndarray, sides: Sequence[int] | np.ndarray
) -> np.ndarray | list[float]:
    """Per-seat ``v_k - mean of the other sides' v`` for seat sides ``sides``: sums to 0.

    ``side_values`` is one value per side, ``(K,)``, or a batch of them, ``(..., K)``; the result
    has one entry per seat in ``sides`` (``(..., len(sides))``), as float64. A plain sequence (one
    hand or round in a single-game env) gets a list of floats, computed without numpy: an array
    round trip cost more than the rest of the step that ends a hand."""
    if not isinstance(side_values, np.ndarray):
        total, others = sum(side_values), len(side_values) - 1
        return [side_values[k] - (total - side_values[k]) / others for k in sides]
    values = side_values.astype(np.float64)
    mine = values[..., np.asarray(sides)]
    return mine - (values.sum(axis=-1, keepdims=True) - mine) / (values.shape[-1] - 1)
