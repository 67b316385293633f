"""Warm start by imitation: the network copies a scripted teacher before self-play begins.

PPO from a random network spends most of a short budget rediscovering what a hand-written bot
already knows (in Texas 42: bid with trumps and doubles, pull trumps, feed count to a partner's
trick). Behaviour cloning hands it that knowledge first: the teacher (a batched scripted policy of
``domino_env_training.scripted``) plays every seat of ``num_envs`` batched games; the actor is trained by
cross-entropy on the teacher's moves (masked logits, so only legal actions compete) and the critic
on the Monte Carlo returns of those games (``rollout.per_seat_gae`` with zero values and
``lambda = 1``), so PPO starts with a critic that already knows what a position is worth. Self-play
then has to *improve* on the teacher, and the pool keeps the teacher as an opponent.

``rounds`` > 1 repeats this on fresh games, so the copy sees more positions than one round's
memory holds; with ``dagger`` the later rounds are played by the copy itself and only labelled by
the teacher (DAgger, Ross et al. 2011), so it also learns the teacher's answer in the positions its
own mistakes lead to, which the teacher's games never reach.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import optim

from domino_env_training.config import Config
from domino_env_training.networks import ActorCritic
from domino_env_training.rollout import DeviceGame, GameFactory, per_seat_gae
from domino_env_training.scripted import ScriptedPolicy

HELD_OUT_EVERY = 16
"""one game in this many is held out of the imitation's training set to measure agreement on unseen
moves (none when ``imitation.num_envs`` is smaller)"""

IMITATION = int.from_bytes(b"imitation", "little")


@dataclass
class Labelled:
    """One round's complete decisions: what the actor saw, the teacher's moves, the returns."""

    obs: torch.Tensor
    mask: torch.Tensor
    teacher_actions: torch.Tensor
    critic_input: torch.Tensor | None
    returns: torch.Tensor
    held_out: torch.Tensor
    """whether the decision belongs to a held-out game"""


def imitate(agent: ActorCritic, teacher: ScriptedPolicy, make_game: GameFactory, config: Config,
            device: torch.device, critic_tiles: int = 0) -> dict[str, float]:
    """Train ``agent`` to play like ``teacher`` (``config.imitation``); returns the last epoch's
    figures (teacher-move accuracy of the greedy policy and value loss, each minibatch measured
    before its update), the accuracy on the last round's held-out games (one game in
    ``HELD_OUT_EVERY``, never trained on: the last epoch's accuracy is on moves seen every epoch) and
    the samples and engine steps used over all rounds.

    ``critic_tiles`` > 0 (centralized critic) adds the other seats' hands to the critic input, as in
    training. Seeded from ``(config.seed, "imitation")``: the same config gives the same result.
    """
    settings = config.imitation
    sequence = np.random.SeedSequence([config.seed, IMITATION])
    rng = np.random.default_rng(sequence)
    optimizer = optim.Adam(agent.parameters(), lr=settings.lr, eps=1e-5)
    samples = held_out_samples = 0
    for round_index in range(settings.rounds):
        round_sequence = sequence if round_index == 0 else np.random.SeedSequence(
            [config.seed, IMITATION, round_index])
        game_seed, torch_seed = (int(s) for s in round_sequence.generate_state(2))
        generator = torch.Generator(device=device).manual_seed(torch_seed)
        student = agent if settings.dagger and round_index > 0 else None
        data = label_games(teacher, student, make_game, config, device, critic_tiles, game_seed, generator)
        figures = fit(agent, optimizer, data, config, rng)
        samples += data.returns.numel()
        held_out_samples += int(data.held_out.sum())
    return {
        **figures,
        "imitation_samples": float(samples),
        "imitation_held_out_samples": float(held_out_samples),
        "imitation_steps": float(settings.rounds * settings.num_steps * settings.num_envs),
    }


def label_games(teacher: ScriptedPolicy, student: ActorCritic | None, make_game: GameFactory,
                config: Config, device: torch.device, critic_tiles: int, game_seed: int,
                generator: torch.Generator) -> Labelled:
    """Play ``imitation.num_envs`` fresh games for ``num_steps`` steps, every seat moving as the
    teacher does, or as ``student`` samples when one is given, with the teacher's move recorded at
    every decision either way; keep the decisions whose game ended (their returns are known)."""
    settings, hp = config.imitation, config.ppo
    envs = DeviceGame(make_game(settings.num_envs, game_seed), device)
    batch = envs.reset()
    obs, masks, labels, critic_inputs, seats, rewards, dones = [], [], [], [], [], [], []
    for _ in range(settings.num_steps):
        label = teacher(batch.obs, batch.mask, generator)
        obs.append(batch.obs)
        masks.append(batch.mask)
        labels.append(label)
        if critic_tiles:
            critic_inputs.append(torch.cat([batch.obs, envs.hidden_hands(batch.seat, critic_tiles)], dim=-1))
        seats.append(batch.seat)
        if student is None:
            action = label
        else:
            with torch.no_grad():
                action = student.act(batch.obs, batch.mask, generator=generator)
        batch = envs.step(action)
        rewards.append(batch.rewards)
        dones.append(batch.done)

    # Monte Carlo returns along each seat's own decisions; a decision whose game is still running
    # at the end has no known return and is left out.
    seats_t, dones_t = torch.stack(seats), torch.stack(dones)
    zeros = torch.zeros(seats_t.shape, device=device)
    scaled_rewards = torch.stack(rewards) * hp.reward_scale
    everyone = torch.ones_like(dones_t)
    _, returns, valid = per_seat_gae(seats_t, everyone, zeros, scaled_rewards, dones_t, hp.gamma, 1.0)
    complete = valid.reshape(-1).nonzero()[:, 0]
    return Labelled(
        obs=torch.stack(obs).flatten(0, 1)[complete],
        mask=torch.stack(masks).flatten(0, 1)[complete],
        teacher_actions=torch.stack(labels).flatten()[complete],
        critic_input=torch.stack(critic_inputs).flatten(0, 1)[complete] if critic_tiles else None,
        returns=returns.reshape(-1)[complete],
        held_out=complete % settings.num_envs < settings.num_envs // HELD_OUT_EVERY,  # whole games
    )


def fit(agent: ActorCritic, optimizer: optim.Optimizer, data: Labelled, config: Config,
        rng: np.random.Generator) -> dict[str, float]:
    """Supervised epochs on one round's training games: cross-entropy on the teacher's moves, MSE on
    the returns; then the greedy policy's agreement with the teacher on the held-out games."""
    settings, hp = config.imitation, config.ppo
    train = (~data.held_out).nonzero()[:, 0]
    samples = train.numel()
    minibatch = min(settings.minibatch_size, samples)
    for _epoch in range(settings.epochs):
        order = train[torch.as_tensor(rng.permutation(samples), device=train.device)]
        correct, value_loss_sum = 0, 0.0
        for start in range(0, samples, minibatch):
            mb = order[start:start + minibatch]
            critic_input = data.obs[mb] if data.critic_input is None else data.critic_input[mb]
            dist = agent.distribution(data.obs[mb], data.mask[mb])
            value_loss = ((agent.get_value(critic_input) - data.returns[mb]) ** 2).mean()
            loss = -dist.log_prob(data.teacher_actions[mb]).mean() + hp.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(agent.parameters(), hp.max_grad_norm)
            optimizer.step()
            correct += int((dist.logits.argmax(-1) == data.teacher_actions[mb]).sum())  # before this step
            value_loss_sum += value_loss.item() * mb.numel()
    test = data.held_out.nonzero()[:, 0]
    with torch.no_grad():
        agreement = (agent.act(data.obs[test], data.mask[test], greedy=True) == data.teacher_actions[test])
    return {
        "imitation_accuracy": correct / samples,
        "imitation_held_out_accuracy": float(agreement.float().mean()) if test.numel() else float("nan"),
        "imitation_value_loss": value_loss_sum / samples,
    }
