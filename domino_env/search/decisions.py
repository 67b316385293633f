"""A search's decision in progress, and the ``act`` / ``act_batch`` every search bot shares.

The line, Fives and Mexican Train searches all answer many views at once (``searched``: each view's
forced move, or its ``Decision`` with every candidate's value in every sampled world) and choose a
move from a decision by their own rule (``best``); ``domino-distill`` reads the same decisions as a
teacher's scores. ``bucket`` sizes the engines their batched rollouts run on.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from domino_env.search.line_solver import Position


@dataclasses.dataclass
class Decision:
    """One search decision in progress: the candidates' margins per sampled world (``values[w, i]``)
    where known, the endgames left to solve exactly with their cells ``(w, i)``, and each
    candidate's prior bonus per world (``SearchGuidance.ranked``)."""

    view: Any  # the seat view of any game with a search
    candidates: list[int]
    side: int
    values: np.ndarray
    prior: np.ndarray
    endgames: list[Position] = dataclasses.field(default_factory=list)
    cells: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    worlds: list[Any] | None = None  # sampled hands (Fives: deals; Mexican Train: engines), batched
    stocks: list[tuple[int, ...]] | None = None  # and their drawable tiles in order (Draw)

    def mean_scores(self) -> np.ndarray:
        """Each candidate's mean margin over the worlds plus its prior bonus."""
        return self.values.mean(axis=0) + self.prior

    def add(self, world: int, move: int, outcome: float | Position) -> None:
        """A candidate's outcome in a world: its margin, or the endgame where it stopped."""
        if isinstance(outcome, tuple):
            self.endgames.append(outcome)
            self.cells.append((world, move))
        else:
            self.values[world, move] = outcome


def bucket(rows: int) -> int:
    """The batched rollouts' engine size for ``rows`` rows: a power of two up to 256, then a multiple
    of 256, so that a few engines serve every batch (the padding is at most a quarter of the rows
    beyond 1,024)."""
    return 1 << max(rows - 1, 0).bit_length() if rows <= 256 else -(-rows // 256) * 256


class SearchAgent:
    """``act`` and ``act_batch`` from the subclass's ``searched`` (many views' decisions at once) and
    ``best`` (a decision's move: by default the candidate of the best ``scores``, the mean margin)."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        return self.act_batch([view], [rng])[0]

    def act_batch(self, views: list[Any], rngs: list[np.random.Generator]) -> list[int]:
        """``act`` for many views: each view draws its worlds from its own generator, as ``act`` does,
        and the rollouts of all of them run together."""
        return [d if isinstance(d, int) else self.best(d) for d in self.searched(views, rngs)]

    def searched(self, views: list[Any], rngs: list[np.random.Generator]) -> list[int | Decision]:
        raise NotImplementedError

    @staticmethod
    def scores(decision: Decision) -> np.ndarray:
        """Each candidate's mean margin over the worlds plus its prior bonus: what ``best`` maximizes."""
        return decision.mean_scores()

    @classmethod
    def best(cls, decision: Decision) -> int:
        """The candidate of the highest ``scores``; equal scores go to the first (the preferred move)."""
        return decision.candidates[int(np.argmax(cls.scores(decision)))]
