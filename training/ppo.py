"""PPO self-play with action masks, in one straight-line loop (the layout of CleanRL's ppo.py).

Each iteration:
0. (once, optional: ``imitation.teacher``) the network copies a scripted teacher
   (``domino_env_training.imitation``);
1. a fresh batch of ``num_envs`` games, seeded by ``(seed, iteration)``, each with an opponent
   drawn from the pool and a learner side (a seat, or a team) drawn at random;
2. ``num_steps`` batched steps: the learner's network acts where its seats are to play, the pool's
   opponents act elsewhere, in batch;
3. GAE along each seat's own decisions (``rollout.per_seat_gae``);
4. the clipped PPO update over the learner's complete transitions, masked logits in the loss;
5. pool snapshot, evaluations (batched vs random; every ``harness_every``-th also duplicate deals
   against the bots), TensorBoard and progress bar, checkpoint.

Determinism: every random draw of iteration ``i`` (deals, opponents, seats, actions, minibatch
order, evaluation) comes from generators seeded with ``(config.seed, i)``, and games do not carry
over between iterations, so a run resumed from a checkpoint continues exactly as the uninterrupted
run would have (on the same device and torch build).
"""

from __future__ import annotations

import json
import math
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import yaml
from domino_env_training.checkpoints import (
    CHECKPOINT_NAME,
    CheckpointError,
    load_checkpoint,
    remove_stale_temporaries,
    require_keys,
    save_checkpoint,
)
from domino_env_training.config import RESUMABLE_FIELDS, Config, ConfigError, from_dict, resume_mismatches
from domino_env_training.curves import plot_learning_curve
from domino_env_training.evaluate import harness_evaluation, win_rate_vs_random
from domino_env_training.imitation import imitate
from domino_env_training.networks import ActorCritic
from domino_env_training.pool import LATEST, OpponentPool
from domino_env_training.rollout import (
    OBSERVATION_ENCODER,
    GameFactory,
    assign_seats,
    game_factory,
    learner_score,
    num_tiles,
    per_seat_gae,
    seat_sides,
)
from domino_env_training.scripted import make_scripted
from torch import nn, optim
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from domino_env.vector.batch import hidden_hands

WALL_CLOCK_KEYS = frozenset({"elapsed_s"})
"""History keys that depend on the machine's speed; every other entry follows from the config's seed."""


def seeded_history(history: list[dict[str, float]]) -> list[dict[str, float]]:
    """The history without its wall-clock entries: what a rerun with the same seed reproduces exactly."""
    return [{k: v for k, v in record.items() if k not in WALL_CLOCK_KEYS} for record in history]


@dataclass
class TrainResult:
    run_path: Path
    iteration: int
    global_step: int
    history: list[dict[str, float]]


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def iteration_seeds(seed: int, iteration: int) -> tuple[np.random.Generator, int, int]:
    """Independent streams for one iteration: numpy generator, game seed, torch seed."""
    sequence = np.random.SeedSequence([seed, iteration])
    game_seed, torch_seed = (int(s) for s in sequence.generate_state(2))
    return np.random.default_rng(sequence), game_seed, torch_seed


def check_resumable(checkpoint: dict, config: Config, path: Path) -> None:
    """Refuse to continue ``checkpoint`` under a ``config`` it was not trained with, or whose counters
    do not add up (``ConfigError`` for the first, ``CheckpointError`` for the second)."""
    require_keys(checkpoint, path, ("config", "model", "optimizer", "pool", "history", "iteration",
                                    "global_step", "elapsed_s"))
    try:
        saved = from_dict(checkpoint["config"])
    except ConfigError as err:
        raise CheckpointError(f"{path}: no valid training config in the checkpoint ({err})") from None
    differences = resume_mismatches(saved, config)
    if differences:
        raise ConfigError(
            f"--resume: the config differs from the one {path} was trained with: {'; '.join(differences)}. "
            f"Only these may change on resume: {', '.join(sorted(RESUMABLE_FIELDS))}"
        )
    steps_per_iteration = config.ppo.num_envs * config.ppo.num_steps
    iteration, global_step = checkpoint["iteration"], checkpoint["global_step"]
    elapsed = checkpoint["elapsed_s"]
    if global_step != iteration * steps_per_iteration:
        raise CheckpointError(f"{path}: iteration {iteration!r} and global_step {global_step!r} disagree "
                              f"({steps_per_iteration} steps per iteration)")
    if not isinstance(elapsed, (int, float)) or not 0 <= elapsed < math.inf:
        raise CheckpointError(f"{path}: elapsed_s must be a finite number of seconds, got {elapsed!r}")


