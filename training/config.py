"""One dataclass per training run, read from YAML, validated, overridable from the command line.

Every field has a default and a docstring (CleanRL's ``Args`` habit). A YAML file sets any subset of
fields, nested the same way (``ppo: {lr: 3.0e-4}``). The command line overrides any field with
``--set section.field=value`` (repeatable); the value is read as YAML, so ``--set ppo.lr=3e-4``,
``--set network.hidden_sizes=[128,128]`` and ``--set game.options.variant=draw`` all work.

Validation happens once, on load, and fails loudly with a ``ConfigError`` naming the field: unknown
keys (with a close-match hint), wrong types, out-of-range or non-finite values, unknown choices, game
options the engine refuses, run names that are not plain folder names. ``load_config`` also checks
what depends on this machine (``device: cuda`` needs CUDA); ``from_dict`` does not, so a checkpoint
trained on a GPU still loads on a CPU.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import typing
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from domino_env.bots.batched import batched_bots
from domino_env.evaluation.tasks import EVALUATION_SEEDS, TASKS, baseline_path
from domino_env.games import Game, available_games, get_game


class ConfigError(ValueError):
    """A run configuration that cannot work; the message names the offending field."""


def _field(default: Any, *, ge: float | None = None, gt: float | None = None, le: float | None = None,
           choices: tuple[str, ...] | None = None) -> Any:
    """A dataclass field carrying its validation bounds in ``metadata``."""
    meta = {"ge": ge, "gt": gt, "le": le, "choices": choices}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class GameConfig:
    name: str = _field("dominoes", choices=tuple(available_games()))
    """which game (``domino_env.games``): ``dominoes`` (Block/Draw line games) or ``texas42``"""
    options: dict = _field({})
    """keyword options of the game (docs/rules.md 2.1 / 3.1, ``episode``, ``reward``), passed unchanged to
    the engine; checked when the config loads"""
    backend: str = _field("auto", choices=("auto", "torch", "vector", "fallback"))
    """``torch``: the torch batched engine on the run's device (batches never leave it); ``vector``:
    the numpy batched engine; ``fallback``: N single-game PettingZoo envs behind the same API (slow,
    for games no batched engine plays); ``auto``: torch on a CUDA device, else vector, when one plays
    the game (Texas 88 falls back)"""

    @property
    def record(self) -> Game:
        """The game's registry record."""
        return get_game(self.name)

    @property
    def rules(self) -> Any:
        """The rules config of ``options`` (raises ``ValueError`` when they are not valid)."""
        return self.record.config(**self.options)

    def vector_class(self) -> type | None:
        """The numpy batched engine that plays this game, if any."""
        return self.record.vector_class(self.rules)

    def torch_class(self) -> type | None:
        """The torch batched engine that plays this game, if any (it plays what ``vector_class`` plays)."""
        return self.record.torch_class(self.rules)


@dataclass
class PPOConfig:
    num_envs: int = _field(256, ge=1)
    """games stepped in lockstep"""
    num_steps: int = _field(32, ge=2)
    """engine steps per game per rollout (each step is one decision of one seat)"""
    lr: float = _field(2.5e-4, gt=0.0)
    """Adam learning rate"""
    anneal_lr: bool = _field(True)
    """decay the learning rate linearly to 0 over ``total_steps``"""
    gamma: float = _field(1.0, ge=0.0, le=1.0)
    """discount per decision of a seat (rounds are short and end-scored: 1 keeps the score exact)"""
    gae_lambda: float = _field(0.95, ge=0.0, le=1.0)
    """GAE lambda, applied along each seat's own decisions"""
    num_minibatches: int = _field(4, ge=1)
    """minibatches per epoch"""
    update_epochs: int = _field(4, ge=1)
    """passes over each rollout"""
    norm_adv: bool = _field(True)
    """normalize advantages per minibatch"""
    clip_coef: float = _field(0.2, gt=0.0)
    """PPO surrogate clipping"""
    clip_vloss: bool = _field(True)
    """clip the value loss like the surrogate"""
    ent_coef: float = _field(0.01, ge=0.0)
    """entropy bonus (over legal actions only)"""
    vf_coef: float = _field(0.5, ge=0.0)
    """value loss weight"""
    max_grad_norm: float = _field(0.5, gt=0.0)
    """global gradient clipping"""
    target_kl: float = _field(0.0, ge=0.0)
    """stop the epochs early when the approximate KL exceeds this (0 = never)"""
    reward_scale: float = _field(1.0, gt=0.0)
    """rewards are multiplied by this before GAE (pip scores can be large)"""


