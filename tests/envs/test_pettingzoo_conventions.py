"""PettingZoo conventions kept so its tools work with defaults: the state test on ``env()`` (an illegal
move ends the episode with a penalty, as in PettingZoo classic), ``raw_env()`` strict, and the entry
modules importable on PettingZoo releases without a registry (before 1.27)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

from domino_env.games import available_games, get_game
from domino_env.rules.errors import IllegalActionError

# The module, not the function of the same name that ``pettingzoo.test`` exports.
STATE_TEST = importlib.import_module("pettingzoo.test.state_test")


@pytest.mark.parametrize("name", available_games())
def test_pettingzoo_state_test_passes_on_env_with_its_defaults(name: str) -> None:
    """It samples actions without the mask: the first illegal one ends the episode, not the test."""
    env = get_game(name).env()
    STATE_TEST.test_state_space(env)
    STATE_TEST.test_state(env, num_cycles=10)


def _illegal_action(env) -> int:
    mask = env.observe(env.agent_selection)["action_mask"]
    return int(np.flatnonzero(mask == 0)[0])


@pytest.mark.parametrize("name", available_games())
def test_env_penalizes_an_illegal_move_and_raw_env_raises(name: str) -> None:
    game = get_game(name)
    env = game.env()
    env.reset(seed=3)
    offender = env.agent_selection
    env.step(_illegal_action(env))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0 and sum(env.rewards.values()) == -1.0
    assert env.infos[offender]["illegal_action"] is True

    raw = game.raw_env()
    raw.reset(seed=3)
    before = raw.game.to_json()
    with pytest.raises(IllegalActionError):
        raw.step(_illegal_action(raw))
    assert raw.game.to_json() == before and not any(raw.terminations.values())
    # Either default can be overridden.
    assert game.env(illegal_action="raise").unwrapped.illegal_action == "raise"
    assert game.raw_env(illegal_action="penalize").illegal_action == "penalize"


def test_entry_modules_import_and_play_without_pettingzoo_register() -> None:
    """PettingZoo 1.24-1.26 (pyproject's lower bound is 1.24) have no ``pettingzoo.register``."""
    code = (
        "import pettingzoo\n"
        "if hasattr(pettingzoo, 'register'):\n"  # 1.27 has one: take it away
        "    del pettingzoo.register\n"
        "from domino_env import dominoes_v0, texas42_v0\n"
        "from domino_env.envs.base import register_aec\n"
        "assert register_aec('x/Y-v0', 'domino_env.dominoes_v0:env') is False\n"
        "for module in (dominoes_v0, texas42_v0):\n"
        "    env = module.env()\n"
        "    env.reset(seed=0)\n"
        "    env.step(int(env.observe(env.agent_selection)['action_mask'].argmax()))\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
