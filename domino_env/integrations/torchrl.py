"""The batched engines as one TorchRL environment: ``DominoTorchRLEnv`` (batch size = games).

TorchRL's ``PettingZooWrapper`` steps one Python game at a time through its spec plumbing (a few
hundred agent-steps per second); this environment hands a batched engine's arrays
(``domino_env.vector``) to TorchRL as tensors without copies, thousands of games per step. It is a
turn-based multi-agent environment seen as one batch: in every game one seat is to act, and one
policy (observations are seat-relative) picks that seat's move. Keys (every leading dimension is
the batch ``[num_envs]``):

- ``"observation"`` ``(B, obs_dim)`` float32: the acting seat's compact observation
  (``encoders.line_compact`` / ``encoders.texas42_compact``); what the policy reads.
- ``"action_mask"`` ``(B, A)`` bool: its legal actions, the ``mask`` of
  ``torchrl.modules.MaskedCategorical``; the action spec carries the same mask, so
  ``rand_action`` and ``check_env_specs`` play legal moves.
- ``"seat"`` ``(B,)`` int64: the acting seat (for per-seat advantages).
- ``"state"`` ``(B, (P-1) * T)`` float32, only with ``state=True``: the other seats' hands (relative
  to the acting seat, 0/1 over the tile index), the extra input of a centralized critic, as the
  trainer's (``vector.batch.hidden_hands``). Never part of ``"observation"``.
- ``"action"`` ``(B,)`` int64; ``"reward"`` ``(B, P)`` float32: every seat's reward for the step
  (round or hand results reach all seats, also those that did not act); ``"done"`` =
  ``"terminated"`` ``(B, 1)`` bool: the episode ended on this step.

Games reset themselves when they end: the ``"next"`` observation of a done step already belongs to
the next episode. The partial reset after it (``maybe_reset``, what non-stopping rollouts and
collectors call) only clears the done flags, and a ``reset`` with ``"_reset"`` gives the same
without dealing again; a reset without ``"_reset"`` deals every game anew. Imports ``torch``,
``tensordict`` and ``torchrl`` (the ``torchrl`` extra) when imported.

``device=None`` steps the numpy engine on the host; any ``device`` (``"cpu"``, ``"cuda"``) steps the
torch engine (``vector/line_torch.py``, ``vector/texas42_torch.py``) there, so every key is made on
that device and a policy there never waits for a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from domino_env.games import get_game
from domino_env.vector import torch_batch
from domino_env.vector.batch import Batch, hidden_hands
from domino_env.vector.torch_batch import resolve_device


class DominoTorchRLEnv(EnvBase):
    """``num_envs`` games of ``game`` (any game with a batched engine) with ``options``
    (those of the batched engines: ``variant``, ``num_players``, ``preset``, ``episode``,
    ``reward`` ...); ``state=True`` adds the centralized critic's ``"state"``."""

    def __init__(
        self,
        game: str = "dominoes",
        num_envs: int = 1024,
        *,
        seed: int | None = None,
        state: bool = False,
        device: str | torch.device | None = None,
        **options: Any,
    ):
        record = get_game(game)
        config = record.config(**options)
        self._engine_device = None if device is None else resolve_device(device)
        self._engine_class = record.vector_class(config) if device is None else record.torch_class(config)
        if self._engine_class is None:
            raise ValueError(
                f"no batched engine plays these {game} options ({options}); use "
                "torchrl.envs.PettingZooWrapper on the PettingZoo env (docs/vector_envs.md)"
            )
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        super().__init__(batch_size=torch.Size([int(num_envs)]), device=self._engine_device or "cpu")
        self.game, self.options, self.with_state = game, dict(options), bool(state)
        self.engine = self._new_engine(seed)
        self.num_players, self.num_actions = self.engine.num_players, self.engine.num_actions
        self.num_tiles = record.num_tiles(config)
        b = self.batch_size
        observation = {
            "observation": Bounded(0.0, 1.0, (*b, self.engine.obs_dim), dtype=torch.float32),
            "action_mask": Categorical(2, (*b, self.num_actions), dtype=torch.bool),
            "seat": Categorical(self.num_players, b, dtype=torch.int64),
        }
        if self.with_state:
            width = (self.num_players - 1) * self.num_tiles
            observation["state"] = Bounded(0.0, 1.0, (*b, width), dtype=torch.float32)
        self.observation_spec = Composite(observation, shape=b)
        self.action_spec = Categorical(self.num_actions, b, dtype=torch.int64)
        self.reward_spec = Unbounded((*b, self.num_players), dtype=torch.float32)
        self.done_spec = Composite(
            done=Categorical(2, (*b, 1), dtype=torch.bool),
            terminated=Categorical(2, (*b, 1), dtype=torch.bool),
            shape=b,
        )
        self._batch: Batch | None = None

    # ----- EnvBase hooks ---------------------------------------------------------------------------
    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        partial = tensordict is not None and "_reset" in tensordict.keys()
        if self._batch is None or not partial:
            self._batch = self.engine.reset()
        # Partial resets follow done steps, whose games the engine has already dealt again.
        return self._observe(self._batch)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        if self._batch is None:
            raise RuntimeError("step() before reset(): call reset() first to deal the games")
        # The engine refuses anything but legal integer actions of shape (B,), leaving the games as they were.
        action = tensordict.get("action").detach()
        on_host = self._engine_device is None
        batch = self._batch = self.engine.step(action.cpu().numpy() if on_host else action)
        done = torch.as_tensor(batch.done).unsqueeze(-1)
        return self._observe(
            batch, reward=torch.as_tensor(batch.rewards), done=done, terminated=done.clone()
        )

    def maybe_reset(self, tensordict: TensorDictBase) -> TensorDictBase:
        """The partial reset after a step (``step_and_maybe_reset``: non-stopping rollouts and
        collectors): games that ended were dealt again inside the step, so the observation the step
        returned is already the new episode's, and only the done flags go back to False. TorchRL's
        own partial reset gives the same tensordict through ``_reset`` and a ``where`` over every
        key, a sixth of a profiled rollout; ``reset`` with ``"_reset"`` still takes that path."""
        done = tensordict.get("done", None)
        if done is not None and done.any():
            tensordict.set("done", torch.zeros_like(done))
            tensordict.set("terminated", torch.zeros_like(done))
        return tensordict

    def _set_seed(self, seed: int | None) -> None:
        """Rebuild the games from ``seed`` (every deal comes from the engine's generator)."""
        self.engine = self._new_engine(seed)
        self._batch = None

    def _new_engine(self, seed: int | None) -> Any:
        on_device = {} if self._engine_device is None else {"device": self._engine_device}
        return self._engine_class(int(self.batch_size[0]), seed=seed, **on_device, **self.options)

    # ----- helpers ---------------------------------------------------------------------------------
    def _observe(self, batch: Batch, **step_fields: torch.Tensor) -> TensorDictBase:
        """The acting seats' view of ``batch``, with ``step_fields`` (reward, done) added; built in
        one go on the env's device, since TorchRL copies a device-less tensordict when it nests it."""
        mask = torch.as_tensor(batch.mask)
        self.action_spec.update_mask(mask)
        fields = {
            "observation": torch.as_tensor(batch.obs),
            "action_mask": mask,
            "seat": torch.as_tensor(batch.seat),
            **step_fields,
        }
        if self.with_state:
            fields["state"] = (
                torch.from_numpy(hidden_hands(self.engine, batch.seat, self.num_tiles))
                if self._engine_device is None
                else torch_batch.hidden_hands(self.engine.hand_tiles, batch.seat)
            )
        return TensorDict(fields, batch_size=self.batch_size, device=self.device)
