"""Greedy rollouts of a line-game search as one batched program: every (world, candidate) pair a row
of ``vector.line.VectorLineGame``, every seat played by ``bots.batched.BatchedLineGreedy``.

``LineSearchAgent.rollouts`` plays each candidate on an engine clone of each world, one greedy move
at a time, until the round ends or its endgame can be solved exactly. Here the rows start at the
sampled worlds (``VectorLineGame.start_at``), take their candidates, and step together; a row leaves
the loop when its round ends (its margin from the round's points) or when at most ``exact_tiles``
tiles are left in hands (its position goes to the exact solver). ``BatchedLineGreedy`` plays
``greedy``'s move in Block (``tests/training/test_scripted.py``), so the margins and endgames are the
reference path's on the same worlds (``tests/search/test_line_worlds.py``). Block only: the games
here have no stock to draw from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from domino_env.rules.line import LineConfig, LineView
from domino_env.search.line_solver import Position

if TYPE_CHECKING:  # imported when first used: they bring torch, which the view bots do not need
    from domino_env.bots.batched import BatchedLineGreedy
    from domino_env.vector.line import VectorLineGame


@lru_cache(maxsize=32)
def _engine(config: LineConfig, rows: int) -> VectorLineGame:
    """An engine of ``rows`` games, kept: ``start_at`` resets all of its state."""
    from domino_env.vector.line import VectorLineGame

    return VectorLineGame(rows, reward="points", **dataclasses.asdict(config))


@lru_cache(maxsize=8)
def _greedy(config: LineConfig) -> BatchedLineGreedy:
    from domino_env.bots.batched import BatchedLineGreedy

    return BatchedLineGreedy(dataclasses.asdict(config))


@dataclasses.dataclass
class Decision:
    """One search decision in progress: the candidates' margins per sampled world (``values[w, i]``)
    where known, and the endgames left to solve exactly with their cells ``(w, i)``."""

    view: LineView
    candidates: list[int]
    side: int
    values: np.ndarray
    endgames: list[Position] = dataclasses.field(default_factory=list)
    cells: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    worlds: list[tuple[int, ...]] | None = None  # sampled hands, where rolled out in batch

    def add(self, world: int, move: int, outcome: float | Position) -> None:
        """A candidate's outcome in a world: its margin, or the endgame where it stopped."""
        if isinstance(outcome, tuple):
            self.endgames.append(outcome)
            self.cells.append((world, move))
        else:
            self.values[world, move] = outcome


def greedy_rollouts(decisions: list[Decision], exact_tiles: int) -> None:
    """Fill in ``decisions`` (of one config, each with its ``worlds``) as ``LineSearchAgent.rollouts``
    does one world at a time: every (decision, world, candidate) is a row of one batched engine."""
    cfg = dataclasses.replace(decisions[0].view.config, target_score=None)
    sizes = [len(d.worlds) * len(d.candidates) for d in decisions]
    starts = np.cumsum([0, *sizes])
    rows = int(starts[-1])
    engine, greedy = _engine(cfg, rows), _greedy(cfg)

    def per_row(value_of: Callable[[Decision], object]) -> np.ndarray:
        return np.repeat(np.array([value_of(d) for d in decisions]), sizes, axis=0)

    hands = [np.repeat(np.array(d.worlds, np.uint64), len(d.candidates), axis=0) for d in decisions]
    batch = engine.start_at(
        np.concatenate(hands),
        per_row(lambda d: sum(1 << t for t, _seat, _side in d.view.line)).astype(np.uint64),
        per_row(lambda d: (d.view.left_end, d.view.right_end)), per_row(lambda d: d.view.seat),
        per_row(lambda d: d.view.leader), per_row(lambda d: d.view.passes_in_row),
        per_row(lambda d: d.view.passed_on),
    )
    batch = engine.step(np.concatenate([np.tile(d.candidates, len(d.worlds)) for d in decisions]))
    sides = [cfg.side_of(s) for s in range(cfg.num_players)]
    seat_of_side = [sides.index(k) for k in range(cfg.num_sides)]  # a seat of each side, for its points
    side = per_row(lambda d: d.side)
    pending = np.ones(rows, bool)

    def cell(row: int) -> tuple[Decision, int, int]:
        k = int(np.searchsorted(starts, row, side="right")) - 1
        return decisions[k], *divmod(row - int(starts[k]), len(decisions[k].candidates))

    from domino_env.vector.torch_batch import one_thread

    with one_thread():
        while True:
            for row in np.flatnonzero(pending & batch.done):  # a round over: its margin, as ``margin``
                points = batch.rewards[row, seat_of_side].astype(np.float64)
                own = points[side[row]]
                decision, w, i = cell(row)
                decision.add(w, i, own - (points.sum() - own) / (cfg.num_sides - 1))
            pending &= ~batch.done
            solvable = pending & (engine.counts.sum(axis=1) <= exact_tiles)
            for row in np.flatnonzero(solvable):
                hands = tuple(int(h) for h in engine.hands[row, :, 0])
                decision, w, i = cell(row)
                decision.add(w, i, (hands, int(engine.left[row]), int(engine.right[row]),
                                    int(engine.seat[row]), int(engine.streak[row])))
            pending &= ~solvable
            if not pending.any():
                return
            batch = engine.step(greedy(batch.obs, batch.mask))
