"""From a batched game to per-seat learner transitions: the device view of a game, sides, per-seat GAE.

A batched step is one decision of one seat per game, but rewards reach every seat at every step.
PPO needs each seat's *own* trajectory: a seat's transition runs from one of its decisions to its
next decision (or to the end of the game), and its reward is everything that seat received in
between. Partners share team reward because the engines already give partners the same number.

Everything here works on torch tensors on the trainer's device: with a torch engine on that device
(``domino_env.vector.line_torch`` / ``texas42_torch``) a rollout never copies to the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import torch

from domino_env.vector import torch_batch
from domino_env.vector.batch import Batch, hidden_hands
from domino_env_training.config import GameConfig
from domino_env_training.pool import LATEST


class VectorGame(Protocol):
    """What the trainer steps: a batched engine (numpy or torch), the single-game fallback or a
    test's fake game, each returning ``domino_env.vector.batch.Batch`` (docs/architecture.md,
    "Batched engines")."""

    num_envs: int
    num_players: int
    num_actions: int
    obs_dim: int

    def reset(self) -> Batch: ...

    def step(self, actions: np.ndarray) -> Batch: ...


OBSERVATION_ENCODER = "compact"
"""The encoder every training backend observes through: the batched engines fill the compact slots
and the fallback builds its environments with it, so a checkpoint plays the same from either (and
from a seat view, ``domino_env_training.checkpoint_bot``, which reads this name from the checkpoint)."""

GameFactory = Callable[[int, int], VectorGame]
"""``factory(num_envs, seed)``: a fresh batch of games, all deals drawn from ``seed``."""


class DeviceGame:
    """A ``VectorGame`` seen from the trainer's ``device``: every ``Batch`` field a tensor there and
    actions taken as tensors. A torch engine already on ``device`` passes through with no copy; a
    numpy engine or the fallback costs one copy each way per step."""

    def __init__(self, game: VectorGame, device: torch.device):
        self.game, self.device = game, device
        self.num_envs, self.num_players = game.num_envs, game.num_players
        self._torch_engine = hasattr(game, "hand_tiles")  # the torch engines' (B, P, T) hands

    def reset(self, **first: Any) -> Batch:
        """The engine's ``reset``; ``first`` passes its options on (``deals``, Texas 42's ``shakers``)."""
        return self._on_device(self.game.reset(**first))

    def step(self, actions: torch.Tensor) -> Batch:
        return self._on_device(self.game.step(actions if self._torch_engine else actions.cpu().numpy()))

    def hidden_hands(self, seat: torch.Tensor, tiles: int) -> torch.Tensor:
        """The other seats' hands, relative to each game's acting ``seat``: ``(B, (P-1) * tiles)``
        float 0/1 (the centralized critic's extra input, the hand head's target)."""
        if self._torch_engine:
            return torch_batch.hidden_hands(self.game.hand_tiles, seat)
        return torch.as_tensor(hidden_hands(self.game, seat.cpu().numpy(), tiles), device=self.device)

    def _on_device(self, batch: Batch) -> Batch:
        return Batch(*(torch.as_tensor(field, device=self.device) for field in batch))


def game_factory(game: GameConfig, device: torch.device | None = None) -> GameFactory:
    """The engine for ``game``: ``backend`` ``torch`` is the torch batched engine on ``device``
    (``auto`` picks it on a CUDA device), ``vector`` the numpy one, and failing both the single-game
    fallback. The trainer's actions come from the legal mask, so the torch engine skips its check."""
    options = dict(game.options)
    device = torch.device("cpu") if device is None else device
    use_torch = game.backend == "torch" or (game.backend == "auto" and device.type == "cuda")
    torch_class = game.torch_class() if use_torch else None
    if torch_class is not None:
        return lambda num_envs, seed: torch_class(num_envs, seed=seed, device=device, check_actions=False,
                                                  **options)
    if game.backend in ("vector", "auto"):
        cls = game.vector_class()
        if cls is not None:
            return lambda num_envs, seed: cls(num_envs, seed=seed, **options)
    from domino_env.vector.fallback import FallbackVectorGame

    record = game.record
    return lambda num_envs, seed: FallbackVectorGame(
        lambda: record.raw_env(observation_encoder=OBSERVATION_ENCODER, **options), num_envs, seed=seed
    )


