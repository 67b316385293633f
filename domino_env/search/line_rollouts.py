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


def greedy_rollouts(view: LineView, candidates: list[int], side: int, worlds: list[tuple[int, ...]],
                    exact_tiles: int) -> tuple[np.ndarray, list[Position], list[tuple[int, int]]]:
    """``(margins, endgames, their cells)`` as ``LineSearchAgent.rollouts`` returns them, for the
    worlds' hands (``line_worlds.sample_hands``)."""
    cfg = dataclasses.replace(view.config, target_score=None)
    num_worlds, num_moves = len(worlds), len(candidates)
    rows = num_worlds * num_moves
    engine, greedy = _engine(cfg, rows), _greedy(cfg)
    on_line = sum(1 << t for t, _seat, _side in view.line)

    def each_row(value: object) -> np.ndarray:
        return np.full(rows, value, np.int64)

    batch = engine.start_at(
        np.repeat(np.array(worlds, np.uint64), num_moves, axis=0), np.full(rows, on_line, np.uint64),
        np.tile([view.left_end, view.right_end], (rows, 1)), each_row(view.seat), each_row(view.leader),
        each_row(view.passes_in_row), np.tile(np.array(view.passed_on, np.int64), (rows, 1)),
    )
    batch = engine.step(np.tile(np.array(candidates, np.int64), num_worlds))
    sides = [cfg.side_of(s) for s in range(cfg.num_players)]
    seat_of_side = [sides.index(k) for k in range(cfg.num_sides)]  # a seat of each side, for its points
    values = np.zeros(rows)
    endgames: list[Position] = []
    cells: list[tuple[int, int]] = []
    pending = np.ones(rows, bool)
    from domino_env.vector.torch_batch import one_thread

    with one_thread():
        while True:
            ended = pending & batch.done
            if ended.any():  # a round over: its margin, as ``line_solver.margin`` takes it
                points = batch.rewards[ended][:, seat_of_side].astype(np.float64)
                values[ended] = points[:, side] - (points.sum(axis=1) - points[:, side]) / (cfg.num_sides - 1)
                pending &= ~ended
            solvable = pending & (engine.counts.sum(axis=1) <= exact_tiles)
            for r in np.flatnonzero(solvable):
                hands = tuple(int(h) for h in engine.hands[r, :, 0])
                endgames.append((hands, int(engine.left[r]), int(engine.right[r]), int(engine.seat[r]),
                                 int(engine.streak[r])))
                cells.append(divmod(int(r), num_moves))
            pending &= ~solvable
            if not pending.any():
                return values.reshape(num_worlds, num_moves), endgames, cells
            batch = engine.step(greedy(batch.obs, batch.mask))
