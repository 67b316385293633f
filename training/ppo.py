"""PPO self-play with action masks, in one straight-line loop (the layout of CleanRL's ppo.py).

``train`` is that loop; each stage it names is one function below it, in the order it runs.
Setup (``make_setup``, ``new_learner``, ``resume_learner``, ``open_run_folder``): the run folder,
the sizes probed off one game, the network, its optimizer and the opponent pool, loaded from the
checkpoint when resumed. Then, once and optionally (``imitation.teacher``), the network copies a
scripted teacher (``imitate_teacher``, ``domino_env_training.imitation``). Each iteration:

1. ``collect_rollout``: a fresh batch of ``num_envs`` games, seeded by ``(seed, iteration)``, each
   with an opponent drawn from the pool and a learner side (a seat, or a team) drawn at random;
   ``num_steps`` batched steps: the learner's network acts where its seats are to play, the pool's
   opponents act elsewhere, in batch;
2. ``learner_batch``: GAE along each seat's own decisions (``rollout.per_seat_gae``), keeping the
   learner's complete transitions;
3. ``ppo_update`` (``minibatch_losses``): the clipped PPO update over those, masked logits in the loss;
4. ``snapshot_and_evaluate``, ``log_iteration``, ``save_run``: pool snapshot, evaluations (batched vs
   random; every ``harness_every``-th also duplicate deals against the bots), TensorBoard and
   progress bar, checkpoint.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
import yaml
from torch import nn, optim
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoints import (
    CHECKPOINT_NAME,
    CheckpointError,
    load_checkpoint,
    remove_stale_temporaries,
    require_keys,
    save_checkpoint,
)
from domino_env_training.config import (
    RESUMABLE_FIELDS,
    Config,
    ConfigError,
    checkpoint_path,
    from_dict,
    resume_mismatches,
)
from domino_env_training.curves import plot_learning_curve
from domino_env_training.evaluate import harness_evaluation, win_rate_vs_random
from domino_env_training.imitation import imitate
from domino_env_training.networks import ActorCritic
from domino_env_training.pool import LATEST, OpponentPool, frozen_policy
from domino_env_training.rollout import (
    OBSERVATION_ENCODER,
    DeviceGame,
    GameFactory,
    assign_seats,
    game_factory,
    learner_score,
    num_tiles,
    per_seat_gae,
    seat_sides,
)
from domino_env_training.scripted import make_scripted

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


@dataclass(frozen=True)
class Setup:
    """What stays fixed for a whole run: the config, the game factory, the device and the sizes read
    once off a one-game probe (the stages below take it instead of a dozen loose arguments)."""

    config: Config
    make_game: GameFactory
    device: torch.device
    checkpoint_path: Path
    num_iterations: int
    sides: np.ndarray
    """side (team) of every seat, ``rollout.seat_sides``"""
    obs_dim: int
    num_actions: int
    num_players: int
    tiles: int
    """tiles in one hidden hand when the run reads the other seats' hands (input of a centralized
    critic, target of the hand head), else 0"""

    @property
    def centralized(self) -> bool:
        return self.config.network.centralized_critic

    @property
    def hand_coef(self) -> float:
        return self.config.network.hand_head_coef

    @property
    def hands_dim(self) -> int:
        """Width of the other seats' hands side by side (0 when the run does not read them)."""
        return (self.num_players - 1) * self.tiles

    @property
    def critic_dim(self) -> int:
        return self.obs_dim + self.hands_dim if self.centralized else self.obs_dim

    @property
    def steps_per_iteration(self) -> int:
        return self.config.ppo.num_envs * self.config.ppo.num_steps

    @property
    def harness_period(self) -> int:
        """Iterations between harness evaluations (``harness_every`` counts evaluations)."""
        return self.config.eval_interval * self.config.harness_every

    def new_network(self) -> ActorCritic:
        """A fresh actor-critic of this run's shape: the learner, and each snapshot the pool loads."""
        return ActorCritic(self.obs_dim, self.num_actions, self.config.network, self.critic_dim,
                           self.hands_dim if self.hand_coef else 0).to(self.device)


@dataclass
class Learner:
    """What training changes and a checkpoint keeps: the network, its optimizer, the opponent pool,
    the counters and the history of per-iteration records."""

    agent: ActorCritic
    optimizer: optim.Optimizer
    pool: OpponentPool
    iteration: int = 0
    global_step: int = 0
    history: list[dict[str, float]] = field(default_factory=list)


