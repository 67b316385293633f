"""The RLlib run config (``training/rllib/config.py``): loaded, overridden and refused without Ray, so a
bad game or option stops ``scripts/train_rllib.py`` before Ray starts. Runs in the main suite."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from domino_env.bots import make_bot
from domino_env_training.config import ConfigError
from domino_env_training.rllib.config import RLlibConfig, load_config, rules_options

ROOT = Path(__file__).resolve().parents[2]
RLLIB_CONFIGS = sorted((ROOT / "configs" / "rllib").glob("*.yaml"))


@pytest.mark.parametrize("path", RLLIB_CONFIGS, ids=lambda p: p.name)
def test_every_shipped_rllib_config_is_valid(path: Path) -> None:
    assert isinstance(load_config(path), RLlibConfig)


def test_overrides_reach_the_game_options_and_rules_leave_out_adapter_options() -> None:
    config = load_config(
        ROOT / "configs" / "rllib" / "block_2p.yaml",
        [
            "game.options.variant=draw",
            "game.options.observation_encoder=compact",
            "ppo.lr=3e-4",
            "num_env_runners=4",
        ],
    )
    assert config.game.options["variant"] == "draw" and config.ppo.lr == 3e-4 and config.num_env_runners == 4
    assert "observation_encoder" not in rules_options(config) and rules_options(config)["variant"] == "draw"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["game.options.variantt=block"],
            r"game.options: unknown dominoes option\(s\) \['variantt'\]; known: ",
        ),
        (["game.name=texas42", "game.options={nelo: low}"], r"unknown texas42 option\(s\) \['nelo'\]"),
        (["game.name=chess"], r"game.name: must be one of \[.*'dominoes'.*'texas42'\], got 'chess'"),
        (["game.options.num_players=9"], "game.options: .*num_players"),
        (["game.options.illegal_action=ignore"], "game.options: .*illegal_action"),
        (["ppo.lrr=1"], r"unknown key 'ppo.lrr' \(did you mean ppo.lr\?\)"),
        (["ppo.minibatch_size=9000"], "ppo.minibatch_size .* must be <= ppo.train_batch_size"),
        (["harness_opponents=[nobody]"], "harness_opponents: unknown bot 'nobody'"),
    ],
)
def test_bad_configs_are_refused_naming_the_field(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(ROOT / "configs" / "rllib" / "block_2p.yaml", overrides)


def test_the_training_script_stops_on_a_bad_option_before_ray_starts() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "train_rllib.py"),
            "--config",
            str(ROOT / "configs" / "rllib" / "block_2p.yaml"),
            "--set",
            "game.options.varient=draw",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "unknown dominoes option(s) ['varient']" in done.stderr


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed here")
def test_the_rllib_bot_without_ray_names_the_extra(tmp_path: Path) -> None:
    importlib.import_module("domino_env_training.rllib.bot")  # what the domino_env.bots entry point imports
    with pytest.raises(ImportError, match=r"pip install 'domino-env\[rllib\]'"):
        make_bot("dominoes", "rllib", path=str(tmp_path))