def num_tiles(game: GameConfig) -> int:
    """Tiles in the set of ``game`` (the width of one hand in ``vector.batch.hidden_hands``)."""
    return game.record.num_tiles(game.rules)


def seat_sides(game: GameConfig) -> np.ndarray:
    """Side (team) of every seat: partners share a side, else one side per seat."""
    return np.array(game.record.sides(game.rules))


def per_seat_gae(
    seats: torch.Tensor,
    learner: torch.Tensor,
    values: torch.Tensor,
    rewards: torch.Tensor,
    dones: torch.Tensor,
    gamma: float,
    gae_lambda: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """GAE along each seat's own decisions, on the tensors' device.

    ``seats (T, B)`` acting seat, ``learner (T, B)`` the decision is the learner's, ``values (T, B)``
    its critic value, ``rewards (T, B, P)`` every seat's reward for step t, ``dones (T, B)`` step t
    ended the game. Rewards of every step are credited to each seat's latest decision at or before
    it. Returns ``advantages``, ``returns`` (both ``(T, B)``) and ``valid``: a learner decision whose
    seat acts again (or whose game ends) inside the rollout; the last decision of a seat in a game
    still running at the end of the rollout has no known outcome and is left out. A loop over the
    ``T`` steps, each a few whole-batch operations (no host read).
    """
    num_steps, num_envs, num_players = rewards.shape
    device = rewards.device
    advantages = torch.zeros((num_steps, num_envs), device=device)
    valid = torch.zeros((num_steps, num_envs), dtype=torch.bool, device=device)
    pending_reward = torch.zeros((num_envs, num_players), device=device)  # earned since the seat's decision
    next_value = torch.zeros((num_envs, num_players), device=device)
    next_advantage = torch.zeros((num_envs, num_players), device=device)
    known = torch.zeros((num_envs, num_players), dtype=torch.bool, device=device)  # next decision/end seen
    for t in reversed(range(num_steps)):
        running = ~dones[t, :, None]
        pending_reward = pending_reward * running + rewards[t]
        next_value, next_advantage = next_value * running, next_advantage * running
        known = known | ~running
        seat = seats[t, :, None]
        delta = pending_reward.gather(1, seat)[:, 0] + gamma * next_value.gather(1, seat)[:, 0] - values[t]
        advantage = delta + gamma * gae_lambda * next_advantage.gather(1, seat)[:, 0]
        is_known = known.gather(1, seat)[:, 0]
        mine = learner[t]
        advantages[t] = torch.where(mine, advantage, 0.0)
        valid[t] = mine & is_known
        # This decision is now the successor of the seat's earlier ones; an unknown one truncates
        # GAE there (its value bootstraps the earlier decision, its advantage does not propagate).
        here = torch.zeros_like(known).scatter_(1, seat, mine[:, None])
        next_value = torch.where(here, values[t][:, None], next_value)
        next_advantage = torch.where(here, torch.where(is_known, advantage, 0.0)[:, None], next_advantage)
        pending_reward = pending_reward.masked_fill(here, 0.0)
        known = known | here
    return advantages, advantages + values, valid


def assign_seats(opponent: torch.Tensor, sides: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Learner seats ``(n, P)`` for ``n`` games: every seat against ``LATEST`` (pure self-play),
    else one side (a seat, or a team) drawn uniformly, the other seats going to the opponent."""
    side_ids = sides.unique()
    pick = torch.randint(len(side_ids), opponent.shape, generator=generator, device=opponent.device)
    return (sides[None, :] == side_ids[pick][:, None]) | (opponent[:, None] == LATEST)


def learner_score(returns: torch.Tensor, learner_seats: torch.Tensor) -> torch.Tensor:
    """Per finished game: 1 when the learner's side out-scored every other side, 0.5 on a tie for
    best, else 0. ``returns (n, P)`` are the seats' game totals (partners hold equal totals)."""
    mine = returns.masked_fill(~learner_seats, -torch.inf).amax(dim=1)
    best_other = returns.masked_fill(learner_seats, -torch.inf).amax(dim=1)
    return torch.where(mine > best_other, 1.0, torch.where(mine == best_other, 0.5, 0.0))
