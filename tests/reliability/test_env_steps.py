"""Environment calls out of order: the PettingZoo envs of both games and ``SingleAgentEnv``.

A call the environment cannot serve must raise ``RuntimeError`` saying to call ``reset()``, and
``reset()`` must then work as on a fresh environment.

Bad inputs tried:

- ``raw_env()`` before ``reset()``: ``step``, ``last``, ``observe``, ``state``, ``render``,
  ``action_to_text``, ``action_from_text``
- ``raw_env()`` after every agent took its final step: ``step(None)``, ``step(0)``, ``last``
- ``SingleAgentEnv`` before ``reset()``: ``step``
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.envs import dominoes_v0, texas42_v0
from domino_env.wrappers import SingleAgentEnv

RAW_ENVS = {"dominoes": dominoes_v0.raw_env, "texas42": texas42_v0.raw_env}
BEFORE_RESET = {
    "step": lambda env: env.step(0),
    "last": lambda env: env.last(),
    "observe": lambda env: env.observe("player_0"),
    "state": lambda env: env.state(),
    "render": lambda env: env.render(),
    "action_to_text": lambda env: env.action_to_text(0),
    "action_from_text": lambda env: env.action_from_text("pass"),
}


def play_out(env, rng: np.random.Generator) -> None:
    """Every agent to its final step, each live one playing a random legal move."""
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def first_observation(env) -> np.ndarray:
    env.reset(seed=7)
    return env.observe(env.agent_selection)["observation"]


@pytest.mark.parametrize("game", RAW_ENVS)
@pytest.mark.parametrize("method", BEFORE_RESET)
def test_raw_env_before_reset_says_to_reset(game, method):
    env = RAW_ENVS[game](render_mode="ansi")
    with pytest.raises(RuntimeError, match=rf"^{method}\(\) before reset\(\): call reset\(\) first"):
        BEFORE_RESET[method](env)
    np.testing.assert_array_equal(first_observation(env), first_observation(RAW_ENVS[game]()))


AFTER_DONE = {
    "step(None)": ("step", lambda env: env.step(None)),
    "step(0)": ("step", lambda env: env.step(0)),
    "last()": ("last", lambda env: env.last()),
}


@pytest.mark.parametrize("game", RAW_ENVS)
@pytest.mark.parametrize("call", AFTER_DONE)
def test_raw_env_after_every_agent_is_done_says_to_reset(game, call):
    env = RAW_ENVS[game]()
    env.reset(seed=3)
    play_out(env, np.random.default_rng(0))
    assert env.agents == []
    method, make_call = AFTER_DONE[call]
    with pytest.raises(RuntimeError, match=rf"^{method}\(\) after the episode ended .*call reset\(\)"):
        make_call(env)
    np.testing.assert_array_equal(first_observation(env), first_observation(RAW_ENVS[game]()))


@pytest.mark.parametrize("game", RAW_ENVS)
def test_single_agent_env_step_before_reset_says_to_reset(game):
    env = SingleAgentEnv(game, opponents="random")
    with pytest.raises(RuntimeError, match=r"^step\(\) before reset\(\): call reset\(\) first"):
        env.step(0)
    obs, info = env.reset(seed=5)
    fresh_obs, _ = SingleAgentEnv(game, opponents="random").reset(seed=5)
    np.testing.assert_array_equal(obs["observation"], fresh_obs["observation"])
    assert info["action_mask"].any()
