"""The RLlib self-play run config: YAML + ``--set`` overrides, validated on load like
``domino_env_training.config``.

The same conventions as the project's trainer (``training/config.py``): every field has a default
and a docstring, a YAML file sets any subset nested the same way, ``--set section.field=value``
overrides any field (value read as YAML), and loading fails with a ``ConfigError`` naming the field.
The game's options are the environment's (``domino_env.integrations.rllib.env_config``): rules,
``episode``, ``reward``, ``observation_encoder``, ``illegal_action``; an unknown game or option is
refused here, before Ray starts. This module does not import Ray.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from domino_env.games import available_games, get_game
from domino_env_training.config import (
    RUN_NAME,
    ConfigError,
    _build,
    _field,
    apply_override,
    check_harness_opponents,
    check_hidden_sizes,
)


@dataclass
class GameSection:
    name: str = _field("dominoes", choices=tuple(available_games()))
    """which game (``domino_env.games``)"""
    options: dict = _field({})
    """keyword options of the game's environment (``dominoes_v0`` / ``texas42_v0``), checked on load"""


@dataclass
class PPOSection:
    lr: float = _field(3e-4, gt=0.0)
    """Adam learning rate"""
    gamma: float = _field(1.0, ge=0.0, le=1.0)
    """discount per decision of a seat (rounds are short and end-scored)"""
    gae_lambda: float = _field(0.95, ge=0.0, le=1.0)
    """GAE lambda"""
    train_batch_size: int = _field(4000, ge=1)
    """env steps per training iteration (all seats' decisions, all env runners)"""
    minibatch_size: int = _field(500, ge=1)
    """decisions per gradient step"""
    num_epochs: int = _field(4, ge=1)
    """passes over each batch"""
    entropy_coeff: float = _field(0.01, ge=0.0)
    """entropy bonus"""
    vf_loss_coeff: float = _field(0.5, ge=0.0)
    """value loss weight (actor and critic have separate layers)"""
    vf_clip_param: float = _field(1000.0, gt=0.0)
    """RLlib clips the value loss at this: keep it above the squared scale of the rewards (pip
    rewards reach tens of points; RLlib's default of 10 would stop the critic learning them)"""
    clip_param: float = _field(0.2, gt=0.0)
    """PPO surrogate clipping"""


@dataclass
class NetworkSection:
    hidden_sizes: list = _field([128, 128])
    """widths of the hidden layers (separate actor and critic towers)"""
    activation: str = _field("tanh", choices=("tanh", "relu"))
    """hidden activation"""


@dataclass
class PoolSection:
    latest_prob: float = _field(0.5, ge=0.0, le=1.0)
    """share of episodes where the learner plays every seat (pure self-play); in the others it plays
    one side and a frozen snapshot plays the rest"""
    snapshot_interval: int = _field(10, ge=1)
    """iterations between copies of the learner into the next snapshot slot"""
    max_snapshots: int = _field(4, ge=0)
    """frozen snapshot slots (0: pure self-play); all start as the untrained policy and are
    overwritten oldest first"""


@dataclass
class RLlibConfig:
    name: str = _field("rllib_run")
    """run name; the run lives in ``run_dir/name``"""
    run_dir: str = _field("runs")
    """parent folder of runs (checkpoint, TensorBoard logs, progress.jsonl)"""
    seed: int = _field(1, ge=0, le=2**31 - 1)
    """seeds the networks and every env runner's envs"""
    total_steps: int = _field(1_000_000, ge=1)
    """env steps (decisions of all seats) to train for"""
    time_budget_s: float = _field(0.0, ge=0.0)
    """stop (and checkpoint) after this many seconds of training (0 = no limit)"""
    num_env_runners: int = _field(0, ge=0)
    """remote EnvRunner actors sampling in parallel (0: the driver samples itself)"""
    num_envs_per_env_runner: int = _field(8, ge=1)
    """games each runner steps one after another per sampling call"""
    num_cpus_per_env_runner: float = _field(1.0, ge=0.0)
    """CPUs each runner reserves (Ray places runners on nodes with free CPUs)"""
    checkpoint_interval: int = _field(10, ge=1)
    """iterations between checkpoints (a final one is always written)"""
    harness_deals: int = _field(200, ge=0)
    """duplicate deals against each harness opponent after training (0: no evaluation)"""
    harness_opponents: list = _field(["random"])
    """bots the final evaluation plays (``make_bot`` specs); empty: the game's ``default_bot``"""
    game: GameSection = field(default_factory=GameSection)
    ppo: PPOSection = field(default_factory=PPOSection)
    network: NetworkSection = field(default_factory=NetworkSection)
    pool: PoolSection = field(default_factory=PoolSection)

    @property
    def run_path(self) -> Path:
        return Path(self.run_dir) / self.name

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


ADAPTER_OPTIONS = frozenset({"observation_encoder", "illegal_action", "illegal_penalty"})
"""environment options that are not rules (the evaluation harness plays the rules only)"""


def rules_options(config: RLlibConfig) -> dict[str, Any]:
    """The game options without the environment's adapter options: what ``GameSetup`` takes."""
    return {k: v for k, v in config.game.options.items() if k not in ADAPTER_OPTIONS}


def _check_game_options(config: RLlibConfig) -> None:
    """Unknown option names (with the known ones) and values the environment refuses, checked by
    building the environment once, without Ray."""
    try:
        get_game(config.game.name).checked_raw_env(**config.game.options)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"game.options: {err}") from None


def _validate(config: RLlibConfig) -> None:
    if not RUN_NAME.fullmatch(config.name):
        raise ConfigError(f"name: {config.name!r} is not a plain run name (letters, digits, '-', '_', '.')")
    _check_game_options(config)
    check_hidden_sizes(config.network.hidden_sizes)
    if config.ppo.minibatch_size > config.ppo.train_batch_size:
        raise ConfigError(
            f"ppo.minibatch_size ({config.ppo.minibatch_size}) must be <= ppo.train_batch_size "
            f"({config.ppo.train_batch_size})"
        )
    check_harness_opponents(config.game.name, config.harness_opponents)


def from_dict(data: dict[str, Any]) -> RLlibConfig:
    """Validated ``RLlibConfig`` from a nested mapping (missing fields keep their defaults)."""
    config = _build(RLlibConfig, data, "")
    _validate(config)
    return config


def load_config(path: str | Path | None = None, overrides: typing.Sequence[str] = ()) -> RLlibConfig:
    """Read a YAML file (or start from defaults), apply ``--set`` overrides, validate."""
    data: dict[str, Any] = {}
    if path is not None:
        data = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of fields")
    for assignment in overrides:
        apply_override(data, assignment)
    return from_dict(data)
