"""A tiny batched game with the ``VectorGame`` API, so the trainer is tested without a real engine.

High card: ``num_players`` seats take turns for ``rounds`` rounds; each turn the acting seat may
pick any action of a random non-empty legal subset of 0..7 and scores the action's id. After the
last turn the highest total wins (+1 to the winner, -1 to the others; all 0 on a tie). The
observation is the legal mask plus a one-hot turn counter, so the best play (the highest legal
action) is learnable from the observation alone and random play is easy to beat.
"""

from __future__ import annotations

import numpy as np

from domino_env.vector.batch import Batch


class HighCardGame:
    num_actions = 8

    def __init__(self, num_envs: int, *, seed: int | None = None, num_players: int = 2, rounds: int = 3):
        self.num_envs, self.num_players, self.rounds = num_envs, num_players, rounds
        self.turns = num_players * rounds
        self.obs_dim = self.num_actions + self.turns
        self._rng = np.random.default_rng(seed)
        self._turn = np.zeros(num_envs, np.int64)
        self._totals = np.zeros((num_envs, num_players), np.int64)
        self._mask = np.zeros((num_envs, self.num_actions), bool)

    def reset(self) -> Batch:
        self._turn[:] = 0
        self._totals[:] = 0
        no_rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(no_rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        games = np.arange(self.num_envs)
        if not self._mask[games, actions].all():
            raise ValueError(f"illegal action in games {np.flatnonzero(~self._mask[games, actions])}")
        self._totals[games, self._turn % self.num_players] += actions
        self._turn += 1
        done = self._turn == self.turns
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        best = self._totals.max(axis=1, keepdims=True)
        single = (self._totals == best).sum(axis=1) == 1
        winner = done & single
        rewards[winner] = np.where(self._totals[winner] == best[winner], 1.0, -1.0)
        self._turn[done] = 0
        self._totals[done] = 0
        return self._batch(rewards, done)

    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        self._mask = self._rng.random((self.num_envs, self.num_actions)) < 0.4
        self._mask[np.arange(self.num_envs), self._rng.integers(self.num_actions, size=self.num_envs)] = True
        obs = np.concatenate([self._mask, np.eye(self.turns, dtype=bool)[self._turn]], axis=1)
        return Batch(self._turn % self.num_players, obs.astype(np.float32), self._mask.copy(), rewards, done)


def high_card_factory(num_envs: int, seed: int) -> HighCardGame:
    return HighCardGame(num_envs, seed=seed)
