"""The mexican_train_v0 PettingZoo environment: API conformance for 2-8 players, seeding, rendering,
the state, a scripted round with exact rewards, dead steps, bad options, hidden information."""

from __future__ import annotations

import functools
import importlib
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from domino_env import mexican_train_v0
from domino_env.encoders.base import available_encoders, get_encoder
from domino_env.encoders.mexican_train_compact import known_voids
from domino_env.frontends.render import mexican_train_frame_height
from domino_env.rules.mexican_train import NUM_TILES, TILES

STATE_TEST = importlib.import_module("pettingzoo.test.state_test")
PLAYERS = [2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_api_seed_render_and_state(num_players: int) -> None:
    make = functools.partial(mexican_train_v0.env, num_players=num_players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict-observation hints every classic env triggers
        api_test(make(), num_cycles=100)
        seed_test(make, num_cycles=30)
        render_test(make)
    env = make()
    STATE_TEST.test_state_space(env)
    STATE_TEST.test_state(env, num_cycles=10)


def test_seeds_deal_differently_and_the_same_seed_repeats() -> None:
    def first_obs(seed: int) -> bytes:
        env = mexican_train_v0.raw_env()
        env.reset(seed=seed)
        return env.observe(env.agent_selection)["observation"].tobytes()

    assert first_obs(3) == first_obs(3)
    assert len({first_obs(seed) for seed in range(5)}) > 1


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="PettingZoo < 1.27 has no registry")
def test_registered_in_pettingzoo() -> None:
    env = pettingzoo.make("aec", mexican_train_v0.ENV_ID, num_players=6, preset="cardinal")
    assert env.unwrapped.config.num_players == 6 and env.unwrapped.config.hand_size == 12


@pytest.mark.parametrize("num_players", PLAYERS)
def test_spaces_masks_and_frames(num_players: int) -> None:
    env = mexican_train_v0.raw_env(num_players=num_players, render_mode="rgb_array")
    env.reset(seed=1)
    actions = NUM_TILES * (num_players + 1) + 3
    assert env.action_space("player_0").n == actions
    space = env.observation_space("player_1")
    assert space is env.observation_space("player_1")
    for agent in env.agents:
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["observation"] in space["observation"]
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (actions,)
        assert obs["action_mask"].any() == (agent == env.agent_selection)
    frame = env.render()
    assert frame.shape == (mexican_train_frame_height(num_players), 960, 3) and frame.dtype == np.uint8


# Seat 0 holds one tile that fits its own train: it goes out at once; seat 1 keeps 5-6 and 0-1.
DEAL = {"hands": [["3-12"], ["5-6", "0-1"]], "boneyard": ["2-2", "4-4"], "first_player": 0}


@pytest.mark.parametrize(("reward", "expected"), [
    ("zero_sum", {"player_0": 12.0, "player_1": -12.0}),
    ("penalty", {"player_0": 0.0, "player_1": -12.0}),
    ("win_loss", {"player_0": 1.0, "player_1": -1.0}),
])
def test_a_scripted_round_pays_exact_rewards(reward: str, expected: dict) -> None:
    env = mexican_train_v0.raw_env(num_players=2, reward=reward, render_mode="ansi")
    env.reset(seed=0, options={"deal": DEAL})
    assert env.agent_selection == "player_0"
    legal = np.flatnonzero(env.observe("player_0")["action_mask"])
    assert [env.action_to_text(int(a)) for a in legal] == ["play 3-12 own"]
    env.step(env.action_from_text("play 3-12 own"))
    assert env.rewards == expected and all(env.terminations.values())
    assert env.infos["player_1"] == {"round_points": [0, 12], "scores": [0, 12]}
    assert "went out" in env.render()
    # Every agent leaves through step(None), each collecting its reward once.
    collected = {}
    for agent in env.agent_iter():
        _obs, reward_now, terminated, _truncated, _info = env.last()
        assert terminated and not env.observe(agent)["action_mask"].any()
        collected[agent] = reward_now
        env.step(None)
    assert collected == expected and env.agents == []
    with pytest.raises(RuntimeError, match="reset"):
        env.step(None)


def test_a_match_reports_each_round_and_ends_after_its_rounds() -> None:
    env = mexican_train_v0.raw_env(num_players=3, episode="match", rounds=2, reward="penalty")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    rounds, totals = 0, np.zeros(3)
    for agent in env.agent_iter():
        obs, _r, terminated, truncated, _info = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if env.agents and any(env.rewards.values()):
            rounds += 1
            totals += list(env.rewards.values())
        del agent
    assert rounds == 2 and env.game.is_terminal
    assert list(-totals) == list(env.game.scores)


@pytest.mark.parametrize(("options", "message"), [
    ({"num_players": 9}, "2 to 8 players"),
    ({"num_players": 1}, "2 to 8 players"),
    ({"reward": "points"}, "reward"),
    ({"episode": "game"}, "episode"),
    ({"rounds": 14}, "rounds"),
    ({"preset": "fundex"}, "preset"),
    ({"hand_size": 12, "num_players": 8}, "tiles"),
    ({"observation_encoder": "nope"}, "available"),
    ({"render_mode": "video"}, "render_mode"),
    ({"engine_source": "holder", "first_player": "rotate"}, "does not go with"),
])
def test_bad_options_are_refused_clearly(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mexican_train_v0.raw_env(**options)


def test_bad_deals_are_refused_clearly() -> None:
    env = mexican_train_v0.raw_env(num_players=2)
    with pytest.raises(ValueError, match="twice"):
        env.reset(options={"deal": {"hands": [["3-12"], ["3-12"]]}})
    with pytest.raises(ValueError, match="2 hands"):
        env.reset(options={"deal": {"hands": [["3-12"]]}})


@pytest.mark.parametrize("name", ["default", "compact", "history"])
def test_encoders_fit_their_space_for_every_player_count(name: str) -> None:
    for n in (2, 8):
        env = mexican_train_v0.raw_env(num_players=n, observation_encoder=name, open_hands=name == "default")
        env.reset(seed=n)
        rng = np.random.default_rng(n)
        for _ in range(60):
            obs = env.observe(env.agent_selection)
            assert obs["observation"] in env.observation_space(env.agent_selection)["observation"]
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if env.game.is_terminal:
                break


def test_compact_voids_are_what_a_pass_proves() -> None:
    """Seat 0 cannot play on 12 (its own train's end): it draws 2-2, which does not fit, and passes."""
    deal = {"hands": [["5-6"], ["3-12", "0-1"]], "boneyard": ["2-2", "4-4"], "first_player": 0}
    env = mexican_train_v0.raw_env(num_players=2, observation_encoder="compact")
    env.reset(seed=0, options={"deal": deal})
    env.step(env.action_from_text("draw"))
    env.step(env.action_from_text("pass"))
    view = env.game.view(1)
    assert known_voids(view) == [1 << 12, 0]
    encoder = get_encoder("mexican_train", "compact")
    at = {s.name: s.start for s in encoder.slots(view.config)}
    obs = env.observe("player_1")["observation"]
    assert obs[at["voids"]:at["voids"] + 13].tolist() == [0.0] * 12 + [1.0]
    unknown = obs[at["unknown"]:at["unknown"] + NUM_TILES]
    assert unknown[TILES.parse("5-6")] == 1 and unknown[TILES.parse("3-12")] == 0


def test_every_encoder_is_registered() -> None:
    assert available_encoders("mexican_train") == ["compact", "default", "history"]
