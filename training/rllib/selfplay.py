"""Masked PPO self-play on Ray RLlib with a league of frozen snapshots.

- **One shared policy** ``main`` (RLlib's ``ActionMaskingTorchRLModule``: illegal actions get
  ``-inf`` logits, so the learner never samples one) plays every seat it is mapped to; partners of a
  team are always mapped to the same module and the environments pay both their side's reward.
- **League**: ``pool.max_snapshots`` frozen modules ``snapshot_<k>`` (never trained). In a share
  ``pool.latest_prob`` of the episodes ``main`` plays every seat; in the others it plays one random
  side and one random snapshot plays all the other seats (``LeagueMapping``, decided from the
  episode id so every seat of an episode agrees). ``LeagueRefresh`` starts every slot as the
  untrained policy and every ``pool.snapshot_interval`` iterations copies ``main`` into the oldest
  slot, on the learner and on every env runner.
- **Multi-node**: ``train(config, address="auto")`` joins a running cluster (``ray start``); env
  runners go wherever Ray finds free CPUs, on any node.
- **Outputs** in ``run_dir/name``: ``checkpoint/`` (``Algorithm.save_to_path`` plus
  ``domino_env_rllib.json``, which the ``rllib`` bot reads), TensorBoard scalars, ``progress.jsonl``
  (one line per iteration) and, after training, the harness evaluation (``evaluation.md``).
"""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from domino_env.games import get_game
from domino_env.integrations.rllib import ENV_NAMES, env_config
from domino_env_training.rllib.bot import METADATA_NAME
from domino_env_training.rllib.config import RLlibConfig, rules_options

MAIN = "main"


def snapshot_ids(config: RLlibConfig) -> list[str]:
    return [f"snapshot_{k}" for k in range(config.pool.max_snapshots)]


