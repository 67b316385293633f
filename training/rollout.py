"""From a batched game to per-seat learner transitions: game construction, sides, per-seat GAE.

A batched step is one decision of one seat per game, but rewards reach every seat at every step.
PPO needs each seat's *own* trajectory: a seat's transition runs from one of its decisions to its
next decision (or to the end of the game), and its reward is everything that seat received in
between. Partners share team reward because the engines already give partners the same number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from domino_env.vector.batch import Batch
from domino_env_training.config import GameConfig
from domino_env_training.pool import LATEST


class VectorGame(Protocol):
    """What the trainer steps: a batched engine, the single-game fallback or a test's fake game, each
    returning ``domino_env.vector.batch.Batch`` (docs/architecture.md, "Batched engines")."""

    num_envs: int
    num_players: int
    num_actions: int
    obs_dim: int

    def reset(self) -> Batch: ...

    def step(self, actions: np.ndarray) -> Batch: ...


OBSERVATION_ENCODER = "compact"
"""The encoder every training backend observes through: the batched engines fill the compact slots
and the fallback builds its environments with it, so a checkpoint plays the same from either (and
from a seat view, ``domino_env_training.checkpoint_bot``, which reads this name from the checkpoint)."""

GameFactory = Callable[[int, int], VectorGame]
"""``factory(num_envs, seed)``: a fresh batch of games, all deals drawn from ``seed``."""


def game_factory(game: GameConfig) -> GameFactory:
    """The batched engine for ``game`` (or, failing that, the single-game fallback)."""
    options = dict(game.options)
    if game.backend in ("vector", "auto"):
        cls = game.vector_class()
        if cls is not None:
            return lambda num_envs, seed: cls(num_envs, seed=seed, **options)
    from domino_env.vector.fallback import FallbackVectorGame

    record = game.record
    return lambda num_envs, seed: FallbackVectorGame(
        lambda: record.raw_env(observation_encoder=OBSERVATION_ENCODER, **options), num_envs, seed=seed
    )


def num_tiles(game: GameConfig) -> int:
    """Tiles in the set of ``game`` (the width of one hand in ``vector.batch.hidden_hands``)."""
    return game.record.num_tiles(game.rules)


def seat_sides(game: GameConfig) -> np.ndarray:
    """Side (team) of every seat: partners share a side, else one side per seat."""
    return np.array(game.record.sides(game.rules))


def per_seat_gae(
    seats: np.ndarray,
    learner: np.ndarray,
    values: np.ndarray,
    rewards: np.ndarray,
    dones: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GAE along each seat's own decisions.

    ``seats (T, B)`` acting seat, ``learner (T, B)`` the decision is the learner's, ``values (T, B)``
    its critic value, ``rewards (T, B, P)`` every seat's reward for step t, ``dones (T, B)`` step t
    ended the game. Rewards of every step are credited to each seat's latest decision at or before
    it. Returns ``advantages``, ``returns`` (both ``(T, B)``) and ``valid``: a learner decision whose
    seat acts again (or whose game ends) inside the rollout; the last decision of a seat in a game
    still running at the end of the rollout has no known outcome and is left out.
    """
    num_steps, num_envs, num_players = rewards.shape
    advantages = np.zeros((num_steps, num_envs), dtype=np.float32)
    valid = np.zeros((num_steps, num_envs), dtype=bool)
    pending_reward = np.zeros((num_envs, num_players), dtype=np.float32)  # earned since the seat's decision
    next_value = np.zeros((num_envs, num_players), dtype=np.float32)
    next_advantage = np.zeros((num_envs, num_players), dtype=np.float32)
    known = np.zeros((num_envs, num_players), dtype=bool)  # the seat's next decision or game end is seen
    games = np.arange(num_envs)
    for t in reversed(range(num_steps)):
        ended = dones[t]
        pending_reward[ended] = next_value[ended] = next_advantage[ended] = 0.0
        known[ended] = True
        pending_reward += rewards[t]
        seat = seats[t]
        delta = pending_reward[games, seat] + gamma * next_value[games, seat] - values[t]
        advantage = delta + gamma * gae_lambda * next_advantage[games, seat]
        is_known = known[games, seat]
        mine = learner[t]
        advantages[t] = np.where(mine, advantage, 0.0)
        valid[t] = mine & is_known
        # This decision is now the successor of the seat's earlier ones; an unknown one truncates
        # GAE there (its value bootstraps the earlier decision, its advantage does not propagate).
        g, s = games[mine], seat[mine]
        next_value[g, s] = values[t][mine]
        next_advantage[g, s] = np.where(is_known, advantage, 0.0)[mine]
        pending_reward[g, s] = 0.0
        known[g, s] = True
    return advantages, advantages + values, valid


def assign_seats(opponent: np.ndarray, sides: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Learner seats ``(n, P)`` for ``n`` new games: every seat against ``LATEST`` (pure self-play),
    else one side (a seat, or a team) drawn uniformly, the other seats going to the opponent."""
    side_ids = np.unique(sides)
    learner_side = side_ids[rng.integers(len(side_ids), size=len(opponent))]
    return (sides[None, :] == learner_side[:, None]) | (opponent[:, None] == LATEST)


def learner_score(returns: np.ndarray, learner_seats: np.ndarray) -> np.ndarray:
    """Per finished game: 1 when the learner's side out-scored every other side, 0.5 on a tie for
    best, else 0. ``returns (n, P)`` are the seats' game totals (partners hold equal totals)."""
    mine = np.where(learner_seats, returns, -np.inf).max(axis=1)
    best_other = np.where(learner_seats, -np.inf, returns).max(axis=1)
    return np.where(mine > best_other, 1.0, np.where(mine == best_other, 0.5, 0.0))