@dataclass
class Clock:
    """Wall time, continued across resumes: the checkpoint's seconds plus this process's. Only the time
    budget, ``elapsed_s`` and steps per second read it, never a seeded result."""

    elapsed_before: float
    start_step: int
    start_time: float = field(default_factory=time.time)

    def elapsed(self) -> float:
        return self.elapsed_before + time.time() - self.start_time

    def out_of_time(self, budget: float) -> bool:
        return bool(budget) and self.elapsed() >= budget

    def steps_per_second(self, global_step: int) -> int:
        return int((global_step - self.start_step) / (time.time() - self.start_time))


@dataclass
class RolloutBuffers:
    """Rollout storage, time-major like CleanRL's, all on the run's device."""

    obs: torch.Tensor
    hands: torch.Tensor | None
    """the other seats' hands at each decision (None when the run does not read them)"""
    mask: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    seats: torch.Tensor
    learner: torch.Tensor
    """whether the learner's network took the decision (else a pool opponent did)"""
    rewards: torch.Tensor
    dones: torch.Tensor
    results: torch.Tensor
    """the learner's score (1, 0.5, 0) in a game against a pool opponent that ended at the step, else NaN"""
    opponents: torch.Tensor
    """that game's pool opponent"""

    @classmethod
    def zeros(cls, setup: Setup) -> RolloutBuffers:
        shape, device = (setup.config.ppo.num_steps, setup.config.ppo.num_envs), setup.device
        return cls(
            obs=torch.zeros((*shape, setup.obs_dim), device=device),
            hands=torch.zeros((*shape, setup.hands_dim), device=device) if setup.hands_dim else None,
            mask=torch.zeros((*shape, setup.num_actions), dtype=torch.bool, device=device),
            actions=torch.zeros(shape, dtype=torch.long, device=device),
            logprobs=torch.zeros(shape, device=device),
            values=torch.zeros(shape, device=device),
            seats=torch.zeros(shape, dtype=torch.long, device=device),
            learner=torch.zeros(shape, dtype=torch.bool, device=device),
            rewards=torch.zeros((*shape, setup.num_players), device=device),
            dones=torch.zeros(shape, dtype=torch.bool, device=device),
            results=torch.zeros(shape, device=device),
            opponents=torch.zeros(shape, dtype=torch.long, device=device),
        )

    def pool_results(self) -> tuple[np.ndarray, np.ndarray]:
        """The games against pool opponents that ended in the rollout, in the order they ended:
        ``(opponents, learner scores)``, read back from the device once per rollout."""
        ended = ~self.results.isnan()
        return self.opponents[ended].cpu().numpy(), self.results[ended].cpu().numpy()


@dataclass
class LearnerBatch:
    """The learner's complete transitions of one rollout, flattened: all that the PPO update reads."""

    obs: torch.Tensor
    hands: torch.Tensor | None
    mask: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    values: torch.Tensor

    @property
    def size(self) -> int:
        return self.actions.numel()


class Losses(NamedTuple):
    """One minibatch's losses; the optimizer steps on ``total``."""

    total: torch.Tensor
    policy: torch.Tensor
    value: torch.Tensor
    entropy: torch.Tensor
    hand: torch.Tensor | None
    """binary cross-entropy of the hand head (None without one)"""
    approx_kl: torch.Tensor
    clipfrac: float


@dataclass
class UpdateStats:
    """What CleanRL logs of an update: the last minibatch's losses, every minibatch's clip fraction,
    and the share of the returns' variance the rollout's values explained."""

    last: Losses
    clipfracs: list[float]
    explained_variance: float


