"""fives_v0 as a PettingZoo environment: API, seeding, rendering, the state, exact rewards of the worked
examples (RULES-new-games.md 2.6 A1, 4.3 F2), dead-agent steps and refused options."""

from __future__ import annotations

import functools
import importlib
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from domino_env import fives_v0
from domino_env.rules.errors import IllegalActionError

STATE_TEST = importlib.import_module("pettingzoo.test.state_test")
SETUPS = [
    {},
    {"num_players": 3, "preset": "classic", "episode": "hand"},
    {"num_players": 4, "target_score": 40},
    {"variant": "fives_and_threes"},
    {"variant": "fives_and_threes", "num_players": 4, "teams": False, "episode": "hand"},
]
# A1: seat 0 leads the spinner 5-5; the moves and seat 0's zero-sum reward after each.
A1_DEAL = {"hands": [["5-5", "5-4", "5-0", "5-1", "6-6"], ["5-3", "3-6", "4-4", "2-2", "1-2"]], "leader": 0}
A1_MOVES = [
    ("play 5-5 west", 10), ("play 3-5 east", 0), ("play 4-5 west", 0), ("play 3-6 east", -10),
    ("play 0-5 north", 10), ("play 4-4 west", 0), ("play 1-5 south", 15),
]


@pytest.mark.parametrize("options", SETUPS, ids=str)
def test_pettingzoo_api_seed_and_render(options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict-observation hints every classic env triggers
        api_test(fives_v0.env(**options), num_cycles=200)
        seed_test(functools.partial(fives_v0.env, **options), num_cycles=50)
        render_test(functools.partial(fives_v0.env, **options))


@pytest.mark.parametrize("variant", ["all_fives", "fives_and_threes"])
def test_pettingzoo_state_test(variant):
    env = fives_v0.env(variant=variant)
    STATE_TEST.test_state_space(env)
    STATE_TEST.test_state(env, num_cycles=10)


def test_contract_constants_and_spaces():
    for variant, actions, size in (("all_fives", 114, 331), ("fives_and_threes", 58, 245)):
        env = fives_v0.raw_env(variant=variant)
        assert env.possible_agents == ["player_0", "player_1"]
        assert env.action_space("player_0").n == actions
        space = env.observation_space("player_1")
        assert space is env.observation_space("player_1")
        assert space["observation"].shape == (size,) and space["observation"].dtype == np.float32
        assert space["action_mask"].dtype == np.int8
        env.reset(seed=0)
        obs = env.observe("player_0")
        assert space.contains(obs) and obs["action_mask"].dtype == np.int8


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="PettingZoo < 1.27 has no registry")
def test_registry_make():
    env = pettingzoo.make("aec", fives_v0.ENV_ID, variant="fives_and_threes", num_players=4)
    env.reset(seed=1)
    assert env.unwrapped.config.teams and env.unwrapped.num_actions == 58


def test_different_seeds_give_different_deals_and_a_seed_repeats():
    env = fives_v0.raw_env()
    deals = set()
    for seed in range(20):
        env.reset(seed=seed)
        deals.add(tuple(env.game.hands))
    assert len(deals) == 20
    env.reset(seed=3)
    first = (tuple(env.game.hands), tuple(env.game.stock))
    env.reset(seed=3)
    assert (tuple(env.game.hands), tuple(env.game.stock)) == first


@pytest.mark.parametrize("reward", ["zero_sum", "points"])
def test_worked_example_a1_rewards_every_scoring_play(reward):
    env = fives_v0.raw_env(episode="hand", reward=reward)
    env.reset(options={"deal": A1_DEAL})
    for move, points in A1_MOVES:
        env.step(env.action_from_text(move))
        got = [env.rewards["player_0"], env.rewards["player_1"]]
        if reward == "zero_sum":
            assert got == [points, -points], move
        else:
            assert got == [max(points, 0), max(-points, 0)], move
    assert env.game.scores == [35, 10]
    assert env.game.open_ends() == (4, 6, 0, 1) and env.game.count == 15


