"""A trained checkpoint as an ``Agent``: view -> observation -> ``training.agent.PolicyAgent``.

torch is imported only when a checkpoint agent is made, so the scripted bots and the evaluation
harness run without it. The observation encoder is the one the checkpoint names (training records
it); for older checkpoints without the name, the one whose size matches the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.encoders.base import available_encoders, get_encoder


class CheckpointAgent:
    """Plays the most probable legal action of a saved policy (``greedy=False`` samples)."""

    def __init__(self, game: str, path: str | Path, greedy: bool = True, encoder: str | None = None):
        from training.agent import PolicyAgent

        self.policy = PolicyAgent.from_checkpoint(path, greedy=greedy)
        self.encoder_game = game
        self.encoder_name = encoder or self.policy.observation_encoder  # None: an old checkpoint
        self._encoder: Any = None

    def _encoder_for(self, config: Any) -> Any:
        if self._encoder is None:
            names = [self.encoder_name] if self.encoder_name else available_encoders(self.encoder_game)
            width = self.policy.model.obs_dim
            fits = [get_encoder(self.encoder_game, n) for n in names]
            fits = [e for e in fits if e.size(config) == width]
            if not fits:
                raise ValueError(f"no {self.encoder_game} encoder among {names} gives {width} inputs")
            self._encoder = fits[0]
        return self._encoder

    def act(self, view: Any, rng: np.random.Generator) -> int:
        obs = self._encoder_for(view.config).encode(view)
        num_actions = self.policy.model.actor[-1].out_features
        mask = np.array([view.legal_mask >> a & 1 for a in range(num_actions)], dtype=bool)
        return int(self.policy.act(obs, mask))


@register_bot("dominoes", "checkpoint")
def _line_checkpoint(path: str | Path, **kwargs: Any) -> CheckpointAgent:
    return CheckpointAgent("dominoes", path, **kwargs)


@register_bot("texas42", "checkpoint")
def _texas42_checkpoint(path: str | Path, **kwargs: Any) -> CheckpointAgent:
    return CheckpointAgent("texas42", path, **kwargs)