@dataclass
class NetworkConfig:
    hidden_sizes: list = _field([256, 256])
    """widths of the hidden layers, the same for actor and critic"""
    activation: str = _field("tanh", choices=("tanh", "relu"))
    """hidden activation"""
    centralized_critic: bool = _field(False)
    """the critic also reads every other seat's hand (training only; the actor never sees them);
    needs a batched engine (``game.backend`` vector or auto)"""
    hand_head_coef: float = _field(0.0, ge=0.0)
    """weight of an auxiliary loss (0: no such head): from the actor's last hidden layer, a head
    predicts which tiles each other seat holds, trained on the true deal (training only; the actor
    still reads the observation alone); needs a batched engine"""
    init_from: str = _field("")
    """a checkpoint (a ``.pt`` file, one under the shipped configs such as ``init/<file>.pt``, or a
    benchmark task's name for its shipped baseline) whose actor
    starts the learner, and its critic too when of the same shape; empty: a fresh network. A best
    response starts from the policy it exploits (``domino_env_training.best_response``)"""


@dataclass
class PoolConfig:
    latest_prob: float = _field(0.5, ge=0.0, le=1.0)
    """share of games where the current learner plays every seat (pure self-play)"""
    snapshot_interval: int = _field(10, ge=1)
    """iterations between snapshots of the learner added to the pool"""
    max_snapshots: int = _field(8, ge=0)
    """snapshots kept; the oldest goes first"""
    scripted: list = _field(["random"])
    """scripted opponents always in the pool: ``random`` (uniform over legal actions), ``greedy``
    (line games: ``bots.line`` greedy computed from the compact observation), ``heuristic``
    (Texas 42: ``bots.texas42`` heuristic on views decoded from it); see ``domino_env_training.scripted``"""
    frozen: list = _field([])
    """trained policies always in the pool, never updated: checkpoints (``.pt`` files, or benchmark task
    names for their shipped baselines) that read this run's observations; each plays its most
    probable legal action, as the ``checkpoint`` bot does. With ``latest_prob: 0`` and nothing else in
    the pool, the learner trains a best response to them"""
    pfsp_power: float = _field(2.0, ge=0.0)
    """opponents are sampled with weight (their win rate against the learner) ** power"""
    result_ema: float = _field(0.05, gt=0.0, le=1.0)
    """weight of each finished game in an opponent's running win rate"""


@dataclass
class ImitationConfig:
    teacher: str = _field("")
    """scripted policy to copy before self-play (a ``pool.scripted`` name, e.g. ``heuristic``);
    empty: no imitation (``domino_env_training.imitation``)"""
    num_envs: int = _field(2048, ge=1)
    """games the teacher plays in lockstep"""
    num_steps: int = _field(64, ge=2)
    """engine steps per game; decisions whose game is unfinished at the end are dropped"""
    epochs: int = _field(4, ge=1)
    """passes over the teacher's decisions"""
    minibatch_size: int = _field(4096, ge=1)
    """decisions per gradient step"""
    lr: float = _field(1e-3, gt=0.0)
    """Adam learning rate of the imitation (PPO's optimizer starts fresh afterwards)"""
    rounds: int = _field(1, ge=1)
    """times to play ``num_envs`` fresh games and train ``epochs`` on them (more positions than one
    round's memory holds)"""
    dagger: bool = _field(False)
    """rounds after the first are played by the network itself, labelled by the teacher (DAgger)"""


