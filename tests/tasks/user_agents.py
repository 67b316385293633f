"""User code for the ``package.module:factory`` agent specs of the tests (imported by module path)."""

from __future__ import annotations

import numpy as np


class HighestId:
    """An object agent: ``act(view, rng)``, the highest legal action id."""

    def act(self, view, rng: np.random.Generator) -> int:
        return view.legal_mask.bit_length() - 1


def make_object_agent() -> HighestId:
    return HighestId()


def make_policy(offset: int = 0):
    """A policy on the PettingZoo observation and mask: the first legal id from ``offset``."""

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        assert observation.dtype == np.float32 and mask.dtype == np.int8
        legal = np.flatnonzero(mask)
        return int(legal[offset % len(legal)])

    return policy


def make_nothing() -> int:
    return 3
