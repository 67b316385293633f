"""Greedy rollouts of the Mexican Train search on the batched engine: every (world, candidate) row of a
decision is one row of ``VectorMexicanTrainGame``, played to the round's end by
``BatchedMexicanTrainGreedy`` for every seat.

``MexicanTrainSearchAgent`` values a move by the round's outcome after playing it in a sampled world
(``bots.mexican_train.sample_world``, a reference engine at the view's position) and letting greedy
finish the round. Played move by move on engine clones, a four-player decision at ``budget=200``
cost about a quarter of a second (docs/speed.md); here each world is loaded into its rows
(``VectorMexicanTrainGame.set_positions``), each row plays its candidate and the rows are stepped
together until every round has ended, those still playing moved to a smaller engine as the others
finish (``copy_rows``). Greedy is deterministic and a world's boneyard order is part of it, so a
row's value is the reference rollout's to the bit (``tests/search/test_mexican_train_rollouts.py``).
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from domino_env.bots.batched import BatchedMexicanTrainGreedy
from domino_env.rules.mexican_train import MexicanTrainConfig, MexicanTrainGame, MexicanTrainView
from domino_env.search.decisions import bucket
from domino_env.search.line_solver import side_outcomes
from domino_env.vector.mexican_train import VectorMexicanTrainGame


class MexicanTrainRollouts:
    """The batched engine and greedy of one rule set, every world played to its round's end."""

    def __init__(self, config: MexicanTrainConfig):
        self.options = {name: value for name, value in asdict(config).items() if name != "episode"}
        self.greedy = BatchedMexicanTrainGreedy({**self.options, "episode": "round"})
        self.num_players = config.num_players
        self._engines: dict[int, VectorMexicanTrainGame] = {}

    def values_many(self, decisions: list[tuple[MexicanTrainView, list[MexicanTrainGame], list[int]]],
                    objective: str = "margin") -> list[np.ndarray]:
        """Per decision (a view, its sampled worlds, its candidates), ``values[w, i]``: the view seat's
        ``objective`` of the round (``bots.mexican_train.round_value``; higher is better) when
        ``candidates[i]`` is played in world ``w`` and greedy plays every seat to the round's end.
        All decisions' rows are stepped together on one engine."""
        shapes = [(len(worlds), len(candidates)) for _view, worlds, candidates in decisions]
        rows = sum(w * c for w, c in shapes)
        engine = self._engine(bucket(rows))
        games = [world for _view, worlds, candidates in decisions for world in worlds for _ in candidates]
        batch = engine.set_positions(np.arange(rows), games)
        origin = np.arange(engine.num_envs)  # each engine row's row of the decisions (past ``rows``: none)
        live = origin < rows
        actions = batch.mask.argmax(axis=1)  # rows past the decisions play on, unread
        actions[:rows] = np.concatenate([np.tile(c, len(w)) for _view, w, c in decisions])
        points = np.zeros((rows, self.num_players))
        while True:
            batch = engine.step(actions)
            ended = batch.done & live
            points[origin[ended]] = -batch.rewards[ended]  # reward="penalty": minus each seat's round points
            live &= ~batch.done
            count = int(live.sum())
            if not count:
                break
            if count <= engine.num_envs // 4:  # the rows still playing move to a smaller engine
                smaller = self._engine(1 << (count - 1).bit_length())
                playing = np.flatnonzero(live)
                batch = smaller.copy_rows(engine, playing, np.arange(count))
                origin = np.concatenate([origin[playing], np.full(smaller.num_envs - count, -1)])
                engine, live = smaller, np.arange(smaller.num_envs) < count
            actions = batch.mask.argmax(axis=1)
            actions[live] = self.greedy(batch.obs[live], batch.mask[live])
        values, start = [], 0
        for (view, _worlds, _candidates), (w, c) in zip(decisions, shapes, strict=True):
            values.append(side_outcomes(-points[start:start + w * c], view.seat, objective).reshape(w, c))
            start += w * c
        return values

    def _engine(self, rows: int) -> VectorMexicanTrainGame:
        """One engine per row count (``bucket``; a power of two for the rows still playing), built
        once; rows are loaded before they are read."""
        if rows not in self._engines:
            engine = VectorMexicanTrainGame(rows, seed=0, episode="round", reward="penalty", **self.options)
            engine.reset()
            self._engines[rows] = engine
        return self._engines[rows]
