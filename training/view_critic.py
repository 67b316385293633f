"""Fit a critic of the seat's view to a trained policy, after training.

A run with the oracle critic (``network.centralized_critic``) learns a critic that reads the other
seats' hands. That lowers the variance of PPO's advantages, but the value cannot score what a seat
sees, so the network-guided search refuses it as a leaf evaluation
(``domino_env_training.checkpoint_bot.CheckpointAgent.values_refusal``). This module keeps the run's actor and
fits a fresh critic of the observation alone by regression on Monte Carlo returns: the policy plays
itself (sampling, as in training) in fresh batched games, and each of its decisions is labelled with
what that seat scored from there to the end of the game (``ppo.gamma`` is 1 and the episodes are
single rounds or hands, so that is the value the trainer's own critic estimates). The result is a
training checkpoint like any other, with ``network.centralized_critic`` off, which
``scripts/export_baseline.py`` ships.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn, optim

from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoints import load_checkpoint, save_checkpoint
from domino_env_training.networks import ActorCritic, mlp
from domino_env_training.ppo import iteration_seeds
from domino_env_training.rollout import DeviceGame, GameFactory, game_factory, num_tiles, per_seat_gae


@dataclass
class ViewCriticFit:
    """What the fit measured on a held-out rollout of fresh games (returns in reward-scaled units)."""

    positions: int
    """decisions the critic was fitted on"""
    explained_variance: float
    """1 - Var(return - view critic) / Var(return) on the held-out decisions"""
    oracle_explained_variance: float | None
    """the same for the run's own critic (it reads the hidden hands), ``None`` without one"""
    held_out: int
    """held-out decisions"""


def self_play_returns(
    model: ActorCritic, make_game: GameFactory, num_envs: int, num_steps: int, seed: int, reward_scale: float,
    oracle_tiles: int = 0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """One rollout of the policy in every seat: the observations of its decisions whose game ends
    inside the rollout, their Monte Carlo returns (scaled) and, with ``oracle_tiles`` (tiles in a
    hand), the oracle critic's values of the same decisions (it reads the other seats' hands)."""
    _, game_seed, torch_seed = iteration_seeds(seed, 0)
    generator = torch.Generator().manual_seed(torch_seed)
    envs = DeviceGame(make_game(num_envs, game_seed), torch.device("cpu"))
    batch = envs.reset()
    obs_rows, oracle_rows, seats, rewards, dones = [], [], [], [], []
    for _ in range(num_steps):
        with torch.no_grad():
            action = model.act(batch.obs, batch.mask, generator=generator)
            if oracle_tiles:
                hands = envs.hidden_hands(batch.seat, oracle_tiles)
                oracle_rows.append(model.get_value(torch.cat([batch.obs, hands], dim=-1)))
        obs_rows.append(batch.obs)
        seats.append(batch.seat)
        batch = envs.step(action)
        rewards.append(batch.rewards)
        dones.append(batch.done)
    seats_t, dones_t = torch.stack(seats), torch.stack(dones)
    _, returns, valid = per_seat_gae(seats_t, torch.ones_like(dones_t), torch.zeros(seats_t.shape),
                                     torch.stack(rewards) * reward_scale, dones_t, gamma=1.0, gae_lambda=1.0)
    # per_seat_gae also keeps decisions whose seat acts again in a game still running at the end; with
    # zero values their returns would stop short of the game's end, so only ended games are kept.
    game_ends_later = dones_t.flip(0).cummax(dim=0).values.flip(0)
    keep = (valid & game_ends_later).reshape(-1).nonzero()[:, 0]
    obs_all = torch.stack(obs_rows).reshape(-1, model.obs_dim)[keep]
    oracle = torch.stack(oracle_rows).reshape(-1)[keep] if oracle_rows else None
    return obs_all, returns.reshape(-1)[keep], oracle


def explained_variance(predicted: torch.Tensor, target: torch.Tensor) -> float:
    return float(1.0 - torch.var(target - predicted) / torch.var(target))


def fit_view_critic(source: str | Path, target: str | Path, *, rollouts: int = 20, num_envs: int = 4096,
                    num_steps: int = 64, epochs: int = 4, minibatch: int = 8192, lr: float = 1e-3,
                    seed: int = 1_000_003) -> ViewCriticFit:
    """Write to ``target`` the training checkpoint ``source`` with its critic replaced by one of the
    observation alone, fitted on ``rollouts`` self-play rollouts of ``num_envs`` x ``num_steps``
    decisions (``epochs`` passes over each); one more rollout, from other deals, is held out."""
    checkpoint = load_checkpoint(source)
    policy = PolicyAgent.from_checkpoint(source)
    model, config = policy.model, policy.config
    make_game = game_factory(config.game)
    scale = config.ppo.reward_scale
    critic = mlp(model.obs_dim, config.network.hidden_sizes, 1, config.network.activation, out_std=1.0)
    optimizer = optim.Adam(critic.parameters(), lr=lr, eps=1e-5)
    shuffle = torch.Generator().manual_seed(seed)
    positions = 0
    for i in range(rollouts):
        obs, returns, _ = self_play_returns(model, make_game, num_envs, num_steps, seed + i, scale)
        positions += len(returns)
        for _ in range(epochs):
            order = torch.randperm(len(returns), generator=shuffle)
            for start in range(0, len(order), minibatch):
                mb = order[start:start + minibatch]
                loss = 0.5 * ((critic(obs[mb]).squeeze(-1) - returns[mb]) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(critic.parameters(), config.ppo.max_grad_norm)
                optimizer.step()
    # the run's oracle critic (it reads the hidden hands), scored on the same held-out decisions
    oracle_tiles = num_tiles(config.game) if model.critic_dim != model.obs_dim else 0
    obs, returns, oracle = self_play_returns(model, make_game, num_envs, num_steps, seed + rollouts, scale,
                                             oracle_tiles)
    with torch.no_grad():
        fitted = explained_variance(critic(obs).squeeze(-1), returns)
    result = ViewCriticFit(positions, fitted, None if oracle is None else explained_variance(oracle, returns),
                           len(returns))
    network = copy.deepcopy(config.network)
    network.centralized_critic = False
    config.network = network
    model.critic = critic
    model.critic_dim = model.obs_dim
    kept = {key: value for key, value in checkpoint.items() if key not in ("optimizer", "pool")}
    save_checkpoint(target, {**kept, "config": config.to_dict(), "critic_dim": model.obs_dim,
                             "model": model.state_dict(),
                             "view_critic": {**result.__dict__, "source": str(source)}})
    return result