@dataclass
class Config:
    name: str = _field("run")
    """run name; the run lives in ``run_dir/name``"""
    run_dir: str = _field("runs")
    """parent folder of runs (checkpoints, TensorBoard logs, pool, learning curve)"""
    seed: int = _field(1, ge=0, le=2**64 - 1)
    """seeds the network, every rollout and every deal: same seed, same run; below ``2**63`` (the seeds
    from there up are the benchmark tasks' evaluation deals, ``domino_env.evaluation.tasks.EVALUATION_SEEDS``;
    past ``2**64 - 1`` torch refuses them)"""
    device: str = _field("auto", choices=("auto", "cpu", "cuda"))
    """where the network runs; ``auto`` picks cuda when present"""
    total_steps: int = _field(1_000_000, ge=0)
    """engine steps (decisions of all seats in all games) to train for; 0: the imitation stage alone
    (``imitation.teacher``), no self-play"""
    time_budget_s: float = _field(0.0, ge=0.0)
    """stop (and checkpoint) after this many seconds of training (0 = no limit)"""
    eval_interval: int = _field(10, ge=1)
    """iterations between evaluations against the random policy"""
    eval_games: int = _field(512, ge=1)
    """games per evaluation"""
    harness_every: int = _field(0, ge=0)
    """every N-th evaluation (and the last) also plays duplicate deals against the bots through
    ``domino_env.evaluation``, with 95% intervals (0 = never; slower than the batched evaluation)"""
    harness_deals: int = _field(200, ge=1)
    """duplicate deals per harness evaluation and opponent"""
    harness_opponents: list = _field([])
    """bots the harness evaluation plays (``make_bot`` specs such as ``search:budget=20``); empty:
    the game's ``default_bot`` (``greedy`` for line games, ``heuristic`` for Texas 42)"""
    harness_workers: int = _field(1, ge=1)
    """processes for the harness evaluation (1: in the training process)"""
    checkpoint_interval: int = _field(10, ge=1)
    """iterations between checkpoints (a final one is always written)"""
    game: GameConfig = field(default_factory=GameConfig)
    """the game and its options"""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """rollout size and PPO hyper-parameters"""
    network: NetworkConfig = field(default_factory=NetworkConfig)
    """actor-critic sizes"""
    pool: PoolConfig = field(default_factory=PoolConfig)
    """opponent pool (prioritized fictitious self-play)"""
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    """optional warm start: copy a scripted teacher before self-play"""

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-compatible dict (stored in checkpoints, loadable with ``weights_only``)."""
        return dataclasses.asdict(self)

    @property
    def run_path(self) -> Path:
        return Path(self.run_dir) / self.name


RUN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
"""A run name is one plain folder name: letters, digits, ``-``, ``_`` and ``.``, not starting with
``.`` (so neither ``..`` nor a hidden folder, and no separator: the run stays inside ``run_dir``)."""


# ----- loading and validation ---------------------------------------------------------------------

def _check_value(path: str, value: Any, annotation: Any, meta: dict) -> Any:
    """Type-check (and for floats, coerce) one leaf value; raise ``ConfigError`` naming ``path``."""
    if annotation is float and isinstance(value, str):
        try:  # PyYAML reads "3e-4" (no dot) as a string
            value = float(value)
        except ValueError:
            pass
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, (int, float)) and not isinstance(value, bool),
        str: isinstance(value, str),
        list: isinstance(value, list),
        dict: isinstance(value, dict),
    }[annotation]
    if not ok:
        raise ConfigError(f"{path}: expected {annotation.__name__}, got {type(value).__name__} {value!r}")
    if annotation is float:
        value = float(value)
        if not math.isfinite(value):
            raise ConfigError(f"{path}: must be a finite number, got {value!r}")
    if meta.get("choices") and value not in meta["choices"]:
        raise ConfigError(f"{path}: must be one of {list(meta['choices'])}, got {value!r}")
    if meta.get("ge") is not None and value < meta["ge"]:
        raise ConfigError(f"{path}: must be >= {meta['ge']}, got {value!r}")
    if meta.get("gt") is not None and value <= meta["gt"]:
        raise ConfigError(f"{path}: must be > {meta['gt']}, got {value!r}")
    if meta.get("le") is not None and value > meta["le"]:
        raise ConfigError(f"{path}: must be <= {meta['le']}, got {value!r}")
    return value


def _build(cls: type, data: Any, prefix: str) -> Any:
    """Instantiate dataclass ``cls`` from a mapping, recursing into nested sections."""
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'}: expected a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if key not in fields:
            close = difflib.get_close_matches(str(key), fields, n=1)
            hint = f" (did you mean {prefix}{close[0]}?)" if close else ""
            raise ConfigError(f"unknown key {path!r}{hint}; valid keys: {sorted(fields)}")
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            kwargs[key] = _build(hint, value, f"{path}.")
        else:
            kwargs[key] = _check_value(path, value, hint, dict(fields[key].metadata))
    return cls(**kwargs)


def scripted_opponents(game: str) -> list[str]:
    """The names ``pool.scripted`` and ``imitation.teacher`` accept for ``game``: the batched bots of
    ``domino_env.bots.batched``, which ``domino_env_training.scripted`` adapts to torch tensors. Named
    here, not there, so that the dependency points one way (``scripted`` reads ``GameConfig``) and the
    config loads without torch."""
    return batched_bots(game)


def checkpoint_path(name: str, field_name: str) -> Path:
    """The checkpoint file ``name`` stands for: a benchmark task's name is its shipped baseline, anything
    else a path to an existing file, here or among the shipped configs (``init/<file>.pt``: a starting
    policy a config names, found from a wheel as from a checkout)."""
    if name in TASKS:
        path = baseline_path(name)
    elif Path(name).is_file():
        path = Path(name)
    else:
        path = shipped_file(name)
    if not path.is_file():
        raise ConfigError(f"{field_name}: {name!r} is neither a checkpoint file nor a benchmark task with "
                          f"a shipped baseline ({', '.join(sorted(TASKS))}); files are looked for from "
                          "here, then under the shipped configs (init/<file>.pt)")
    return path


def check_hidden_sizes(sizes: Any) -> None:
    """``network.hidden_sizes`` must be a non-empty list of positive ints (this trainer's and RLlib's)."""
    if not sizes or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes):
        raise ConfigError(f"network.hidden_sizes: expected a non-empty list of positive ints, got {sizes!r}")


def check_harness_opponents(game: str, specs: Any) -> None:
    """Every ``harness_opponents`` entry must name a bot of ``game`` (this trainer's and RLlib's)."""
    from domino_env.bots import available_bots
    from domino_env.evaluation import AgentSpec

    bots = available_bots(game)
    for spec in specs:
        if not isinstance(spec, str) or AgentSpec.parse(spec).bot not in bots:
            raise ConfigError(f"harness_opponents: unknown bot {spec!r} for {game}; known: {bots}")


def _validate(config: Config, rules: Any) -> None:
    """Checks across fields and inside list values; ``rules`` is the game's rules config."""
    if config.seed >= EVALUATION_SEEDS.start:
        raise ConfigError(f"seed: {config.seed} is reserved for benchmark evaluation (seeds from "
                          f"{EVALUATION_SEEDS.start} up, domino_env.evaluation.tasks); use a smaller seed")
    check_hidden_sizes(config.network.hidden_sizes)
    known = scripted_opponents(config.game.name)
    for name in config.pool.scripted:
        if name not in known:
            raise ConfigError(
                f"pool.scripted: unknown opponent {name!r} for {config.game.name}; known: {list(known)}"
            )
    teacher = config.imitation.teacher
    if config.total_steps == 0 and not teacher:
        raise ConfigError("total_steps: 0 trains only the imitation stage, and imitation.teacher is empty; "
                          "name a teacher or train for 1 step or more")
    if teacher and teacher not in known:
        raise ConfigError(
            f"imitation.teacher: unknown teacher {teacher!r} for {config.game.name}; known: {list(known)}"
        )
    check_harness_opponents(config.game.name, config.harness_opponents)
    refusal = config.game.record.trainable(rules)
    if refusal:
        raise ConfigError(f"game.options: {refusal}")
    backend = config.game.backend
    engine = {"vector": config.game.record.vector_class, "torch": config.game.record.torch_class}.get(backend)
    if engine is not None and engine(rules) is None:
        raise ConfigError(f"game.backend: no {backend} batched engine plays these {config.game.name} options "
                          "(the torch Texas 42 engine: four players only; Mexican Train's engines: not "
                          "double_bonus='any'); use auto or fallback")
    for name in config.pool.frozen:
        checkpoint_path(name, "pool.frozen")
    if config.network.init_from:
        checkpoint_path(config.network.init_from, "network.init_from")
    pool = config.pool
    if pool.latest_prob < 1.0 and not pool.scripted and not pool.frozen and pool.max_snapshots == 0:
        raise ConfigError("pool: no opponents (scripted and frozen empty, max_snapshots 0) "
                          "but latest_prob < 1")


