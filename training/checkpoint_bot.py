"""A trained checkpoint as a bot of every game: ``make_bot(game, "checkpoint", path=...)``; the
shipped baseline of a benchmark task: ``make_bot(game, "trained")`` (``task=`` names it).

It lives with the trainer so that ``domino_env`` never imports ``training``; ``domino_env.bots``
finds it through the ``domino_env.bots`` entry point declared in pyproject.toml. The agent encodes
its seat's view with the encoder the checkpoint records (``observation_encoder``) and plays
``training.agent.PolicyAgent`` on it; a checkpoint of another game, or one that does not name its
encoder, is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from domino_env.benchmarks import baseline_path, get_task, task_of_config
from domino_env.bots.base import ANY_GAME, register_bot
from domino_env.encoders.base import get_encoder
from training.agent import PolicyAgent


class CheckpointAgent:
    """Plays the most probable legal action of a saved policy (``greedy=False`` samples)."""

    def __init__(self, game: str, path: str | Path, greedy: bool = True):
        self.policy = PolicyAgent.from_checkpoint(path, greedy=greedy)
        trained_on = self.policy.config.game.name
        if trained_on != game:
            raise ValueError(f"checkpoint {path} was trained on {trained_on!r}, not {game!r}")
        if not self.policy.observation_encoder:
            raise ValueError(f"checkpoint {path} does not record its observation encoder "
                             "(written before the field existed): retrain it")
        self.encoder = get_encoder(game, self.policy.observation_encoder)
        self.actor = NumpyActor(self.policy.model) if greedy else None

    def act(self, view: Any, rng: np.random.Generator) -> int:
        obs, mask = self.encoder.encode_with_mask(view, self.policy.num_actions)
        if self.actor is not None:
            return self.actor.greedy(obs, mask)
        return int(self.policy.act(obs, mask))


class NumpyActor:
    """The policy network's actor in numpy, for one observation at a time: a torch call costs
    about ten times the arithmetic of these small networks, and the harness plays one seat's
    move at a time (tested to pick the same actions as the torch actor)."""

    def __init__(self, model: Any):
        linear = [m for m in model.actor if isinstance(m, torch.nn.Linear)]
        self.layers = [(m.weight.detach().cpu().numpy().T.astype(np.float32),
                        m.bias.detach().cpu().numpy().astype(np.float32)) for m in linear]
        activation = next(m for m in model.actor if not isinstance(m, torch.nn.Linear))
        self.activation = np.tanh if isinstance(activation, torch.nn.Tanh) else (lambda x: np.maximum(x, 0))

    def greedy(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The most probable legal action of observation ``obs`` under legal ``mask``."""
        hidden = np.asarray(obs, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            hidden = self.activation(hidden @ weight + bias)
        weight, bias = self.layers[-1]
        logits = hidden @ weight + bias
        return int(np.argmax(np.where(np.asarray(mask, dtype=bool), logits, -np.inf)))


register_bot(ANY_GAME, "checkpoint")(CheckpointAgent)


class TrainedAgent:
    """The shipped baseline policy of a benchmark task (module docstring)."""

    def __init__(self, game: str, task: str | None = None):
        self.game = game
        self.agent: CheckpointAgent | None = None
        if task is not None:
            chosen = get_task(task)
            if chosen.game != game:
                raise ValueError(f"task {chosen.name!r} is a {chosen.game} task, not {game!r}")
            self.agent = self._load(chosen.name)

    def _load(self, task: str) -> CheckpointAgent:
        path = baseline_path(task)
        if not path.is_file():
            raise ValueError(f"no trained baseline is shipped for task {task!r} (expected {path})")
        return CheckpointAgent(self.game, path)

    def act(self, view: Any, rng: np.random.Generator) -> int:
        if self.agent is None:
            self.agent = self._load(task_of_config(view.config).name)
        return self.agent.act(view, rng)


register_bot(ANY_GAME, "trained")(TrainedAgent)