def test_worked_example_f2_in_fives_and_threes():
    env = fives_v0.raw_env(variant="fives_and_threes", episode="hand", reward="points")
    env.reset(options={"deal": {"hands": [["6-6", "1-2"], ["6-3", "0-1"]], "leader": 0}})
    env.step(env.action_from_text("play 6-6 left"))
    assert env.rewards == {"player_0": 4.0, "player_1": 0.0}
    env.step(env.action_from_text("play 6-3 left"))
    assert env.rewards == {"player_0": 0.0, "player_1": 8.0}


def test_blocked_hand_infos_win_loss_and_dead_steps():
    """A2-style blocked hand (A4's rule with two players): both pass, the lowest hand takes the
    other's pips rounded; win_loss pays only at the end; every agent then leaves through step(None)."""
    env = fives_v0.raw_env(episode="hand", reward="win_loss")
    env.reset(options={"deal": {"hands": [["5-5", "1-2"], ["5-0", "3-4"]], "leader": 0}})
    assert env.infos["player_0"] == {"hand_points": [0, 0], "scores": [0, 0]}
    for move in ("play 5-5 west", "play 0-5 east", "pass"):  # counts 10 and 2x5 + 0 = 10
        env.step(env.action_from_text(move))
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0} and not env.game.is_terminal
    env.step(env.action_from_text("pass"))  # blocked: pips 3 v 7, seat 0 scores R(7) = 5
    assert env.game.results[-1].kind == "blocked" and env.game.scores == [15, 10]
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_1"] == {"hand_points": [15, 10], "scores": [15, 10]}
    assert all(env.terminations.values())
    with pytest.raises(ValueError):
        env.step(0)  # a finished agent leaves only through step(None)
    while env.agents:
        env.step(None)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(None)


def test_illegal_moves_raise_or_penalize():
    raw = fives_v0.raw_env()
    raw.reset(options={"deal": A1_DEAL})
    with pytest.raises(IllegalActionError, match="legal moves"):
        raw.step(raw.action_from_text("play 5-5 east"))  # the lead goes on end 0 (west)
    env = fives_v0.env()
    env.reset(options={"deal": A1_DEAL})
    env.step(113)  # pass while holding tiles
    assert all(env.terminations.values()) and env.rewards["player_0"] == -1.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"variant": "five_up"}, "variant must be one of"),
        ({"teams": True}, "teams need exactly 4 players"),
        ({"episode": "round"}, "episode must be one of"),
        ({"reward": "marks"}, "reward must be one of"),
        ({"observation_encoder": "pixels"}, "unknown fives observation encoder"),
        ({"target_score": None}, "match episode needs a target_score"),
        ({"variant": "fives_and_threes", "draw_policy": "may_draw"}, "option of variant='all_fives'"),
        ({"hand_size": 15}, "n \\* hand_size <= 28"),
        ({"render_mode": "video"}, "render_mode must be one of"),
    ],
)
def test_bad_options_are_refused_clearly(options, message):
    with pytest.raises(ValueError, match=message):
        fives_v0.raw_env(**options)


def test_render_ansi_and_rgb_frames():
    env = fives_v0.raw_env(render_mode="ansi", episode="hand")
    env.reset(options={"deal": A1_DEAL})
    for move, _points in A1_MOVES[:3]:
        env.step(env.action_from_text(move))
    text = env.render()
    assert "{5|5}" in text and "count 7" in text and "N -" in text
    frames = fives_v0.raw_env(render_mode="rgb_array", num_players=4)
    frames.reset(seed=2)
    first = frames.render()
    assert first.dtype == np.uint8 and first.shape[2] == 3
    frames.step(int(np.flatnonzero(frames.observe(frames.agent_selection)["action_mask"])[0]))
    assert frames.render().shape == first.shape and not np.array_equal(frames.render(), first)