def train(config: Config, *, resume: bool = False, overwrite: bool = False,
          make_game: GameFactory | None = None, progress: bool = True) -> TrainResult:
    """Run (or with ``resume``, continue) the training described by ``config``.

    A run that already has a checkpoint is continued only with ``resume`` (same config but for
    ``RESUMABLE_FIELDS``) and started again only with ``overwrite``; otherwise ``ConfigError``."""
    run_path = config.run_path
    checkpoint_path = run_path / CHECKPOINT_NAME
    if checkpoint_path.exists() and not (resume or overwrite):
        raise ConfigError(f"{checkpoint_path} exists: resume that run (--resume), start it again "
                          "(--overwrite), or choose another name")
    remove_stale_temporaries(checkpoint_path)  # left by a process killed while writing a checkpoint
    make_game = make_game or game_factory(config.game)
    device = resolve_device(config.device)
    probe = make_game(1, config.seed)
    obs_dim, num_actions, num_players = probe.obs_dim, probe.num_actions, probe.num_players
    sides = seat_sides(config.game)
    hp = config.ppo  # PPO hyper-parameters, read as often as CleanRL's ``args``
    num_envs, num_steps = hp.num_envs, hp.num_steps
    steps_per_iteration = num_envs * num_steps
    num_iterations = max(1, config.total_steps // steps_per_iteration)
    harness_period = config.eval_interval * config.harness_every
    if config.harness_every and harness_period > num_iterations:
        warnings.warn(f"harness_every={config.harness_every} counts evaluations, each eval_interval="
                      f"{config.eval_interval} iterations apart: one harness evaluation every "
                      f"{harness_period} iterations, more than the run's {num_iterations}, so it plays "
                      "only at the end", stacklevel=2)

    torch.manual_seed(config.seed)  # network initialisation

    # The other seats' hands, read during training only: input of a centralized critic, target of the
    # hand head (the actor never reads them).
    centralized, hand_coef = config.network.centralized_critic, config.network.hand_head_coef
    if (centralized or hand_coef) and not hasattr(probe, "hands"):
        raise ValueError("network.centralized_critic and network.hand_head_coef need a batched engine "
                         f"(public `hands` arrays); {type(probe).__name__} has none")
    tiles = num_tiles(config.game) if centralized or hand_coef else 0
    hands_dim = (num_players - 1) * tiles
    critic_dim = obs_dim + hands_dim if centralized else obs_dim

    def new_network() -> ActorCritic:
        return ActorCritic(obs_dim, num_actions, config.network, critic_dim,
                           hands_dim if hand_coef else 0).to(device)

    agent = new_network()
    optimizer = optim.Adam(agent.parameters(), lr=hp.lr, eps=1e-5)
    pool = OpponentPool(config.pool, new_network,
                        {name: make_scripted(name, config.game) for name in config.pool.scripted})
    iteration, global_step, elapsed_before, history = 0, 0, 0.0, []
    resumed = resume and checkpoint_path.exists()
    if resumed:
        checkpoint = load_checkpoint(checkpoint_path, device)
        check_resumable(checkpoint, config, checkpoint_path)
        agent.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        pool.load_state_dict(checkpoint["pool"])
        iteration, global_step = checkpoint["iteration"], checkpoint["global_step"]
        elapsed_before, history = checkpoint["elapsed_s"], checkpoint["history"]
    run_path.mkdir(parents=True, exist_ok=True)
    (run_path / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    # Resumed: TensorBoard drops the old run's events past the checkpoint; overwritten: all of them.
    writer = SummaryWriter(str(run_path), purge_step=global_step if resumed or overwrite else None)

    def checkpoint_now() -> None:
        save_checkpoint(checkpoint_path, {
            "config": config.to_dict(), "obs_dim": obs_dim, "num_actions": num_actions,
            "observation_encoder": OBSERVATION_ENCODER, "critic_dim": critic_dim,
            "hands_dim": agent.hands_dim, "model": agent.state_dict(), "optimizer": optimizer.state_dict(),
            "iteration": iteration, "global_step": global_step,
            "elapsed_s": elapsed_before + time.time() - start_time,
            "pool": pool.state_dict(), "history": history,
        })
        (run_path / "pool.json").write_text(json.dumps(pool.summary(), indent=1))

    # Rollout storage, time-major like CleanRL; numpy where the per-seat GAE reads it.
    obs_buf = torch.zeros((num_steps, num_envs, obs_dim), device=device)
    hands_buf = torch.zeros((num_steps, num_envs, hands_dim), device=device) if hands_dim else None
    mask_buf = torch.zeros((num_steps, num_envs, num_actions), dtype=torch.bool, device=device)
    actions_buf = torch.zeros((num_steps, num_envs), dtype=torch.long, device=device)
    logprobs_buf = torch.zeros((num_steps, num_envs), device=device)
    values_buf = np.zeros((num_steps, num_envs), dtype=np.float32)
    seats_buf = np.zeros((num_steps, num_envs), dtype=np.int64)
    learner_buf = np.zeros((num_steps, num_envs), dtype=bool)
    rewards_buf = np.zeros((num_steps, num_envs, num_players), dtype=np.float32)
    dones_buf = np.zeros((num_steps, num_envs), dtype=bool)
    games = np.arange(num_envs)

    start_time, start_step = time.time(), global_step
    if config.imitation.teacher and not resumed:  # warm start; its time counts against the budget
        teacher = make_scripted(config.imitation.teacher, config.game)
        figures = imitate(agent, teacher, make_game, config, device, tiles if centralized else 0)
        history.append({"iteration": 0, "global_step": 0, **figures})
        for key, value in figures.items():
            writer.add_scalar(f"imitation/{key.removeprefix('imitation_')}", value, 0)
        checkpoint_now()
    bar = tqdm(total=num_iterations * steps_per_iteration, initial=global_step, unit="step",
               disable=not progress, dynamic_ncols=True)

    def out_of_time() -> bool:
        budget = config.time_budget_s
        return bool(budget) and elapsed_before + time.time() - start_time >= budget

    while iteration < num_iterations and not out_of_time():
        rng, game_seed, torch_seed = iteration_seeds(config.seed, iteration)
        generator = torch.Generator(device=device).manual_seed(torch_seed)
        if hp.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - iteration / num_iterations) * hp.lr

        # ----- rollout: fresh games, the learner on its seats, pool opponents on the others -----
        envs = make_game(num_envs, game_seed)
        batch = envs.reset()
        opponent = pool.sample(rng, num_envs)
        learner_seats = assign_seats(opponent, sides, rng)
        episode_return = np.zeros((num_envs, num_players))
        scores: list[float] = []  # learner's results against pool opponents in finished games
        for step in range(num_steps):
            obs = torch.as_tensor(batch.obs, device=device)
            mask = torch.as_tensor(batch.mask, device=device)
            learner_turn = learner_seats[games, batch.seat]
            critic_input = None
            if hands_dim:
                hidden = torch.as_tensor(hidden_hands(envs, batch.seat, tiles), device=device)
                hands_buf[step] = hidden
                if centralized:
                    critic_input = torch.cat([obs, hidden], dim=-1)
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(
                    obs, mask, generator=generator, critic_input=critic_input
                )
                if not learner_turn.all():
                    rows = torch.as_tensor(np.flatnonzero(~learner_turn), device=device)
                    action[rows] = pool.act(opponent[rows.cpu().numpy()], obs[rows], mask[rows], generator)
            obs_buf[step], mask_buf[step], actions_buf[step], logprobs_buf[step] = obs, mask, action, logprob
            values_buf[step] = value.cpu().numpy()
            seats_buf[step], learner_buf[step] = batch.seat, learner_turn

            batch = envs.step(action.cpu().numpy())
            rewards_buf[step], dones_buf[step] = batch.rewards, batch.done
            episode_return += batch.rewards
            ended = np.flatnonzero(batch.done)
            if ended.size:
                for g, score in zip(ended, learner_score(episode_return[ended], learner_seats[ended]),
                                    strict=True):
                    if opponent[g] != LATEST:
                        pool.record(opponent[g], score)
                        scores.append(score)
                episode_return[ended] = 0.0
                opponent[ended] = pool.sample(rng, ended.size)
                learner_seats[ended] = assign_seats(opponent[ended], sides, rng)
        global_step += steps_per_iteration

        # ----- advantages along each seat's own decisions -----
        advantages, returns, valid = per_seat_gae(
            seats_buf, learner_buf, values_buf, rewards_buf * hp.reward_scale, dones_buf,
            hp.gamma, hp.gae_lambda,
        )
        keep = torch.as_tensor(np.flatnonzero(valid.reshape(-1)), device=device)
        if keep.numel() == 0:
            raise RuntimeError("no complete learner transition in a rollout: increase ppo.num_steps")
        b_obs = obs_buf.reshape(-1, obs_dim)[keep]
        b_hands = hands_buf.reshape(-1, hands_dim)[keep] if hands_dim else None
        b_mask = mask_buf.reshape(-1, num_actions)[keep]
        b_actions = actions_buf.reshape(-1)[keep]
        b_logprobs = logprobs_buf.reshape(-1)[keep]
        b_advantages = torch.as_tensor(advantages.reshape(-1), device=device)[keep]
        b_returns = torch.as_tensor(returns.reshape(-1), device=device)[keep]
        b_values = torch.as_tensor(values_buf.reshape(-1), device=device)[keep]

        # ----- PPO update: clipped surrogate, clipped value loss, entropy over legal actions -----
        batch_size = keep.numel()
        minibatch_size = math.ceil(batch_size / hp.num_minibatches)
        clipfracs = []
        for _epoch in range(hp.update_epochs):
            order = torch.as_tensor(rng.permutation(batch_size), device=device)
            for start in range(0, batch_size, minibatch_size):
                mb = order[start:start + minibatch_size]
                mb_critic = torch.cat([b_obs[mb], b_hands[mb]], dim=-1) if centralized else b_obs[mb]
                features = agent.features(b_obs[mb])  # shared by the policy and the hand head
                dist = agent.policy_from(features, b_mask[mb])
                newlogprob, entropy = dist.log_prob(b_actions[mb]), dist.entropy()
                newvalue = agent.get_value(mb_critic)
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > hp.clip_coef).float().mean().item())

                mb_advantages = b_advantages[mb]
                if hp.norm_adv and mb.numel() > 1:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - hp.clip_coef, 1 + hp.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                if hp.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb]) ** 2
                    v_clipped = b_values[mb] + torch.clamp(
                        newvalue - b_values[mb], -hp.clip_coef, hp.clip_coef
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - hp.ent_coef * entropy_loss + v_loss * hp.vf_coef
                if hand_coef:
                    hand_loss = nn.functional.binary_cross_entropy_with_logits(
                        agent.hand_head(features), b_hands[mb])
                    loss = loss + hand_coef * hand_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), hp.max_grad_norm)
                optimizer.step()
            if hp.target_kl and approx_kl > hp.target_kl:
                break

        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        # ----- pool, evaluation, logging, checkpoint -----
        iteration += 1
        if iteration % config.pool.snapshot_interval == 0:
            pool.add_snapshot(f"step_{global_step}", agent)
        record = {"iteration": iteration, "global_step": global_step}
        if scores:
            record["win_rate"] = float(np.mean(scores))
        last = iteration == num_iterations or out_of_time()
        if iteration % config.eval_interval == 0 or last:
            record["eval_win_rate_vs_random"] = win_rate_vs_random(
                agent, make_game, sides, config.eval_games, torch_seed, device
            )
            if config.harness_every and (iteration % harness_period == 0 or last):
                record.update(harness_evaluation(agent, config, global_step))
        record["elapsed_s"] = elapsed_before + time.time() - start_time  # in WALL_CLOCK_KEYS
        history.append(record)

        sps = int((global_step - start_step) / (time.time() - start_time))
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        for key, value in record.items():
            if key in ("win_rate", "eval_win_rate_vs_random"):
                writer.add_scalar(f"charts/{key}", value, global_step)
            elif key.startswith("harness_"):
                writer.add_scalar(f"harness/{key.removeprefix('harness_')}", value, global_step)
        writer.add_scalar("charts/games_vs_pool", len(scores), global_step)
        writer.add_scalar("charts/learner_transitions", batch_size, global_step)
        writer.add_scalar("charts/SPS", sps, global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        if hand_coef:
            writer.add_scalar("losses/hand_bce", hand_loss.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        bar.update(steps_per_iteration)
        bar.set_postfix(win=f"{record.get('win_rate', float('nan')):.3f}", sps=sps,
                        eval=f"{history_last(history, 'eval_win_rate_vs_random'):.3f}")
        if iteration % config.checkpoint_interval == 0:
            checkpoint_now()
    bar.close()

    checkpoint_now()
    plot_learning_curve(history, run_path / "learning_curve.png")
    writer.close()
    return TrainResult(run_path, iteration, global_step, history)


def history_last(history: list[dict[str, float]], key: str) -> float:
    """Latest value of ``key`` in the run's history (NaN before the first one)."""
    return next((h[key] for h in reversed(history) if key in h), float("nan"))
