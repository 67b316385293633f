"""The texas42_v0 PettingZoo environment: API conformance, seeding, rewards, infos, hidden information."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from domino_env import texas42_v0
from domino_env.encoders.base import get_encoder
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.texas42 import NUM_ACTIONS, TILES, Texas42Config, Texas42Game
from domino_env.rules.tiles import iter_bits

EVERY_OPTION = {
    "nello": "own_suit",
    "plunge": True,
    "sevens": True,
    "forced_bid": True,
    "follow_me_doubles": "own_suit",
    "stop_when_decided": False,
    "episode": "game",
    "target_marks": 3,
    "open_hands": True,
}
DEAL_X = [
    ["5-4", "6-6", "6-5", "6-4", "6-2", "6-1", "6-0"],
    ["5-3", "4-4", "4-3", "4-2", "4-1", "4-0", "2-2"],
    ["5-5", "5-2", "5-1", "5-0", "3-3", "3-2", "6-3"],
    ["3-1", "3-0", "2-1", "2-0", "1-1", "1-0", "0-0"],
]


@pytest.mark.parametrize("options", [{}, EVERY_OPTION], ids=["standard", "every option"])
def test_pettingzoo_api_and_seed(options: dict) -> None:
    api_test(texas42_v0.env(**options), num_cycles=300)
    seed_test(lambda: texas42_v0.env(**options), num_cycles=300)


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="PettingZoo < 1.27 has no registry")
def test_registered_in_pettingzoo() -> None:
    env = pettingzoo.make("aec", texas42_v0.ENV_ID, nello="low")
    assert env.unwrapped.config.nello == "low"


def test_spaces_and_masks() -> None:
    env = texas42_v0.raw_env()
    env.reset(seed=1)
    assert env.action_space("player_0").n == NUM_ACTIONS == 63
    for agent in env.agents:
        obs = env.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (430,)
        assert obs["action_mask"].dtype == np.int8
        assert obs["action_mask"].any() == (agent == env.agent_selection)


def random_step(env, rng: np.random.Generator) -> None:
    obs, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        env.step(None)
    else:
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))


def test_different_seeds_deal_differently_and_the_same_seed_repeats() -> None:
    env = texas42_v0.raw_env()
    deals = []
    for seed in (0, 1, 2, 0):
        env.reset(seed=seed)
        deals.append((env.unwrapped.game.dealt, env.unwrapped.game.shaker))
    assert len(set(deals)) == 3 and deals[0] == deals[3]


def test_exact_deal_and_hand_result_infos_and_zero_sum_rewards() -> None:
    env = texas42_v0.raw_env(stop_when_decided=False)
    env.reset(seed=0, options={"deal": {"hands": DEAL_X, "shaker": 3}})
    assert env.agent_selection == "player_0"
    hand = env.observe("player_0")["observation"][:28]
    assert {TILES.name(t) for t in np.flatnonzero(hand)} == {TILES.name(TILES.parse(t)) for t in DEAL_X[0]}
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        assert not any(env.rewards.values())  # a hand episode pays only at its end
        random_step(env, rng)
    info = env.infos["player_1"]
    assert set(info) == {"hand_marks", "marks", "points_taken", "contract"}
    assert info["points_taken"][0] + info["points_taken"][1] == 42
    marks = info["hand_marks"]
    assert (
        env.rewards["player_0"] == env.rewards["player_2"] == marks[0] - marks[1] == -env.rewards["player_1"]
    )
    assert sum(env.rewards.values()) == 0


def test_nello_partner_is_never_selected() -> None:
    env = texas42_v0.raw_env(nello="high", stop_when_decided=False)
    env.reset(seed=0, options={"deal": {"hands": DEAL_X, "shaker": 3}})
    for move in ("bid 1m", "pass", "pass", "pass", "nello"):
        env.step(env.unwrapped.action_from_text(move))
    rng = np.random.default_rng(1)
    selected = set()
    while not all(env.terminations.values()):
        selected.add(env.agent_selection)
        random_step(env, rng)
    assert selected == {"player_0", "player_1", "player_3"}
    assert not env.observe("player_2")["action_mask"].any()


@pytest.mark.parametrize(("reward", "expected"), [("marks", [0, 2, 0, 2]), ("win_loss", [-1, 1, -1, 1])])
def test_reward_options(reward: str, expected: list[int]) -> None:
    env = texas42_v0.raw_env(reward=reward)
    env.reset(seed=0, options={"deal": {"hands": DEAL_X, "shaker": 3}})
    for move in ("bid 2m", "pass", "pass", "pass", "trump 6", "play 6-6", "play 4-4", "play 6-3", "play 2-1"):
        env.step(env.unwrapped.action_from_text(move))
    env.step(env.unwrapped.action_from_text("play 6-5"))  # seat 3 or seat 1 must take a trick soon
    rng = np.random.default_rng(0)
    while not all(env.terminations.values()):
        random_step(env, rng)
    result = env.infos["player_0"]
    if result["contract"]["made"]:
        expected = [-e if reward == "win_loss" else 2 - e for e in expected]
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == expected


def test_illegal_actions_raise_or_penalize() -> None:
    env = texas42_v0.raw_env()
    env.reset(seed=0, options={"deal": {"hands": DEAL_X, "shaker": 3}})
    with pytest.raises(IllegalActionError, match="play 6-6"):
        env.step(env.unwrapped.action_from_text("play 6-6"))
    env = texas42_v0.raw_env(illegal_action="penalize", illegal_penalty=2.0)
    env.reset(seed=0, options={"deal": {"hands": DEAL_X, "shaker": 3}})
    env.step(99)
    assert env.rewards == {"player_0": -2.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}
    assert all(env.terminations.values()) and env.infos["player_0"]["offender"] == 0


def test_n42pa_renege_loses_the_hand_for_the_offending_team() -> None:
    env = texas42_v0.raw_env(preset="n42pa", illegal_action="penalize")
    env.reset(seed=0, options={"deal": {"hands": DEAL_X, "shaker": 3}})
    for move in ("bid 1m", "pass", "pass", "pass", "trump 1", "play 5-4", "play 5-3"):
        env.step(env.unwrapped.action_from_text(move))
    env.step(env.unwrapped.action_from_text("play 3-3"))  # seat 2 holds fives: a renege
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}
    with pytest.raises(ValueError, match="n42pa"):
        texas42_v0.raw_env(preset="n42pa", nello="high")


def test_observation_ignores_hidden_tiles() -> None:
    """Swap unplayed tiles between two other hands; keep the deals the public moves allow (a replay
    of the same moves stays legal, so voids, Sevens' forced tiles and Plunge's doubles agree)."""
    config = Texas42Config.make(nello="high", plunge=True, sevens=True)
    encoder = get_encoder("texas42", "default")
    rng = np.random.default_rng(3)
    compared = refused = 0
    for _ in range(300):
        game = Texas42Game(config, rng)
        for _ in range(rng.integers(1, 30)):
            if game.is_terminal:
                break
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
        if game.deals != 1:
            continue
        me = int(rng.integers(4))
        a, b = (int(s) for s in rng.choice([s for s in range(4) if s != me], 2, replace=False))
        if not game.hands[a] or not game.hands[b]:
            continue
        x = int(rng.choice(list(iter_bits(game.hands[a]))))
        y = int(rng.choice(list(iter_bits(game.hands[b]))))
        hands = list(game.dealt)
        hands[a] ^= 1 << x | 1 << y
        hands[b] ^= 1 << x | 1 << y
        deal = {"hands": [list(iter_bits(h)) for h in hands], "shaker": game.shaker}
        other = Texas42Game(config, np.random.default_rng(0), deal=deal)
        try:
            for action in game.history:
                other.apply(action)
        except IllegalActionError:
            refused += 1
            continue
        assert other.view(me) == game.view(me)
        assert np.array_equal(encoder.encode(other.view(me)), encoder.encode(game.view(me)))
        assert other.hands != game.hands
        compared += 1
    assert compared > 100 and refused > 0
