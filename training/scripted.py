"""The batched scripted opponents of ``domino_env.bots.batched``, on the trainer's torch tensors.

The policies themselves (``random``, ``greedy``, Texas 42 ``heuristic``) live in
``domino_env.bots.batched`` so that ``domino_env``'s vector environments can seat them; this module
adapts them to ``policy(obs, mask, generator) -> actions`` on tensors. ``random`` stays a torch
draw from the trainer's generator, so a run's random stream does not depend on numpy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from domino_env.bots.batched import BatchedLineGreedy, BatchedPolicy, make_batched_bot
from domino_env_training.config import GameConfig

ScriptedPolicy = Callable[[torch.Tensor, torch.Tensor, torch.Generator], torch.Tensor]
"""``policy(obs (n, obs_dim), mask (n, A) bool, generator) -> actions (n,)``."""


def random_actions(obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """The scripted ``random`` opponent: uniform over each row's legal actions (``obs`` unused)."""
    return torch.multinomial(mask.float(), 1, generator=generator).squeeze(-1)


class TensorPolicy:
    """A deterministic numpy ``BatchedPolicy`` on tensors (scored on the CPU, back on ``obs``'s device)."""

    def __init__(self, policy: BatchedPolicy):
        self.policy = policy
        self._rng = np.random.default_rng(0)  # the deterministic bots draw nothing

    def __call__(self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        actions = self.policy(obs.cpu().numpy(), mask.cpu().numpy(), self._rng)
        return torch.as_tensor(actions, dtype=torch.long, device=obs.device)


def make_scripted(name: str, game: GameConfig) -> ScriptedPolicy:
    """The batched policy of scripted opponent ``name`` for ``game`` (names validated by the config):
    a torch program (line ``greedy``) answers on the tensors' device, a numpy one on the CPU."""
    if name == "random":
        return random_actions
    policy = make_batched_bot(game.name, name, game.options)
    if isinstance(policy, BatchedLineGreedy):
        return lambda obs, mask, generator: policy(obs, mask)
    return TensorPolicy(policy)
