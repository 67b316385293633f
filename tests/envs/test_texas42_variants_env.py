"""texas42_v0 with three players (``num_players=3``) and Texas 88 (``preset="texas88"``): API
conformance, seeding, spaces, exact deals, rewards by side, saved games, the scripted bots playing
them, and the torch batched engine, which plays four-player 42 only, refusing the variants by name (the
terminal front end plays them: tests/play/test_play_texas42_variants.py)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from domino_env import texas42_v0
from domino_env.bots import make_bot
from domino_env.encoders.base import available_encoders
from domino_env.evaluation import GameSetup, evaluate
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.texas42 import Texas42Game
from domino_env.search.beliefs import sample_consistent_deal
from domino_env.vector.texas42_torch import TorchTexas42Game

VARIANTS = {"three players": {"num_players": 3}, "texas88": {"preset": "texas88"}}
SHAPES = {"three players": (3, 64), "texas88": (6, 149)}
DEAL_3 = [
    ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-5", "4-4"],
    ["5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2", "4-1", "4-0"],
    ["3-3", "3-2", "3-1", "3-0", "2-2", "2-1", "2-0", "1-1", "0-0"],
]


@pytest.mark.parametrize("name", VARIANTS)
def test_pettingzoo_api_and_seed(name: str) -> None:
    api_test(texas42_v0.env(**VARIANTS[name]), num_cycles=300)
    seed_test(lambda: texas42_v0.env(**VARIANTS[name]), num_cycles=200)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("encoder", available_encoders("texas42"))
def test_agents_spaces_and_masks_follow_the_variant(name: str, encoder: str) -> None:
    players, actions = SHAPES[name]
    env = texas42_v0.raw_env(observation_encoder=encoder, **VARIANTS[name])
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{i}" for i in range(players)]
    assert env.action_space("player_0").n == env.num_actions == actions
    rng = np.random.default_rng(0)
    while not env.game.is_terminal:
        for agent in env.possible_agents:
            obs = env.observe(agent)
            assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (actions,)
            assert obs["action_mask"].any() == (agent == env.agent_selection)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert env.state().shape == env.state_space.shape


@pytest.mark.parametrize("name", VARIANTS)
def test_different_seeds_deal_differently(name: str) -> None:
    env = texas42_v0.raw_env(**VARIANTS[name])
    deals = set()
    for seed in range(10):
        env.reset(seed=seed)
        deals.add(env.game.dealt)
    assert len(deals) == 10


@pytest.mark.parametrize("name", VARIANTS)
def test_every_action_has_notation_both_ways(name: str) -> None:
    env = texas42_v0.raw_env(**VARIANTS[name])
    env.reset(seed=0)
    for a in range(env.num_actions):
        assert env.action_from_text(env.action_to_text(a)) == a


def test_exact_deals_are_used_and_bad_ones_refused_clearly() -> None:
    env = texas42_v0.raw_env(num_players=3)
    env.reset(options={"deal": {"hands": DEAL_3, "shaker": 2}})
    assert env.agent_selection == "player_0"
    assert env.game.render_text(0).splitlines()[1].endswith("5-5 6-5 6-6")
    with pytest.raises(ValueError, match="a deal needs 3 hands"):
        env.reset(options={"deal": {"hands": DEAL_3[:2], "shaker": 0}})
    with pytest.raises(ValueError, match="every hand holds 9 tiles"):
        env.reset(options={"deal": {"hands": [h[:7] for h in DEAL_3], "shaker": 0}})
    env88 = texas42_v0.raw_env(preset="texas88")
    env88.reset(seed=0)
    hands = [env88.game.variant.tile_names(h) for h in env88.game.dealt]
    kitty = env88.game.variant.tile_names(env88.game.kitty)
    env88.reset(options={"deal": {"hands": hands, "kitty": kitty[::-1], "shaker": 3}})
    assert env88.game.dealt == env88.game.clone().dealt and env88.agent_selection == "player_4"
    with pytest.raises(ValueError, match="needs a kitty"):
        env88.reset(options={"deal": {"hands": hands, "shaker": 0}})


def test_three_player_rewards_are_zero_sum_per_seat() -> None:
    """Seat 1 bids 1 mark in fives and is set at once: -1 for it, +1/2 for each opponent."""
    moves = ["pass", "bid 1m", "pass", "trump 5", "play 5-4", "play 3-3", "play 5-5"]
    expected = {"zero_sum": [0.5, -1.0, 0.5], "marks": [1.0, 0.0, 1.0]}
    for reward, want in expected.items():
        env = texas42_v0.raw_env(num_players=3, reward=reward)
        env.reset(options={"deal": {"hands": DEAL_3, "shaker": 2}})
        for move in moves:
            env.step(env.action_from_text(move))
        assert [env.rewards[a] for a in env.possible_agents] == want
        assert env.infos["player_0"]["hand_marks"] == [1, 0, 1]
    env = texas42_v0.raw_env(num_players=3, reward="win_loss", episode="game", target_marks=1)
    env.reset(options={"deal": {"hands": DEAL_3, "shaker": 2}})
    for move in moves:
        env.step(env.action_from_text(move))
    assert [env.rewards[a] for a in env.possible_agents] == [0.5, -1.0, 0.5]  # two winners share
    assert all(env.terminations.values())


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("reward", ["zero_sum", "marks", "win_loss"])
def test_random_play_rewards_stay_in_range_and_sum_to_zero(name: str, reward: str) -> None:
    env = texas42_v0.raw_env(reward=reward, episode="game", target_marks=3, **VARIANTS[name])
    rng = np.random.default_rng(3)
    low, high = env.reward_range
    for seed in range(5):
        env.reset(seed=seed)
        while not env.game.is_terminal:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            rewards = [env.rewards[a] for a in env.possible_agents]
            assert all(low <= r <= high for r in rewards)
            if reward != "marks":
                assert abs(sum(rewards)) < 1e-9


@pytest.mark.parametrize("name", VARIANTS)
def test_illegal_moves_are_refused_and_change_nothing(name: str) -> None:
    env = texas42_v0.raw_env(**VARIANTS[name])
    env.reset(seed=4)
    before = env.game.to_json()
    mask = env.observe(env.agent_selection)["action_mask"]
    for bad in [*np.flatnonzero(mask == 0)[:5].tolist(), env.num_actions, -1]:
        with pytest.raises(IllegalActionError, match="legal: "):
            env.step(bad)
        assert env.game.to_json() == before


@pytest.mark.parametrize("name", VARIANTS)
def test_saved_games_and_clones_continue_identically(name: str) -> None:
    env = texas42_v0.raw_env(episode="game", **VARIANTS[name])
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(40):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    saved, clone = Texas42Game.from_json(env.game.to_json()), env.game.clone()
    for game in (saved, clone):
        assert game.to_json() == env.game.to_json()
        assert game.view(0) == env.game.view(0) and game.render_text() == env.game.render_text()


@pytest.mark.parametrize("name", VARIANTS)
def test_scripted_bots_play_and_four_player_code_refuses_by_name(name: str) -> None:
    options = VARIANTS[name]
    env = texas42_v0.raw_env(**options)
    env.reset(seed=6)
    view, rng = env.game.view(env.game.current_player), np.random.default_rng(0)
    for bot, kwargs in (("random", {}), ("heuristic", {}), ("search", {"budget": 2})):
        assert view.legal_mask >> make_bot("texas42", bot, **kwargs).act(view, rng) & 1
    with pytest.raises(ValueError, match="TorchTexas42Game plays four-player 42 only"):
        TorchTexas42Game(2, device="cpu", **options)
    assert sample_consistent_deal(view, rng)["shaker"] == env.game.shaker


@pytest.mark.parametrize("name", VARIANTS)
def test_evaluation_harness_runs_random_bots(name: str) -> None:
    setup = GameSetup("texas42", VARIANTS[name])
    assert setup.num_sides == (3 if name == "three players" else 2)
    result = evaluate(setup, ["a=random", "b=random"], 2, seed=0)
    assert result.num_deals == 2 and len(result.records) > 0