def train(config: Config, *, resume: bool = False, overwrite: bool = False,
          make_game: GameFactory | None = None, progress: bool = True) -> TrainResult:
    """Run (or with ``resume``, continue) the training described by ``config``.

    A run that already has a checkpoint is continued only with ``resume`` (same config but for
    ``RESUMABLE_FIELDS``) and started again only with ``overwrite``; otherwise ``ConfigError``."""
    setup = make_setup(config, make_game, resume=resume, overwrite=overwrite)
    hp = config.ppo  # PPO hyper-parameters, read as often as CleanRL's ``args``
    learner = new_learner(setup)
    resumed = resume and setup.checkpoint_path.exists()
    elapsed_before = resume_learner(learner, setup) if resumed else 0.0
    writer = open_run_folder(config, learner.global_step, purge=resumed or overwrite)
    buffers = RolloutBuffers.zeros(setup)

    clock = Clock(elapsed_before, learner.global_step)
    if config.imitation.teacher and not resumed:  # warm start; its time counts against the budget
        imitate_teacher(setup, learner, writer, clock)
    bar = tqdm(total=setup.num_iterations * setup.steps_per_iteration, initial=learner.global_step,
               unit="step", disable=not progress, dynamic_ncols=True)
    while learner.iteration < setup.num_iterations and not clock.out_of_time(config.time_budget_s):
        _, game_seed, torch_seed = iteration_seeds(config.seed, learner.iteration)
        generator = torch.Generator(device=setup.device).manual_seed(torch_seed)
        if hp.anneal_lr:
            learner.optimizer.param_groups[0]["lr"] = (1.0 - learner.iteration / setup.num_iterations) * hp.lr

        # ----- rollout: fresh games, the learner on its seats, pool opponents on the others -----
        scores = collect_rollout(setup, learner, buffers, game_seed, generator)
        if learner.global_step == clock.start_step:
            warn_if_no_game_ended(buffers, config)
        learner.global_step += setup.steps_per_iteration

        # ----- advantages along each seat's own decisions -----
        batch = learner_batch(setup, buffers)

        # ----- PPO update: clipped surrogate, clipped value loss, entropy over legal actions -----
        stats = ppo_update(setup, learner, batch, generator)

        # ----- pool, evaluation, logging, checkpoint -----
        learner.iteration += 1
        record = snapshot_and_evaluate(setup, learner, scores, torch_seed, clock)
        sps = clock.steps_per_second(learner.global_step)
        log_iteration(writer, learner, record, stats, games_vs_pool=len(scores), transitions=batch.size,
                      sps=sps)
        bar.update(setup.steps_per_iteration)
        bar.set_postfix(win=f"{record.get('win_rate', float('nan')):.3f}", sps=sps,
                        eval=f"{history_last(learner.history, 'eval_win_rate_vs_random'):.3f}")
        if learner.iteration % config.checkpoint_interval == 0:
            save_run(setup, learner, clock)
    bar.close()

    save_run(setup, learner, clock)
    plot_learning_curve(learner.history, config.run_path / "learning_curve.png")
    writer.close()
    return TrainResult(config.run_path, learner.iteration, learner.global_step, learner.history)


# ----- setup: run folder, resume, networks, optimizer, pool ---------------------------------------

