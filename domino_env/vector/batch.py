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
