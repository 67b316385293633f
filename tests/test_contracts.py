"""Game contracts (STYLE habit 2): players, actions, most decisions per round/hand, reward range.

The constants are checked against hand-computed values, then random play over many episodes must
stay inside them: no round or hand takes more decisions than declared, no step pays a reward
outside ``env.reward_range``.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env import dominoes_v0, texas42_v0
from domino_env.envs.base import DominoAECEnv
from domino_env.rules.line import LineConfig
from domino_env.rules.texas42 import NUM_ACTIONS, Texas42Config


def _name(value: object) -> str:
    """Readable test ids: ``variant=draw,num_players=3`` for option dicts, the number otherwise."""
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "default"
    return str(value)


# (options, players, actions, most decisions per round, most points per round), worked by hand:
# max_decisions = n * (dealt + drawable) + drawable + 1.
LINE_CONTRACTS = [
    ({"variant": "block"}, 2, 58, 2 * 14 + 1, 168),
    ({"variant": "draw", "num_players": 3, "preset": "boardpan"}, 3, 58, 3 * (21 + 7) + 7 + 1, 168),
    ({"variant": "block", "num_players": 4, "teams": True, "preset": "boardpan"}, 4, 58, 4 * 28 + 1, 168),
    ({"variant": "draw", "num_players": 4}, 4, 58, 4 * (24 + 2) + 2 + 1, 168),
    ({"variant": "draw", "max_pips": 9}, 2, 112, 2 * (14 + 39) + 39 + 1, 495),
]


@pytest.mark.parametrize(
    ("options", "players", "actions", "decisions", "points"), LINE_CONTRACTS, ids=lambda v: _name(v)
)
def test_line_contract_constants(options, players, actions, decisions, points) -> None:
    config = LineConfig(target_score=None, **options)
    assert (config.num_players, config.num_actions) == (players, actions)
    assert (config.max_decisions, config.max_round_points) == (decisions, points)
    env = dominoes_v0.raw_env(**options)
    assert len(env.possible_agents) == players
    assert env.action_space(env.possible_agents[0]).n == env.num_actions == actions
    assert dominoes_v0.raw_env(**options, reward="zero_sum").reward_range == (-points, points)
    assert dominoes_v0.raw_env(**options, reward="points").reward_range == (0, points)
    assert dominoes_v0.raw_env(**options, reward="win_loss").reward_range == (-1, 1)


@pytest.mark.parametrize(
    ("options", "marks"), [({}, 5), ({"plunge": True}, 7), ({"preset": "n42pa"}, 5)], ids=lambda v: _name(v)
)
def test_texas42_contract_constants(options, marks) -> None:
    config = Texas42Config.make(**options)
    assert NUM_ACTIONS == 63
    assert config.num_players == 4
    assert config.max_decisions == 4 + 1 + 28
    assert config.max_hand_marks == marks
    env = texas42_v0.raw_env(**options)
    assert len(env.possible_agents) == 4
    assert env.action_space(env.possible_agents[0]).n == env.num_actions == NUM_ACTIONS
    assert texas42_v0.raw_env(**options, reward="zero_sum").reward_range == (-marks, marks)
    assert texas42_v0.raw_env(**options, reward="marks").reward_range == (0, marks)
    assert texas42_v0.raw_env(**options, reward="win_loss").reward_range == (-1, 1)


@pytest.mark.parametrize(
    ("options", "players", "actions", "decisions", "marks"),
    [({"num_players": 3}, 3, 64, 3 + 1 + 27, 4), ({"preset": "texas88"}, 6, 149, 6 + 2 + 1 + 54, 7)],
    ids=["three players", "texas88"],
)
def test_texas42_variant_contract_constants(options, players, actions, decisions, marks) -> None:
    config = Texas42Config.make(**options)
    assert (config.num_players, config.num_actions) == (players, actions)
    assert (config.max_decisions, config.max_hand_marks) == (decisions, marks)
    env = texas42_v0.raw_env(**options)
    assert len(env.possible_agents) == players
    assert env.action_space(env.possible_agents[0]).n == env.num_actions == actions
    assert texas42_v0.raw_env(**options, reward="zero_sum").reward_range == (-marks, marks)
    assert texas42_v0.raw_env(**options, reward="marks").reward_range == (0, marks)


def play_randomly(env: DominoAECEnv, episodes: int, seed: int, new_round) -> tuple[list[int], float, float]:
    """Random legal play; returns decisions per round/hand (a new one starts when ``new_round(game,
    before)`` says so, ``before`` being its value ahead of the step) and the extreme step rewards."""
    rng = np.random.default_rng(seed)
    lengths, low, high = [], 0.0, 0.0
    for episode in range(episodes):
        env.reset(seed=seed * 1000 + episode)
        decisions = 0
        while not env.game.is_terminal:
            before = new_round(env.game, None)
            env.step(int(rng.choice(env.game.legal_actions())))
            decisions += 1
            rewards = list(env.rewards.values())
            low, high = min(low, *rewards), max(high, *rewards)
            if new_round(env.game, before):
                lengths.append(decisions)
                decisions = 0
    return lengths, low, high


def rounds_played(game, before: int | None) -> int | bool:
    """Line games: the number of finished rounds, or whether it grew since ``before``."""
    return len(game.results) if before is None else len(game.results) > before


def deals_made(game, before: int | None) -> int | bool:
    """Texas 42: the number of deals (hands and reshakes), or whether it changed since ``before``;
    the last hand of an episode ends without a new deal, so terminal counts too."""
    return game.deals if before is None else game.deals != before or game.is_terminal


LINE_PLAY = [
    ({"variant": "block", "reward": "zero_sum"}, 300),
    ({"variant": "draw", "num_players": 3, "preset": "boardpan", "reward": "points"}, 200),
    ({"variant": "block", "num_players": 4, "teams": True, "preset": "boardpan", "episode": "match",
      "target_score": 60, "reward": "zero_sum"}, 40),
    ({"variant": "draw", "num_players": 4, "teams": True, "draw_policy": "any", "draw_reserve": 0,
      "reward": "win_loss"}, 150),
    ({"variant": "draw", "max_pips": 9, "num_players": 3, "reward": "zero_sum"}, 60),
]


@pytest.mark.parametrize(("options", "episodes"), LINE_PLAY, ids=lambda v: _name(v))
def test_line_random_play_stays_inside_the_contract(options, episodes) -> None:
    env = dominoes_v0.raw_env(**options)
    lengths, low, high = play_randomly(env, episodes, seed=len(options), new_round=rounds_played)
    assert len(lengths) >= episodes
    assert max(lengths) <= env.config.max_decisions
    lowest, highest = env.reward_range
    assert lowest <= low and high <= highest
    assert high > 0  # rewards were paid, so the range was really exercised


TEXAS_PLAY = [
    ({"reward": "zero_sum"}, 300),
    ({"nello": "own_suit", "plunge": True, "sevens": True, "forced_bid": True, "reward": "marks",
      "episode": "game"}, 40),
    ({"preset": "n42pa", "reward": "win_loss", "episode": "game"}, 40),
    ({"plunge": True, "follow_me_doubles": "own_suit", "reward": "zero_sum"}, 300),
    ({"num_players": 3, "nello": "low", "sevens": True, "reward": "zero_sum"}, 200),
    ({"num_players": 3, "reward": "win_loss", "episode": "game"}, 30),
    ({"preset": "texas88", "reward": "zero_sum"}, 100),
    ({"preset": "texas88", "reward": "marks", "episode": "game"}, 10),
]


@pytest.mark.parametrize(("options", "episodes"), TEXAS_PLAY, ids=lambda v: _name(v))
def test_texas42_random_play_stays_inside_the_contract(options, episodes) -> None:
    env = texas42_v0.raw_env(**options)
    lengths, low, high = play_randomly(env, episodes, seed=len(options), new_round=deals_made)
    assert len(lengths) >= episodes
    assert max(lengths) <= env.config.max_decisions
    lowest, highest = env.reward_range
    assert lowest <= low and high <= highest
    assert high > 0


def test_texas42_decision_bound_is_reached() -> None:
    """With every trick played, a hand whose four seats all bid or pass takes exactly 33 decisions
    (no reshake, no Nello), so the bound is tight, not just safe."""
    env = texas42_v0.raw_env(stop_when_decided=False, forced_bid=True)
    lengths, _, _ = play_randomly(env, 20, seed=0, new_round=deals_made)
    assert set(lengths) == {env.config.max_decisions}
    env = texas42_v0.raw_env(num_players=3, stop_when_decided=False, forced_bid=True)
    lengths, _, _ = play_randomly(env, 20, seed=0, new_round=deals_made)
    assert set(lengths) == {env.config.max_decisions}  # 31
    env = texas42_v0.raw_env(preset="texas88", stop_when_decided=False)  # no forced bid: reshakes
    lengths, _, _ = play_randomly(env, 20, seed=0, new_round=deals_made)
    assert max(lengths) == env.config.max_decisions  # 63