def make_setup(config: Config, make_game: GameFactory | None, *, resume: bool, overwrite: bool) -> Setup:
    """Check the run can start before anything is built or written: claim the run folder (never over
    a checkpoint unless resumed or overwritten), probe one game for the sizes, refuse a hand-reading
    network on an engine that keeps no hands, and warn of a harness period past the run's end."""
    checkpoint_path = config.run_path / CHECKPOINT_NAME
    if checkpoint_path.exists() and not (resume or overwrite):
        raise ConfigError(f"{checkpoint_path} exists: resume that run (--resume), start it again "
                          "(--overwrite), or choose another name")
    remove_stale_temporaries(checkpoint_path)  # left by a process killed while writing a checkpoint
    device = resolve_device(config.device)
    make_game = make_game or game_factory(config.game, device)
    probe = make_game(1, config.seed)
    sides = seat_sides(config.game)
    rollout_steps = config.ppo.num_envs * config.ppo.num_steps
    # At least one iteration; none at total_steps=0, the imitation stage alone.
    num_iterations = max(1, config.total_steps // rollout_steps) if config.total_steps else 0
    harness_period = config.eval_interval * config.harness_every
    if config.harness_every and num_iterations and harness_period > num_iterations:
        warnings.warn(f"harness_every={config.harness_every} counts evaluations, each eval_interval="
                      f"{config.eval_interval} iterations apart: one harness evaluation every "
                      f"{harness_period} iterations, more than the run's {num_iterations}, so it plays "
                      "only at the end", stacklevel=3)  # points at train()'s caller

    # The other seats' hands, read during training only: input of a centralized critic, target of the
    # hand head (the actor never reads them).
    reads_hands = config.network.centralized_critic or config.network.hand_head_coef
    if reads_hands and not hasattr(probe, "hands"):
        raise ValueError("network.centralized_critic and network.hand_head_coef need a batched engine "
                         f"(public `hands` arrays); {type(probe).__name__} has none")
    return Setup(config, make_game, device, checkpoint_path, num_iterations, sides, probe.obs_dim,
                 probe.num_actions, probe.num_players, num_tiles(config.game) if reads_hands else 0)


def new_learner(setup: Setup) -> Learner:
    """The network initialised from ``config.seed`` (the same start for a run and its resumption,
    which then loads the checkpoint over it), its Adam optimizer and the opponent pool."""
    config = setup.config
    torch.manual_seed(config.seed)  # network initialisation
    agent = setup.new_network()
    if config.network.init_from:
        start_from(agent, load_trained(config.network.init_from, "network.init_from", setup))
    optimizer = optim.Adam(agent.parameters(), lr=config.ppo.lr, eps=1e-5)
    fixed = {name: make_scripted(name, config.game) for name in config.pool.scripted}
    fixed |= {name: frozen_policy(load_trained(name, "pool.frozen", setup)) for name in config.pool.frozen}
    return Learner(agent, optimizer, OpponentPool(config.pool, setup.new_network, fixed))


def load_trained(name: str, field_name: str, setup: Setup) -> ActorCritic:
    """The network of checkpoint ``name`` (``config.checkpoint_path``), refused with ``field_name`` in
    the message unless it reads this run's observations and answers with its actions."""
    path = checkpoint_path(name, field_name)
    policy = PolicyAgent.from_checkpoint(path, device=setup.device)
    trained = (policy.config.game.name, policy.observation_encoder, policy.model.obs_dim, policy.num_actions)
    wanted = (setup.config.game.name, OBSERVATION_ENCODER, setup.obs_dim, setup.num_actions)
    if trained != wanted:
        raise ConfigError(f"{field_name}: {path} plays (game, encoder, inputs, actions) = {trained}, this "
                          f"run {wanted}: it was trained on other rules ({policy.config.game.options})")
    return policy.model


def start_from(agent: ActorCritic, trained: ActorCritic) -> None:
    """Copy ``trained``'s actor into ``agent`` (same layers needed), and its critic when the two critics
    have the same layers (a centralized critic over a plain one starts fresh)."""
    if layer_shapes(agent.actor) != layer_shapes(trained.actor):
        raise ConfigError(f"network.init_from: its actor's layers {layer_shapes(trained.actor)} differ from "
                          f"this run's {layer_shapes(agent.actor)} (network.hidden_sizes)")
    agent.actor.load_state_dict(trained.actor.state_dict())
    if layer_shapes(agent.critic) == layer_shapes(trained.critic):
        agent.critic.load_state_dict(trained.critic.state_dict())


def layer_shapes(module: nn.Module) -> list[tuple[int, ...]]:
    return [tuple(parameter.shape) for parameter in module.parameters()]


def resume_learner(learner: Learner, setup: Setup) -> float:
    """Load the run's checkpoint into ``learner`` once it is known to fit the config; return the wall
    time it had trained for."""
    checkpoint = load_checkpoint(setup.checkpoint_path, setup.device)
    check_resumable(checkpoint, setup.config, setup.checkpoint_path)
    learner.agent.load_state_dict(checkpoint["model"])
    learner.optimizer.load_state_dict(checkpoint["optimizer"])
    learner.pool.load_state_dict(checkpoint["pool"])
    learner.iteration, learner.global_step = checkpoint["iteration"], checkpoint["global_step"]
    learner.history = checkpoint["history"]
    return checkpoint["elapsed_s"]


def open_run_folder(config: Config, global_step: int, *, purge: bool) -> SummaryWriter:
    """Create the run folder with the config it runs under and open its TensorBoard log, which with
    ``purge`` drops the events past ``global_step`` (resumed: those after the checkpoint; overwritten:
    all of them)."""
    run_path = config.run_path
    run_path.mkdir(parents=True, exist_ok=True)
    (run_path / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    return SummaryWriter(str(run_path), purge_step=global_step if purge else None)


def imitate_teacher(setup: Setup, learner: Learner, writer: SummaryWriter, clock: Clock) -> None:
    """Warm start: the network copies ``imitation.teacher`` before self-play (logged as iteration 0
    and checkpointed, so a resumed run does not imitate again)."""
    config = setup.config
    teacher = make_scripted(config.imitation.teacher, config.game)
    figures = imitate(learner.agent, teacher, setup.make_game, config, setup.device,
                      setup.tiles if setup.centralized else 0)
    learner.history.append({"iteration": 0, "global_step": 0, **figures})
    for key, value in figures.items():
        writer.add_scalar(f"imitation/{key.removeprefix('imitation_')}", value, 0)
    save_run(setup, learner, clock)


# ----- rollout ---------------------------------------------------------------------------------------

def warn_if_no_game_ended(buffers: RolloutBuffers, config: Config) -> None:
    """Every rollout starts fresh games, so a game longer than ``ppo.num_steps`` never ends in one:
    what it pays at its end never reaches the learner, and it learns from step rewards alone (none
    in most of these games). A run's first rollout says so rather than train on nothing."""
    if not bool(buffers.dones.any()):
        warnings.warn(f"no game ended in the first rollout's ppo.num_steps={config.ppo.num_steps} steps: "
                      "every rollout starts fresh games, so a game's final reward never reaches the "
                      f"learner; make ppo.num_steps longer than a game of {config.game.name} with "
                      f"{dict(config.game.options)} (a round of four-player Mexican Train takes about "
                      "110 steps, a match of All Fives to 100 about 80)", stacklevel=2)


def collect_rollout(setup: Setup, learner: Learner, buffers: RolloutBuffers, game_seed: int,
                    generator: torch.Generator) -> list[float]:
    """Play ``num_steps`` batched steps of fresh games into ``buffers``: the learner's network acts on
    its seats, each game's pool opponent on the others, and a finished game starts again with a new
    opponent and seating. Every draw comes from ``generator`` and everything stays on the run's device
    (one host read per step: which pool opponents are present). Returns the learner's results in the
    finished games against pool opponents (self-play games score nothing), which the pool then books
    for its sampling weights."""
    hp, device, pool, agent = setup.config.ppo, setup.device, learner.pool, learner.agent
    envs = DeviceGame(setup.make_game(hp.num_envs, game_seed), device)
    sides = torch.as_tensor(setup.sides, device=device)
    batch = envs.reset()
    draw_opponents = pool.sampler(device)
    opponent = draw_opponents(generator, hp.num_envs)
    learner_seats = assign_seats(opponent, sides, generator)
    episode_return = torch.zeros((hp.num_envs, setup.num_players), device=device)
    for step in range(hp.num_steps):
        obs, mask, seat = batch.obs, batch.mask, batch.seat
        learner_turn = learner_seats.gather(1, seat[:, None])[:, 0]
        critic_input = None
        if setup.hands_dim:
            hidden = envs.hidden_hands(seat, setup.tiles)
            buffers.hands[step] = hidden
            if setup.centralized:
                critic_input = torch.cat([obs, hidden], dim=-1)
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(
                obs, mask, generator=generator, critic_input=critic_input
            )
            action = pool.act(opponent.masked_fill(learner_turn, LATEST), obs, mask, generator, action)
        buffers.obs[step], buffers.mask[step], buffers.actions[step] = obs, mask, action
        buffers.logprobs[step], buffers.values[step] = logprob, value
        buffers.seats[step], buffers.learner[step] = seat, learner_turn

        batch = envs.step(action)
        ended = batch.done
        buffers.rewards[step], buffers.dones[step] = batch.rewards, ended
        episode_return += batch.rewards
        scored = ended & (opponent != LATEST)
        buffers.results[step] = learner_score(episode_return, learner_seats).masked_fill(~scored, torch.nan)
        buffers.opponents[step] = opponent
        episode_return.masked_fill_(ended[:, None], 0.0)
        opponent = torch.where(ended, draw_opponents(generator, hp.num_envs), opponent)
        learner_seats = torch.where(ended[:, None], assign_seats(opponent, sides, generator), learner_seats)
    opponents, scores = buffers.pool_results()
    pool.record_results(opponents, scores)
    return scores.tolist()


# ----- advantages -----------------------------------------------------------------------------------

def learner_batch(setup: Setup, buffers: RolloutBuffers) -> LearnerBatch:
    """GAE along each seat's own decisions (``rollout.per_seat_gae``), then the learner's complete
    transitions only: opponents' decisions and those whose return the rollout cut off are dropped."""
    hp = setup.config.ppo
    advantages, returns, valid = per_seat_gae(
        buffers.seats, buffers.learner, buffers.values, buffers.rewards * hp.reward_scale, buffers.dones,
        hp.gamma, hp.gae_lambda,
    )
    keep = valid.reshape(-1).nonzero()[:, 0]
    if keep.numel() == 0:
        raise RuntimeError("no complete learner transition in a rollout: increase ppo.num_steps")
    return LearnerBatch(
        obs=buffers.obs.reshape(-1, setup.obs_dim)[keep],
        hands=buffers.hands.reshape(-1, setup.hands_dim)[keep] if setup.hands_dim else None,
        mask=buffers.mask.reshape(-1, setup.num_actions)[keep],
        actions=buffers.actions.reshape(-1)[keep],
        logprobs=buffers.logprobs.reshape(-1)[keep],
        advantages=advantages.reshape(-1)[keep],
        returns=returns.reshape(-1)[keep],
        values=buffers.values.reshape(-1)[keep],
    )


# ----- PPO update -----------------------------------------------------------------------------------

def ppo_update(setup: Setup, learner: Learner, batch: LearnerBatch,
               generator: torch.Generator) -> UpdateStats:
    """CleanRL's update: ``update_epochs`` passes over ``batch`` in ``num_minibatches`` minibatches
    (shuffled by ``generator``), one clipped gradient step each, stopping early once the approximate KL of
    an epoch's last minibatch passes ``target_kl``."""
    hp, agent, optimizer = setup.config.ppo, learner.agent, learner.optimizer
    minibatch_size = math.ceil(batch.size / hp.num_minibatches)
    clipfracs = []
    for _epoch in range(hp.update_epochs):
        order = torch.randperm(batch.size, generator=generator, device=setup.device)
        for start in range(0, batch.size, minibatch_size):
            losses = minibatch_losses(setup, agent, batch, order[start:start + minibatch_size])
            clipfracs.append(losses.clipfrac)
            optimizer.zero_grad()
            losses.total.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), hp.max_grad_norm)
            optimizer.step()
        if hp.target_kl and losses.approx_kl > hp.target_kl:
            break

    y_pred, y_true = batch.values.cpu().numpy(), batch.returns.cpu().numpy()
    var_y = np.var(y_true)
    explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    return UpdateStats(losses, clipfracs, explained_var)