@dataclass(frozen=True)
class LeagueMapping:
    """RLlib's ``policy_mapping_fn``: seat -> module for one episode (module docstring). A class,
    not a closure, so it pickles to remote env runners by value."""

    sides: tuple[int, ...]
    snapshots: tuple[str, ...]
    latest_prob: float
    seed: int

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        draw = zlib.crc32(f"{self.seed}:{episode.id_}".encode())
        if not self.snapshots or (draw % 10_000) / 10_000 < self.latest_prob:
            return MAIN
        num_sides = max(self.sides) + 1
        learner_side = (draw // 10_000) % num_sides
        seat = int(agent_id.rsplit("_", 1)[1])
        if self.sides[seat] == learner_side:
            return MAIN
        return self.snapshots[(draw // (10_000 * num_sides)) % len(self.snapshots)]


@dataclass(frozen=True)
class LeagueRefresh:
    """The league's callbacks: ``fill`` (``on_algorithm_init``) makes every snapshot slot the
    untrained policy; ``refresh`` (``on_train_result``) copies ``main`` into slot
    ``(iteration / interval - 1) mod slots`` every ``interval`` iterations, oldest first."""

    snapshots: tuple[str, ...]
    interval: int

    def fill(self, *, algorithm: Algorithm, **kwargs: Any) -> None:
        copy_main_to(algorithm, list(self.snapshots))

    def refresh(self, *, algorithm: Algorithm, result: dict, **kwargs: Any) -> None:
        if self.snapshots and algorithm.iteration % self.interval == 0:
            copy_main_to(
                algorithm, [self.snapshots[(algorithm.iteration // self.interval - 1) % len(self.snapshots)]]
            )


def copy_main_to(algorithm: Algorithm, modules: list[str]) -> None:
    """Copy the learner's ``main`` weights into ``modules`` on the learner, then on every env runner."""
    if not modules:
        return
    learner_group = algorithm.learner_group
    main_state = learner_group.get_state(components=f"learner/rl_module/{MAIN}")["learner"]["rl_module"][MAIN]
    learner_group.set_state({"learner": {"rl_module": dict.fromkeys(modules, main_state)}})
    algorithm.env_runner_group.sync_weights(
        from_worker_or_learner_group=learner_group, policies=modules, inference_only=True
    )


def algorithm_config(config: RLlibConfig) -> PPOConfig:
    """The RLlib ``PPOConfig`` of a run config (nothing is started)."""
    record = get_game(config.game.name)
    rules = record.config(**rules_options(config))
    sides = record.sides(rules)
    snapshots = snapshot_ids(config)
    league = LeagueRefresh(tuple(snapshots), config.pool.snapshot_interval)
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={
            "fcnet_hiddens": list(config.network.hidden_sizes),
            "fcnet_activation": config.network.activation,
            "vf_share_layers": False,
        },
    )
    ppo = config.ppo
    return (
        PPOConfig()
        .environment(
            ENV_NAMES[config.game.name], env_config=env_config(config.game.name, **config.game.options)
        )
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
            num_cpus_per_env_runner=config.num_cpus_per_env_runner,
        )
        .multi_agent(
            policies={MAIN, *snapshots},
            policy_mapping_fn=LeagueMapping(sides, tuple(snapshots), config.pool.latest_prob, config.seed),
            policies_to_train=[MAIN],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys([MAIN, *snapshots], module))
        )
        .training(
            lr=ppo.lr,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            train_batch_size_per_learner=ppo.train_batch_size,
            minibatch_size=ppo.minibatch_size,
            num_epochs=ppo.num_epochs,
            entropy_coeff=ppo.entropy_coeff,
            vf_loss_coeff=ppo.vf_loss_coeff,
            vf_clip_param=ppo.vf_clip_param,
            clip_param=ppo.clip_param,
        )
        .callbacks(on_algorithm_init=league.fill, on_train_result=league.refresh)
        .debugging(seed=config.seed)
    )


@dataclass
class RunResult:
    run_path: Path
    iterations: int
    env_steps: int
    seconds: float
    checkpoint: Path
    env_runner_nodes: list[str]
    """the Ray node id of every remote env runner (empty when the driver samples itself)"""


def _flat_scalars(result: dict, prefix: str = "") -> dict[str, float]:
    """Every numeric leaf of RLlib's nested result dict, as ``a/b/c`` -> float."""
    flat: dict[str, float] = {}
    for key, value in result.items():
        if isinstance(value, dict):
            flat.update(_flat_scalars(value, f"{prefix}{key}/"))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[f"{prefix}{key}"] = float(value)
    return flat


def save_checkpoint(algorithm: Algorithm, config: RLlibConfig) -> Path:
    """``run_path/checkpoint``: RLlib's checkpoint plus the metadata the ``rllib`` bot reads."""
    path = (config.run_path / "checkpoint").resolve()
    algorithm.save_to_path(str(path))
    (path / METADATA_NAME).write_text(
        json.dumps({"game": config.game.name, "options": config.game.options, "module": MAIN}, indent=1)
    )
    return path


def train(config: RLlibConfig, *, address: str | None = None, progress: bool = True) -> RunResult:
    """Train ``config``; ``address``: join that Ray cluster (``"auto"``: the one ``ray start`` began
    on this machine) instead of starting a local one. Stops at ``total_steps`` env steps or
    ``time_budget_s``, checkpoints every ``checkpoint_interval`` iterations and at the end."""
    from torch.utils.tensorboard import SummaryWriter

    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    run_path = config.run_path
    run_path.mkdir(parents=True, exist_ok=True)
    (run_path / "config.json").write_text(json.dumps(config.to_dict(), indent=1))
    algorithm = algorithm_config(config).build_algo()
    runner_nodes = algorithm.env_runner_group.foreach_env_runner(
        lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )
    writer = SummaryWriter(str(run_path))
    start = time.monotonic()
    env_steps = 0
    try:
        with open(run_path / "progress.jsonl", "a") as log:
            while env_steps < config.total_steps and not (
                config.time_budget_s and time.monotonic() - start >= config.time_budget_s
            ):
                result = algorithm.train()
                env_steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
                scalars = _flat_scalars(result)
                for key, value in scalars.items():
                    writer.add_scalar(key, value, env_steps)
                line = {
                    "iteration": algorithm.iteration,
                    "env_steps": env_steps,
                    "seconds": round(time.monotonic() - start, 1),
                    "episode_return_mean": scalars.get("env_runners/episode_return_mean"),
                }
                log.write(json.dumps(line) + "\n")
                if progress:
                    print(json.dumps(line), flush=True)
                if algorithm.iteration % config.checkpoint_interval == 0:
                    save_checkpoint(algorithm, config)
        checkpoint = save_checkpoint(algorithm, config)
        seconds = time.monotonic() - start
        return RunResult(run_path, algorithm.iteration, env_steps, seconds, checkpoint, runner_nodes)
    finally:
        writer.close()
        algorithm.stop()
        if started_ray:
            ray.shutdown()


def evaluate_checkpoint(config: RLlibConfig, checkpoint: Path, workers: int = 1, seed: int = 0) -> Any:
    """The harness (``domino_env.evaluation``) on duplicate deals: the checkpoint's ``rllib`` bot
    against ``harness_opponents`` (the game's ``default_bot`` when empty), ``harness_deals`` deals."""
    from domino_env.evaluation import AgentSpec, GameSetup, evaluate

    opponents = config.harness_opponents or [get_game(config.game.name).default_bot]
    agents = [AgentSpec("rllib", "rllib", {"path": str(checkpoint)}), *map(AgentSpec.parse, opponents)]
    return evaluate(
        GameSetup(config.game.name, rules_options(config)),
        agents,
        config.harness_deals,
        seed=seed,
        workers=workers,
    )
