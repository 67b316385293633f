"""MLP actor-critic on the seat-relative observation, with masked logits.

One network serves every seat: observations are seat-relative, so "me", "my partner" and "the
player to my left" mean the same inputs whichever seat is acting.

Masking: illegal logits are replaced by the most negative float before the softmax, both when
sampling and inside the loss. Their probability is then exactly 0, and because ``masked_fill``
writes a constant, no gradient flows back into an illegal logit. (The most negative finite float
rather than ``-inf`` keeps ``0 * log 0`` terms of the entropy at 0 instead of NaN.)

Centralized critic (``network.centralized_critic``): the critic may read more than the actor, the
observation followed by every other seat's hand (``domino_env.vector.batch.hidden_hands``), during training
only. The actor's input is always the observation alone, so a trained policy plays from what its
seat may know; the critic only lowers the variance of the advantages and is never used to act.

Hand head (``network.hand_head_coef`` > 0): a linear head on the actor's last hidden layer predicts,
for every other seat and tile, whether that seat holds the tile (logits of independent Bernoullis),
trained against the true deal. It shapes what the actor's hidden layer represents (where the
unseen tiles are); acting never reads it.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from domino_env_training.config import NetworkConfig

ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> nn.Linear:
    """Orthogonal initialisation, as in CleanRL (small std on the heads)."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


def mlp(in_dim: int, hidden: list[int], out_dim: int, activation: str, out_std: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [layer_init(nn.Linear(in_dim, width)), ACTIVATIONS[activation]()]
        in_dim = width
    layers.append(layer_init(nn.Linear(in_dim, out_dim), std=out_std))
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions (``mask`` False) set to the most negative finite float."""
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs (CleanRL's layout). The actor reads the ``obs_dim``
    observation; the critic reads ``critic_dim`` inputs: the observation, or with a centralized
    critic the observation followed by the hidden hands."""

    def __init__(self, obs_dim: int, num_actions: int, config: NetworkConfig, critic_dim: int | None = None,
                 hands_dim: int = 0):
        super().__init__()
        self.obs_dim = obs_dim
        self.num_actions = num_actions
        self.critic_dim = critic_dim or obs_dim
        self.hands_dim = hands_dim
        self.actor = mlp(obs_dim, config.hidden_sizes, num_actions, config.activation, out_std=0.01)
        self.critic = mlp(self.critic_dim, config.hidden_sizes, 1, config.activation, out_std=1.0)
        if hands_dim:
            width = config.hidden_sizes[-1] if config.hidden_sizes else obs_dim
            self.hand_head = layer_init(nn.Linear(width, hands_dim), std=0.01)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """The actor's last hidden layer: what the policy layer and the hand head both read, so an
        update with the hand head on runs the actor's hidden layers once."""
        return self.actor[:-1](obs)

    def policy_from(self, features: torch.Tensor, mask: torch.Tensor) -> Categorical:
        """Policy over legal actions from :meth:`features`; every row of ``mask`` must hold a legal action."""
        return Categorical(logits=masked_logits(self.actor[-1](features), mask))

    def hand_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The hand head's logits, ``(B, hands_dim)``: seat ``1 .. P-1`` (relative) holds tile ``t``."""
        return self.hand_head(self.features(obs))

    def get_value(self, critic_input: torch.Tensor) -> torch.Tensor:
        return self.critic(critic_input).squeeze(-1)

    def distribution(self, obs: torch.Tensor, mask: torch.Tensor) -> Categorical:
        """Policy over legal actions only; every row of ``mask`` must hold a legal action."""
        return self.policy_from(self.features(obs), mask)

    def get_action_and_value(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        action: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
        critic_input: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample (with ``generator``, for reproducible runs) or score ``action``.

        Returns the action, its log-probability, the entropy over legal actions (all from ``obs``)
        and the value (from ``critic_input`` when given, else from ``obs``).
        """
        dist = self.distribution(obs, mask)
        if action is None:
            action = torch.multinomial(dist.probs, 1, generator=generator).squeeze(-1)
        value = self.get_value(obs if critic_input is None else critic_input)
        return action, dist.log_prob(action), dist.entropy(), value

    @torch.no_grad()
    def act(self, obs: torch.Tensor, mask: torch.Tensor, *, greedy: bool = False,
            generator: torch.Generator | None = None) -> torch.Tensor:
        """Actions only: the most probable legal action (``greedy``) or a sample."""
        logits = masked_logits(self.actor(obs), mask)
        if greedy:
            return logits.argmax(-1)
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)