def minibatch_losses(setup: Setup, agent: ActorCritic, batch: LearnerBatch, mb: torch.Tensor) -> Losses:
    """The loss on the transitions ``mb`` of ``batch``: clipped surrogate with masked logits, value
    loss (clipped when ``clip_vloss``), entropy bonus over the legal actions, and the hand head's
    cross-entropy when the run has one."""
    hp = setup.config.ppo
    mb_critic = torch.cat([batch.obs[mb], batch.hands[mb]], dim=-1) if setup.centralized else batch.obs[mb]
    features = agent.features(batch.obs[mb])  # shared by the policy and the hand head
    dist = agent.policy_from(features, batch.mask[mb])
    newlogprob, entropy = dist.log_prob(batch.actions[mb]), dist.entropy()
    newvalue = agent.get_value(mb_critic)
    logratio = newlogprob - batch.logprobs[mb]
    ratio = logratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > hp.clip_coef).float().mean().item()

    mb_advantages = batch.advantages[mb]
    if hp.norm_adv and mb.numel() > 1:
        mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
    pg_loss1 = -mb_advantages * ratio
    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - hp.clip_coef, 1 + hp.clip_coef)
    pg_loss = torch.max(pg_loss1, pg_loss2).mean()

    mb_returns, mb_values = batch.returns[mb], batch.values[mb]
    if hp.clip_vloss:
        v_loss_unclipped = (newvalue - mb_returns) ** 2
        v_clipped = mb_values + torch.clamp(newvalue - mb_values, -hp.clip_coef, hp.clip_coef)
        v_loss_clipped = (v_clipped - mb_returns) ** 2
        v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
    else:
        v_loss = 0.5 * ((newvalue - mb_returns) ** 2).mean()

    entropy_loss = entropy.mean()
    loss = pg_loss - hp.ent_coef * entropy_loss + v_loss * hp.vf_coef
    hand_loss = None
    if setup.hand_coef:
        hand_loss = nn.functional.binary_cross_entropy_with_logits(agent.hand_head(features), batch.hands[mb])
        loss = loss + setup.hand_coef * hand_loss
    return Losses(loss, pg_loss, v_loss, entropy_loss, hand_loss, approx_kl, clipfrac)


