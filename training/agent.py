"""A trained checkpoint as an agent: observation + legal mask in, action out.

The evaluation harness and ``domino-play`` wrap this into the bot interface (they own the
view -> observation step); here the input is already the seat-relative observation, from the
encoder the checkpoint names (``observation_encoder``), one row or a batch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from domino_env_training.checkpoints import CheckpointError, load_checkpoint, require_keys
from domino_env_training.config import Config, ConfigError, from_dict
from domino_env_training.networks import ActorCritic


class PolicyAgent:
    """The learner of a checkpoint. ``greedy`` plays the most probable legal action (evaluation);
    otherwise it samples, reproducibly from ``seed``."""

    def __init__(self, model: ActorCritic, config: Config, *, greedy: bool = True, seed: int = 0,
                 device: str | torch.device = "cpu", observation_encoder: str | None = None):
        self.model = model.to(device).eval()
        self.config = config
        self.observation_encoder = observation_encoder  # None for checkpoints older than the field
        self.num_actions = model.num_actions
        self.greedy = greedy
        self.device = torch.device(device)
        self._generator = torch.Generator(device=self.device).manual_seed(seed)

    @classmethod
    def from_checkpoint(cls, path: str | Path, **kwargs) -> PolicyAgent:
        checkpoint = load_checkpoint(path)
        require_keys(checkpoint, path, ("config", "obs_dim", "num_actions"))
        try:
            config = from_dict(checkpoint["config"])
        except ConfigError as err:
            raise CheckpointError(f"{path}: no valid training config in the checkpoint ({err})") from None
        model = ActorCritic(checkpoint["obs_dim"], checkpoint["num_actions"], config.network,
                            critic_dim=checkpoint.get("critic_dim"), hands_dim=checkpoint.get("hands_dim", 0))
        model.load_state_dict(checkpoint["model"])
        return cls(model, config, observation_encoder=checkpoint.get("observation_encoder"), **kwargs)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> int | np.ndarray:
        """Action for one observation ``(obs_dim,)`` (an int) or a batch ``(n, obs_dim)`` (an array).

        ``mask`` is the legal-action mask, bool or 0/1 (the PettingZoo envs' int8 ``action_mask``).
        """
        single = np.ndim(obs) == 1
        obs_t = torch.as_tensor(np.atleast_2d(obs), dtype=torch.float32, device=self.device)
        mask_t = torch.as_tensor(np.atleast_2d(mask), device=self.device).bool()
        if not mask_t.any(dim=-1).all():
            raise ValueError("every mask row needs at least one legal action")
        actions = self.model.act(obs_t, mask_t, greedy=self.greedy, generator=self._generator).cpu().numpy()
        return int(actions[0]) if single else actions
