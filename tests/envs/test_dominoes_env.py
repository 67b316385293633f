"""dominoes_v0 as a PettingZoo environment: API conformance, seeding, hidden information, rewards."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from domino_env import dominoes_v0
from domino_env.encoders.base import get_encoder
from domino_env.rules.errors import IllegalActionError

SETUPS = [
    {"variant": "block", "num_players": 2},
    {"variant": "draw", "num_players": 3},
    {"variant": "draw", "num_players": 4, "teams": True, "episode": "match"},
    {"variant": "block", "num_players": 4, "teams": True},
]


@pytest.mark.parametrize("preset", ["pagat", "boardpan"])
@pytest.mark.parametrize("options", SETUPS)
def test_pettingzoo_api_and_seed(options, preset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict-observation hints every classic env triggers
        api_test(dominoes_v0.env(preset=preset, **options), num_cycles=300)
        seed_test(functools.partial(dominoes_v0.env, preset=preset, **options), num_cycles=100)


def test_contract_constants_and_spaces():
    env = dominoes_v0.raw_env()
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.action_space("player_0").n == 58
    space = env.observation_space("player_1")
    assert space is env.observation_space("player_1")
    assert space["observation"].shape == (132,) and space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8
    env.reset(seed=0)
    obs = env.observe("player_0")
    assert space.contains(obs)


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="PettingZoo < 1.27 has no registry")
def test_registry_make():
    env = pettingzoo.make("aec", dominoes_v0.ENV_ID, variant="draw", num_players=3, preset="boardpan")
    env.reset(seed=1)
    assert env.unwrapped.config.num_players == 3 and env.unwrapped.config.draw_policy == "when_stuck"


def test_different_seeds_give_different_deals():
    env = dominoes_v0.raw_env()
    deals = set()
    for seed in range(20):
        env.reset(seed=seed)
        deals.add(tuple(env.game.hands))
    assert len(deals) == 20
    env.reset(seed=3)
    first = tuple(env.game.hands)
    env.reset(seed=3)
    assert tuple(env.game.hands) == first


def test_exact_deal_and_text_actions():
    env = dominoes_v0.raw_env(preset="boardpan")
    env.reset(options={"deal": {"hands": [["6-6", "0-4"], ["6-5", "1-1"]], "leader": None}})
    assert env.agent_selection == "player_0"  # boardpan: the holder of 6-6 leads
    env.step(env.action_from_text("play 6-6 left"))
    mask = env.observe("player_1")["action_mask"]
    assert [env.action_to_text(int(a)) for a in np.flatnonzero(mask)] == ["play 6-5 left", "play 6-5 right"]


def observe_after(deal: dict, moves: list[str], seat: int, **options) -> np.ndarray:
    env = dominoes_v0.raw_env(**options)
    env.reset(seed=0, options={"deal": deal})
    for move in moves:
        env.step(env.action_from_text(move))
    return env.observe(f"player_{seat}")["observation"]


@pytest.mark.parametrize("options", [{"variant": "draw", "num_players": 3, "preset": "boardpan"},
                                     {"variant": "draw", "num_players": 4, "teams": True}])
def test_observation_unchanged_when_hidden_tiles_swap(options):
    n = options["num_players"]
    hands = [["6-5", "1-1", "2-0"], ["5-2", "0-4", "3-1"], ["3-3", "2-1", "4-1"], ["6-6", "4-4", "0-0"]][:n]
    stock = ["5-5", "6-0", "6-1", "5-4", "4-3"]
    moves = ["play 6-5 left", "play 5-2 left"]
    base = observe_after({"hands": hands, "stock": stock, "leader": 0}, moves, 0, **options)
    # Swap unseen tiles between seat 2's hand and the stock, and within the stock's order.
    swapped = [list(h) for h in hands]
    swapped[2][0], stock2 = "5-5", ["3-3", "4-3", "6-1", "5-4", "6-0"]
    again = observe_after({"hands": swapped, "stock": stock2, "leader": 0}, moves, 0, **options)
    assert np.array_equal(base, again)
    # The seat whose hand changed does see the difference.
    mine = observe_after({"hands": hands, "stock": stock, "leader": 0}, moves, 2, **options)
    assert not np.array_equal(mine, observe_after({"hands": swapped, "stock": stock2, "leader": 0}, moves, 2,
                                                  **options))


def test_open_hands_observation_shows_every_hand():
    deal = {"hands": [["6-5", "1-1"], ["5-2", "0-4"]], "leader": 0}
    encoder = get_encoder("dominoes", "default")
    env = dominoes_v0.raw_env(open_hands=True)
    env.reset(options={"deal": deal})
    start = {s.name: s for s in encoder.slots(env.config)}["all_hands"].start
    obs = env.observe("player_0")["observation"]
    opponent = obs[start + 28:start + 56]
    assert set(np.flatnonzero(opponent)) == {env.game.tiles.index(5, 2), env.game.tiles.index(0, 4)}


def auto(env, obs) -> int:
    return env.unwrapped.game.auto_move()


def run_episode(env, deal=None, policy=auto):
    """Play to the end; returns summed rewards per agent and the last info per agent."""
    env.reset(seed=0, options={"deal": deal} if deal else None)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    infos = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        infos[agent] = info
        if term or trunc:
            env.step(None)
        else:
            env.step(policy(env, obs))
    return totals, infos


def test_rewards_zero_sum_points_and_win_loss():
    deal = {"hands": [["6-6", "2-0"], ["5-4", "2-1"], ["5-5", "4-3"]], "leader": 0}
    # Seat 0 plays 6-6 (the heaviest tile), all pass: blocked, pips 2, 12, 17; pagat: 12 + 17 - 2 = 27.
    totals, infos = run_episode(dominoes_v0.env(num_players=3), deal)
    assert totals == {"player_0": 27.0, "player_1": -13.5, "player_2": -13.5}
    assert all(i == {"round_points": [27, 0, 0], "scores": [27, 0, 0]} for i in infos.values())
    totals, _ = run_episode(dominoes_v0.env(num_players=3, reward="points"), deal)
    assert totals == {"player_0": 27.0, "player_1": 0.0, "player_2": 0.0}
    totals, _ = run_episode(dominoes_v0.env(num_players=3, reward="win_loss"), deal)
    assert totals == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_team_rewards_are_shared():
    deal = {"hands": [["1-1"], ["6-5", "3-2"], ["4-4"], ["6-6"]], "leader": 0}
    totals, infos = run_episode(dominoes_v0.env(num_players=4, teams=True), deal)
    # Opponents hold 6-5, 3-2 and 6-6: 28; the partner's 4-4 does not count.
    assert totals == {"player_0": 28.0, "player_1": -28.0, "player_2": 28.0, "player_3": -28.0}
    assert infos["player_3"]["round_points"] == [28, 0, 28, 0]


def test_match_episode_rewards_each_round_and_sum_to_zero():
    env = dominoes_v0.env(variant="draw", num_players=4, teams=True, preset="boardpan", episode="match",
                          target_score=50)
    rng = np.random.default_rng(0)

    def random_policy(_env, obs) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    totals, infos = run_episode(env, policy=random_policy)
    scores = infos["player_0"]["scores"]
    assert max(scores) >= 50 and abs(sum(totals.values())) < 1e-9
    assert totals["player_0"] == totals["player_2"] == scores[0] - scores[1]


def test_illegal_action_raise_leaves_state_and_penalize_ends_episode():
    deal = {"hands": [["6-5", "1-1"], ["5-2", "0-4"]], "leader": 0}
    env = dominoes_v0.env(illegal_action="raise")  # env() penalizes unless told
    env.reset(options={"deal": deal})
    before = env.unwrapped.game.to_json()
    for bad in (57, 58, -3, "play"):
        with pytest.raises(IllegalActionError, match="legal moves"):
            env.step(bad)
    assert env.unwrapped.game.to_json() == before and env.agent_selection == "player_0"

    env = dominoes_v0.env(illegal_penalty=2.0)
    env.reset(options={"deal": deal})
    env.step(57)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -2.0, "player_1": 0.0}
    assert env.infos["player_1"] == {"illegal_action": True, "offender": 0}


def test_invalid_options_are_refused():
    for options, words in [({"episode": "season"}, "episode"), ({"reward": "fun"}, "reward"),
                           ({"episode": "match", "target_score": None}, "target_score"),
                           ({"num_players": 3, "teams": True}, "teams"),
                           ({"observation_encoder": "nope"}, "unknown dominoes observation encoder")]:
        with pytest.raises(ValueError, match=words):
            dominoes_v0.raw_env(**options)


def test_render_ansi():
    env = dominoes_v0.env(render_mode="ansi")
    env.reset(options={"deal": {"hands": [["6-5", "1-1"], ["5-2", "0-4"]], "leader": 0}})
    env.step(env.unwrapped.action_from_text("play 6-5 left"))
    assert "[5|6]" in env.render()