# ----- pool, evaluation, logging, checkpoint ------------------------------------------------------

def snapshot_and_evaluate(setup: Setup, learner: Learner, scores: list[float], torch_seed: int,
                          clock: Clock) -> dict[str, float]:
    """After iteration ``learner.iteration``: add the learner to the pool when a snapshot is due,
    evaluate it when an evaluation is due (and after the last iteration), and append the iteration's
    record to the history. Returns the record."""
    config, iteration, global_step = setup.config, learner.iteration, learner.global_step
    if iteration % config.pool.snapshot_interval == 0:
        learner.pool.add_snapshot(f"step_{global_step}", learner.agent)
    record = {"iteration": iteration, "global_step": global_step}
    if scores:
        record["win_rate"] = float(np.mean(scores))
    last = iteration == setup.num_iterations or clock.out_of_time(config.time_budget_s)
    if iteration % config.eval_interval == 0 or last:
        record["eval_win_rate_vs_random"] = win_rate_vs_random(
            learner.agent, setup.make_game, setup.sides, config.eval_games, torch_seed, setup.device
        )
        if config.harness_every and (iteration % setup.harness_period == 0 or last):
            record.update(harness_evaluation(learner.agent, config, global_step))
    record["elapsed_s"] = clock.elapsed()  # in WALL_CLOCK_KEYS
    learner.history.append(record)
    return record


