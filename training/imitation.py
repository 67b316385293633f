"""Warm start by imitation: the network copies a scripted teacher before self-play begins.

PPO from a random network spends most of a short budget rediscovering what a hand-written bot
already knows (in Texas 42: bid with trumps and doubles, pull trumps, feed count to a partner's
trick). Behaviour cloning hands it that knowledge first: the teacher (a batched scripted policy of
``domino_env_training.scripted``) plays every seat of ``num_envs`` batched games; the actor is trained by
cross-entropy on the teacher's moves (masked logits, so only legal actions compete) and the critic
on the Monte Carlo returns of those games (``rollout.per_seat_gae`` with zero values and
``lambda = 1``), so PPO starts with a critic that already knows what a position is worth. Self-play
then has to *improve* on the teacher, and the pool keeps the teacher as an opponent.
"""

from __future__ import annotations

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


def imitate(agent: ActorCritic, teacher: ScriptedPolicy, make_game: GameFactory, config: Config,
            device: torch.device, critic_tiles: int = 0) -> dict[str, float]:
    """Train ``agent`` to play like ``teacher`` (``config.imitation``); returns the last epoch's
    figures (teacher-move accuracy of the greedy policy and value loss, each minibatch measured
    before its update), the accuracy on held-out games (one game in ``HELD_OUT_EVERY``, never trained
    on: the last epoch's accuracy is on moves seen every epoch) and the samples and engine steps used.

    ``critic_tiles`` > 0 (centralized critic) adds the other seats' hands to the critic input, as in
    training. Seeded from ``(config.seed, "imitation")``: the same config gives the same result.
    """
    settings, hp = config.imitation, config.ppo
    sequence = np.random.SeedSequence([config.seed, int.from_bytes(b"imitation", "little")])
    rng = np.random.default_rng(sequence)
    game_seed, torch_seed = (int(s) for s in sequence.generate_state(2))
    generator = torch.Generator(device=device).manual_seed(torch_seed)

    # ----- the teacher plays every seat -----
    envs = DeviceGame(make_game(settings.num_envs, game_seed), device)
    batch = envs.reset()
    obs, masks, actions, critic_inputs, seats, rewards, dones = [], [], [], [], [], [], []
    for _ in range(settings.num_steps):
        action = teacher(batch.obs, batch.mask, generator)
        obs.append(batch.obs)
        masks.append(batch.mask)
        actions.append(action)
        if critic_tiles:
            critic_inputs.append(torch.cat([batch.obs, envs.hidden_hands(batch.seat, critic_tiles)], dim=-1))
        seats.append(batch.seat)
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
    held_out = complete % settings.num_envs < settings.num_envs // HELD_OUT_EVERY  # whole games
    keep = complete[~held_out]
    all_obs, all_masks = torch.stack(obs).flatten(0, 1), torch.stack(masks).flatten(0, 1)
    all_actions = torch.stack(actions).flatten()
    b_obs, b_mask, b_actions = all_obs[keep], all_masks[keep], all_actions[keep]
    b_critic = torch.stack(critic_inputs).flatten(0, 1)[keep] if critic_tiles else None
    b_returns = returns.reshape(-1)[keep]

    # ----- supervised epochs: cross-entropy on the teacher's moves, MSE on the returns -----
    optimizer = optim.Adam(agent.parameters(), lr=settings.lr, eps=1e-5)
    samples = keep.numel()
    minibatch = min(settings.minibatch_size, samples)
    for _epoch in range(settings.epochs):
        order = torch.as_tensor(rng.permutation(samples), device=device)
        correct, value_loss_sum = 0, 0.0
        for start in range(0, samples, minibatch):
            mb = order[start:start + minibatch]
            critic_input = b_obs[mb] if b_critic is None else b_critic[mb]
            dist = agent.distribution(b_obs[mb], b_mask[mb])
            value_loss = ((agent.get_value(critic_input) - b_returns[mb]) ** 2).mean()
            loss = -dist.log_prob(b_actions[mb]).mean() + hp.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(agent.parameters(), hp.max_grad_norm)
            optimizer.step()
            correct += int((dist.logits.argmax(-1) == b_actions[mb]).sum())  # before this step
            value_loss_sum += value_loss.item() * mb.numel()
    test = complete[held_out]
    with torch.no_grad():
        held_out_accuracy = float((agent.act(all_obs[test], all_masks[test], greedy=True)
                                   == all_actions[test]).float().mean()) if test.numel() else float("nan")
    return {
        "imitation_accuracy": correct / samples,
        "imitation_held_out_accuracy": held_out_accuracy,
        "imitation_value_loss": value_loss_sum / samples,
        "imitation_samples": float(complete.numel()),
        "imitation_held_out_samples": float(test.numel()),
        "imitation_steps": float(settings.num_steps * settings.num_envs),
    }