def _check_name_and_game(config: Config) -> Any:
    """The run name is a plain folder name; the engine accepts the game's options: their rules."""
    if not RUN_NAME.fullmatch(config.name):
        raise ConfigError(f"name: {config.name!r} is not a plain run name: use letters, digits, '-', '_' "
                          "and '.', not starting with '.' (the run lives in run_dir/name)")
    try:
        return config.game.rules
    except (TypeError, ValueError) as err:
        raise ConfigError(f"game.options: {err}") from None


def from_dict(data: dict[str, Any]) -> Config:
    """Validated ``Config`` from a nested mapping (missing fields keep their defaults)."""
    config = _build(Config, data, "")
    _validate(config, _check_name_and_game(config))
    return config


def apply_override(data: dict[str, Any], assignment: str) -> None:
    """Apply one ``section.field=value`` assignment (value read as YAML) to a nested mapping."""
    if "=" not in assignment:
        raise ConfigError(f"override {assignment!r}: expected section.field=value")
    dotted, raw = assignment.split("=", 1)
    keys = dotted.strip().split(".")
    node = data
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {assignment!r}: {key!r} is not a section")
    node[keys[-1]] = yaml.safe_load(raw)


def shipped_file(relative: str) -> Path:
    """The path of ``relative`` under the configs shipped with the package (a checkout or a wheel)."""
    return Path(str(resources.files("domino_env_training.configs").joinpath(relative)))


