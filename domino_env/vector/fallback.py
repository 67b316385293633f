"""N single-game PettingZoo environments behind the batched ``VectorGame`` API.

For games or options the batched engines do not cover (yet): the trainer and the evaluation code
only speak the batched API (docs/architecture.md, "Batched engines"), and this adapter lets them
run on any ``DominoAECEnv``. It steps the games one by one in Python, so it is orders of magnitude
slower than a real batched engine; the observation is whatever encoder the environment was built
with (the trainer builds them with ``compact``, the batched engines' encoder, so a checkpoint works
with either backend).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pettingzoo import AECEnv

from domino_env.vector.batch import Batch


class FallbackVectorGame:
    """``num_envs`` copies of ``env_fn()``; every episode's deal is seeded from ``seed``."""

    def __init__(self, env_fn: Callable[[], AECEnv], num_envs: int, *, seed: int | None = None):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.envs = [env_fn() for _ in range(num_envs)]
        first = self.envs[0]
        self.agents = first.possible_agents
        self.num_envs, self.num_players = num_envs, len(self.agents)
        self.num_actions = int(first.action_space(self.agents[0]).n)
        self.obs_dim = int(np.prod(first.observation_space(self.agents[0])["observation"].shape))
        self._episode_seeds = np.random.default_rng(seed)

    def reset(self) -> Batch:
        for env in self.envs:
            self._new_episode(env)
        no_rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(no_rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """One action per game for its seat to act (illegal ones raise, as the envs do)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        done = np.zeros(self.num_envs, bool)
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            env.step(int(action))
            rewards[i] = [env.rewards[a] for a in self.agents]
            if all(env.terminations[a] or env.truncations[a] for a in self.agents):
                done[i] = True
                self._new_episode(env)
        return self._batch(rewards, done)

    def _new_episode(self, env: AECEnv) -> None:
        env.reset(seed=int(self._episode_seeds.integers(2**63)))

    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        seats, obs, masks = [], [], []
        for env in self.envs:
            agent = env.agent_selection
            seen = env.observe(agent)
            seats.append(self.agents.index(agent))
            obs.append(np.asarray(seen["observation"], np.float32).reshape(-1))
            masks.append(np.asarray(seen["action_mask"]).astype(bool))
        return Batch(np.array(seats, np.int64), np.stack(obs), np.stack(masks), rewards, done)
