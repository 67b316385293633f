"""A trained checkpoint as a bot of every game: ``make_bot(game, "checkpoint", path=...)``; the
shipped baseline of a benchmark task: ``make_bot(game, "trained")`` (``task=`` names it).

It lives with the trainer so that ``domino_env`` never imports ``training``; ``domino_env.bots``
finds it through the ``domino_env.bots`` entry point declared in pyproject.toml. The agent encodes
its seat's view with the encoder the checkpoint records (``observation_encoder``) and plays
``domino_env_training.agent.PolicyAgent`` on it; a checkpoint of another game, or one that does not name its
encoder, is refused. The same agent guides the search bots (``make_bot(game, "search",
network=path)``): ``logits`` and ``value`` give its policy and critic on one seat's view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from domino_env.bots.base import ANY_GAME, register_bot
from domino_env.encoders.base import get_encoder
from domino_env.evaluation.tasks import baseline_path, get_task, task_of_config
from domino_env.vector.torch_batch import one_thread
from domino_env_training.agent import PolicyAgent


class CheckpointAgent:
    """Plays the most probable legal action of a saved policy (``greedy=False`` samples)."""

    def __init__(self, game: str, path: str | Path, greedy: bool = True):
        self.path = path
        self.policy = PolicyAgent.from_checkpoint(path, greedy=greedy)
        trained_on = self.policy.config.game.name
        if trained_on != game:
            raise ValueError(f"checkpoint {path} was trained on {trained_on!r}, not {game!r}")
        if not self.policy.observation_encoder:
            raise ValueError(f"checkpoint {path} does not record its observation encoder "
                             "(written before the field existed): retrain it")
        self.encoder = get_encoder(game, self.policy.observation_encoder)
        self.greedy = greedy
        self.actor = NumpyMLP(self.policy.model.actor)
        self.critic = NumpyMLP(self.policy.model.critic)
        self._values_refusal = self.values_refusal()

    def encode(self, view: Any) -> tuple[np.ndarray, np.ndarray]:
        """The observation and legal mask of ``view``, refused when the network reads another width
        (a checkpoint of other rules: another set, seat count or variant)."""
        obs, mask = self.encoder.encode_with_mask(view, self.policy.num_actions)
        if obs.shape[-1] != self.policy.model.obs_dim:
            raise ValueError(f"checkpoint {self.path} reads {self.policy.model.obs_dim} inputs, this game's "
                             f"observation has {obs.shape[-1]}: it was trained on other rules "
                             f"({self.policy.config.game.options})")
        return obs, mask

    def logits(self, view: Any) -> np.ndarray:
        """The policy's logits for ``view``, one per action id, ``-inf`` on illegal actions."""
        obs, mask = self.encode(view)
        return np.where(mask.astype(bool), self.actor(obs), -np.inf)

    def values_refusal(self) -> str | None:
        """Why ``value`` cannot be an expected margin in points, or ``None`` when it is: that needs a
        critic of the observation alone trained on one-round or one-hand zero-sum episodes."""
        options = self.policy.config.game.options
        if self.policy.model.critic_dim != self.policy.model.obs_dim:
            return (f"checkpoint {self.path} has a centralized critic (it reads the hidden hands): "
                    "its values cannot score a seat's view")
        one_episode = options.get("episode", "round") in ("round", "hand")
        if not one_episode or options.get("reward", "zero_sum") != "zero_sum":
            return (f"checkpoint {self.path} was trained on {options}: its values are margins only "
                    "with episode='round' (42: 'hand') and reward='zero_sum'")
        return None

    def value(self, view: Any) -> float:
        """The critic's expected margin of ``view``'s seat to the end of the episode, in points
        (the trainer scaled rewards by ``ppo.reward_scale``); see ``values_refusal``."""
        if self._values_refusal:
            raise ValueError(self._values_refusal)
        obs, _ = self.encode(view)
        return float(self.critic(obs)[0]) / self.policy.config.ppo.reward_scale

    def probabilities(self, view: Any) -> np.ndarray:
        """The distribution ``act`` draws from, one entry per action id: all on the most probable
        legal action (``greedy``), else the policy's softmax over the legal ones. Exact
        exploitability reads it (``domino_env.evaluation.exploitability.agent_policy``)."""
        logits = self.logits(view)
        if self.greedy:
            return np.eye(len(logits))[int(np.argmax(logits))]
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()

    def act(self, view: Any, rng: np.random.Generator) -> int:
        if self.greedy:
            return int(np.argmax(self.logits(view)))
        obs, mask = self.encode(view)
        return int(self.policy.act(obs, mask))


    def act_batch(self, views: list[Any], rngs: list[np.random.Generator]) -> list[int]:
        """``act`` of many views in one forward pass (the lockstep evaluation); sampled play
        (``greedy=False``) answers view by view."""
        if not self.greedy:
            return [self.act(view, rng) for view, rng in zip(views, rngs, strict=True)]
        return self.most_probable([self.encode(view) for view in views])

    def most_probable(self, encoded: list[tuple[np.ndarray, np.ndarray]]) -> list[int]:
        """The most probable legal action of each ``encode``d view, in one forward pass (what
        ``act_batch`` plays greedily; ``domino-distill`` passes the observations it already holds)."""
        obs = torch.from_numpy(np.stack([o for o, _m in encoded]))
        legal = np.stack([m for _o, m in encoded]).astype(bool)
        with torch.no_grad(), one_thread():  # numpy's BLAS would spread a batch over busy cores
            logits = self.policy.model.actor(obs).numpy()
        return np.where(legal, logits, -np.inf).argmax(axis=1).tolist()


class NumpyMLP:
    """A network's ``nn.Sequential`` of linear layers and one activation in numpy, for one
    observation at a time: a torch call costs about ten times the arithmetic of these small
    networks, and the harness and the search ask one seat's move at a time (tested to pick the same
    actions as the torch actor)."""

    def __init__(self, layers: torch.nn.Sequential):
        linear = [m for m in layers if isinstance(m, torch.nn.Linear)]
        self.layers = [(m.weight.detach().cpu().numpy().T.astype(np.float32),
                        m.bias.detach().cpu().numpy().astype(np.float32)) for m in linear]
        activation = next(m for m in layers if not isinstance(m, torch.nn.Linear))
        self.activation = np.tanh if isinstance(activation, torch.nn.Tanh) else (lambda x: np.maximum(x, 0))

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        hidden = np.asarray(obs, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            hidden = self.activation(hidden @ weight + bias)
        weight, bias = self.layers[-1]
        return hidden @ weight + bias


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
        return self._for(view).act(view, rng)

    def act_batch(self, views: list[Any], rngs: list[np.random.Generator]) -> list[int]:
        return self._for(views[0]).act_batch(views, rngs)

    def _for(self, view: Any) -> CheckpointAgent:
        """The baseline of the task ``view``'s rules belong to, loaded at the first move."""
        if self.agent is None:
            self.agent = self._load(task_of_config(view.config).name)
        return self.agent


register_bot(ANY_GAME, "trained")(TrainedAgent)
