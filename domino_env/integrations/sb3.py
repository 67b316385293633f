"""``DominoVectorEnv`` as a Stable-Baselines3 ``VecEnv``: MaskablePPO on thousands of games a step.

Stable-Baselines3 steps its own ``VecEnv`` type, not Gymnasium's ``VectorEnv``; its ``DummyVecEnv``
would wrap one Python environment per game. ``SB3VecEnv`` hands the batched environment's arrays
through unchanged; ``env_method("action_masks")`` (what sb3-contrib's ``get_action_masks`` calls)
returns one mask per game. Imports ``stable_baselines3`` (the ``dev`` extra) when imported.

Episodes end only by the rules, never by a time limit, so ``infos`` carry no
``terminal_observation`` (SB3 reads it only for truncated episodes). A game whose episode ended has
``info["episode"] = {"r": return, "l": learner steps, "t": seconds since reset}``, what SB3's
``VecMonitor`` writes: SB3 logs ``rollout/ep_rew_mean`` and ``rollout/ep_len_mean`` from it with no
wrapper (a ``VecMonitor`` around it still works and writes the same).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from domino_env.wrappers.vector_env import DominoVectorEnv


class SB3VecEnv(VecEnv):
    """``env`` (a ``DominoVectorEnv``) behind Stable-Baselines3's ``VecEnv`` interface."""

    def __init__(self, env: DominoVectorEnv):
        if not isinstance(env, DominoVectorEnv):
            raise TypeError(f"SB3VecEnv wraps a DominoVectorEnv, got {type(env).__name__}")
        self.env = env
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(self.num_envs, np.float64)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._started = time.time()

    def reset(self) -> VecEnvObs:
        seed = self._seeds[0]  # VecEnv.seed(s) gives env i the seed s + i: one batch needs only s
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._returns[:], self._lengths[:], self._started = 0.0, 0, time.time()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, _ = self.env.step(actions)
        dones = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        elapsed = round(time.time() - self._started, 6)
        for i in np.flatnonzero(dones):
            infos[i]["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i]), "t": elapsed}
        self._returns[dones], self._lengths[dones] = 0.0, 0
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` int8 legal actions (MaskablePPO's ``get_action_masks`` on a non-vector env)."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    # ----- per-environment access, answered for the whole batch -----------------------------------
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if indices is not None and len(list(self._get_indices(indices))) != self.num_envs:
            raise ValueError("SB3VecEnv sets attributes of the whole batch only (indices=None)")
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks`` gives each game's row; any other method is called once for the batch and
        its result repeated for each index."""
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.env.action_masks()[rows])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