def log_iteration(writer: SummaryWriter, learner: Learner, record: dict[str, float], stats: UpdateStats, *,
                  games_vs_pool: int, transitions: int, sps: int) -> None:
    """TensorBoard scalars of one iteration, grouped like CleanRL's: ``charts/`` (learning rate, win
    rates, steps per second), ``harness/`` and ``losses/`` (the last minibatch's)."""
    global_step, last = learner.global_step, stats.last
    writer.add_scalar("charts/learning_rate", learner.optimizer.param_groups[0]["lr"], global_step)
    for key, value in record.items():
        if key in ("win_rate", "eval_win_rate_vs_random"):
            writer.add_scalar(f"charts/{key}", value, global_step)
        elif key.startswith("harness_"):
            writer.add_scalar(f"harness/{key.removeprefix('harness_')}", value, global_step)
    writer.add_scalar("charts/games_vs_pool", games_vs_pool, global_step)
    writer.add_scalar("charts/learner_transitions", transitions, global_step)
    writer.add_scalar("charts/SPS", sps, global_step)
    writer.add_scalar("losses/value_loss", last.value.item(), global_step)
    writer.add_scalar("losses/policy_loss", last.policy.item(), global_step)
    writer.add_scalar("losses/entropy", last.entropy.item(), global_step)
    if last.hand is not None:
        writer.add_scalar("losses/hand_bce", last.hand.item(), global_step)
    writer.add_scalar("losses/approx_kl", last.approx_kl.item(), global_step)
    writer.add_scalar("losses/clipfrac", np.mean(stats.clipfracs), global_step)
    writer.add_scalar("losses/explained_variance", stats.explained_variance, global_step)


def save_run(setup: Setup, learner: Learner, clock: Clock) -> None:
    """Checkpoint everything a resumption needs (``last.pt``) and the pool's standings (``pool.json``)."""
    agent, optimizer = learner.agent, learner.optimizer
    save_checkpoint(setup.checkpoint_path, {
        "config": setup.config.to_dict(), "obs_dim": setup.obs_dim, "num_actions": setup.num_actions,
        "observation_encoder": OBSERVATION_ENCODER, "critic_dim": setup.critic_dim,
        "hands_dim": agent.hands_dim, "model": agent.state_dict(), "optimizer": optimizer.state_dict(),
        "iteration": learner.iteration, "global_step": learner.global_step, "elapsed_s": clock.elapsed(),
        "pool": learner.pool.state_dict(), "history": learner.history,
    })
    (setup.config.run_path / "pool.json").write_text(json.dumps(learner.pool.summary(), indent=1))


def history_last(history: list[dict[str, float]], key: str) -> float:
    """Latest value of ``key`` in the run's history (NaN before the first one)."""
    return next((h[key] for h in reversed(history) if key in h), float("nan"))
