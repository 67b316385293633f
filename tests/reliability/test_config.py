"""Run configurations under bad input: ``training/config.py`` and ``domino-train``'s error line.

Bad inputs tried:

- ``game.options`` the engine refuses: ``num_players=9`` (line game and Texas 42), an unknown option, a
  bad ``variant``, ``reward`` or ``episode``
- non-finite floats: ``.nan``, ``.inf`` and ``-.inf`` in every float field (``ppo.lr`` among them), and
  the strings ``nan`` / ``inf``
- seeds outside what torch accepts: ``2**64``, ``2**70``, ``-1``
- ``device: cuda`` on a machine without CUDA (refused at load; a checkpoint's config with it still
  reads, so a GPU-trained checkpoint loads on a CPU)
- run names that leave ``run_dir`` or are no name: ``../escaped``, ``a/b``, ``..``, ``.hidden``, ``''``,
  ``' '``, a name with a space or a backslash
- the command line: ``--set game.options.num_players=9`` and ``--set ppo.lr=.inf`` end with the
  trainer's usual ``error:`` line (exit 2), before any run folder is made
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from domino_env_training.config import Config, ConfigError, from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]
TINY_RUN = [f"--set={assignment}" for assignment in ("total_steps=1", "ppo.num_envs=2", "ppo.num_steps=2",
                                                     "eval_games=1", "network.hidden_sizes=[4]")]
"""Were a bad value accepted, the command line test would train this long (one tiny iteration)."""


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["game.options.num_players=9"], "game.options: num_players must be 2, 3 or 4, got 9"),
        (["game.name=texas42", "game.options.num_players=9"],
         "game.options: Texas 42 is played by 3 or 4 players"),
        (["game.options.colour=red"], r"game.options: unknown line-game option\(s\) \['colour'\]; known:"),
        (["game.name=texas42", "game.options.colour=red"], r"unknown Texas 42 option\(s\) \['colour'\]"),
        (["game.options.variant=chess"], "game.options: variant must be one of"),
        (["game.options.reward=money"], "game.options: reward must be one of"),
        (["game.name=texas42", "game.options.reward=points"], "game.options: reward must be one of"),
        (["game.options.episode=forever"], "game.options: episode must be one of"),
    ],
)
def test_game_options_are_checked_when_the_config_loads(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def float_fields() -> list[str]:
    """Dotted names of every float field of ``Config``, nested sections included."""
    names = []

    def walk(cls: type, prefix: str) -> None:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if dataclasses.is_dataclass(hints[f.name]):
                walk(hints[f.name], f"{prefix}{f.name}.")
            elif hints[f.name] is float:
                names.append(f"{prefix}{f.name}")

    walk(Config, "")
    return names


def test_there_are_float_fields_to_try():
    assert {"ppo.lr", "time_budget_s", "imitation.lr", "pool.pfsp_power"} <= set(float_fields())


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "nan", "inf"])
@pytest.mark.parametrize("name", float_fields())
def test_float_fields_refuse_non_finite_values(name, value):
    with pytest.raises(ConfigError, match=rf"{name}: must be a finite number, got -?(nan|inf)"):
        load_config(None, [f"{name}={value}"])


@pytest.mark.parametrize(("seed", "message"),
                         [(2**64, "must be <="), (2**70, "must be <="), (-1, "must be >= 0")])
def test_seeds_outside_what_torch_accepts_are_refused(seed, message):
    with pytest.raises(ConfigError, match=f"seed: {message}"):
        from_dict({"seed": seed})


def test_the_largest_seed_works_where_seeds_are_used():
    import numpy as np
    import torch

    from domino_env_training.ppo import iteration_seeds

    seed = from_dict({"seed": 2**63 - 1}).seed  # the largest: from 2**63 up, evaluation seeds
    torch.manual_seed(seed)
    iteration_seeds(seed, 3)
    np.random.default_rng([seed, 0, 1, 2])
    torch.manual_seed(1)


def test_cuda_without_cuda_is_refused_at_load(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ConfigError, match="device: cuda, but torch finds no CUDA device here; use auto or"):
        load_config(None, ["device=cuda"])
    assert from_dict({"device": "cuda"}).device == "cuda"  # a GPU run's checkpoint config still reads
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert load_config(None, ["device=cuda"]).device == "cuda"


@pytest.mark.parametrize("name", ["../escaped", "a/b", "..", ".", ".hidden", "", " ", "my run", "a\\b",
                                  "/abs"])
def test_run_names_must_be_plain_folder_names(name):
    with pytest.raises(ConfigError, match=r"name: .* is not a plain run name: use letters, digits, '-', '_' "
                                          r"and '\.', not starting with '\.'"):
        from_dict({"name": name})


@pytest.mark.parametrize("name", ["run", "block_2p", "texas42-v2.1", "_x", "7"])
def test_plain_run_names_are_accepted(name):
    assert from_dict({"name": name}).run_path.name == name


@pytest.mark.parametrize(
    ("assignment", "message"),
    [("game.options.num_players=9", "error: game.options: num_players must be 2, 3 or 4, got 9"),
     ("ppo.lr=.inf", "error: ppo.lr: must be a finite number, got inf"),
     ("name=../escaped", "error: name: '../escaped' is not a plain run name")],
)
def test_the_command_line_reports_bad_configs_on_one_error_line(tmp_path, capsys, assignment, message):
    from domino_env_training.cli import main
    with pytest.raises(SystemExit) as exit_:
        main(["--set", f"run_dir={tmp_path / 'runs'}", *TINY_RUN, "--set", assignment, "--no-progress"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists() and not (tmp_path / "escaped").exists()