def shipped_configs() -> list[str]:
    """The names of the trainer's run configs shipped with the package (``block_2p``, ``gpu/block_2p``
    ...); the RLlib configs under ``rllib/`` are ``scripts/train_rllib.py``'s, not listed."""
    root = resources.files("domino_env_training.configs")
    names = [f"{entry.name}" for entry in root.iterdir() if entry.name.endswith(".yaml")]
    names += [f"{folder.name}/{entry.name}" for folder in root.iterdir() if folder.is_dir()
              for entry in folder.iterdir() if entry.name.endswith(".yaml")]
    return sorted(name.removesuffix(".yaml") for name in names if not name.startswith("rllib/"))


def config_path(name_or_path: str | Path) -> Path:
    """A YAML file's path: ``name_or_path`` itself when it is a file, else the shipped config of
    that name (``block_2p``, ``gpu/block_2p``), so an installed package trains without a checkout."""
    if Path(name_or_path).is_file():
        return Path(name_or_path)
    name = str(name_or_path).removesuffix(".yaml")
    if name in shipped_configs():
        return shipped_file(f"{name}.yaml")
    raise ConfigError(f"config {str(name_or_path)!r} is neither a file nor a shipped config; "
                      f"shipped: {', '.join(shipped_configs())}")


def load_config(path: str | Path | None = None, overrides: typing.Sequence[str] = ()) -> Config:
    """Read a YAML file or a shipped config by name (or start from defaults), apply ``--set``
    overrides, validate (also for this machine: ``device``)."""
    data: dict[str, Any] = {}
    if path is not None:
        path = config_path(path)
        with open(path) as f:
            data = yaml.safe_load(f) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of fields")
    for assignment in overrides:
        apply_override(data, assignment)
    config = from_dict(data)
    import torch  # here, not at the top: the config alone (evaluation, scripts) needs no torch

    if config.device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda, but torch finds no CUDA device here; use auto or cpu")
    return config


RESUMABLE_FIELDS = frozenset({
    # how long to train: a resumed run may be extended or cut short (the learning-rate schedule then
    # follows the new total_steps, so it no longer equals an uninterrupted run of the old one)
    "total_steps", "time_budget_s",
    # evaluation, logging and checkpoint cadence: they read the network, never change it (every random
    # draw of an iteration is reseeded from (seed, iteration)), so the trained weights stay the same
    "eval_interval", "eval_games", "harness_every", "harness_deals", "harness_opponents",
    "harness_workers", "checkpoint_interval",
    # where the run lives and runs: a moved or renamed run folder, a run continued on another machine
    # (results equal an uninterrupted run only on the same device and torch build)
    "name", "run_dir", "device",
})
"""Config fields that ``--resume`` lets differ from the checkpoint's; any other difference is refused."""


def resume_mismatches(saved: Config, wanted: Config) -> list[str]:
    """``field (checkpoint X, now Y)`` for every field outside ``RESUMABLE_FIELDS`` that differs."""
    old, new = _flatten(saved.to_dict()), _flatten(wanted.to_dict())
    return [f"{key} (checkpoint {old[key]!r}, now {new[key]!r})" for key in old
            if key not in RESUMABLE_FIELDS and old[key] != new[key]]


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted field names -> values; ``game.options`` stays one value (its keys vary)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and f"{prefix}{key}" != "game.options":
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
