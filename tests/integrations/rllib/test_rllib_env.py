"""The RLlib adapter against the AEC environments it wraps, on every example of every registered game.

Needs the ``rllib`` extra (its own venv: scripts/ci_rllib.sh); the main suite skips this module.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402
from ray.tune.registry import ENV_CREATOR, _global_registry  # noqa: E402

from domino_env.games import available_games, get_game  # noqa: E402
from domino_env.integrations.rllib import (  # noqa: E402
    ENV_NAMES,
    DominoMultiAgentEnv,
    env_config,
    register_envs,
)
from domino_env.rules.errors import IllegalActionError  # noqa: E402

EXAMPLES = [(name, options) for name in available_games() for options in get_game(name).examples]


@pytest.mark.parametrize(("game", "options"), EXAMPLES)
def test_rllibs_env_check_passes_with_the_defaults(game: str, options: dict) -> None:
    """RLlib's pre-check steps an unmasked ``action_space.sample()``: the default ``penalize`` takes it."""
    env = DominoMultiAgentEnv(options, game=game)
    check_multiagent_environments(env)


@pytest.mark.parametrize(("game", "options"), EXAMPLES)
def test_episodes_match_the_aec_env_seat_by_seat(game: str, options: dict) -> None:
    """Same seed, same moves: the adapter observes only the seat to act (every seat at the end), and
    every seat's summed reward and final info equal the AEC env's, seats that did not act included."""
    env = DominoMultiAgentEnv(options, game=game)
    aec = get_game(game).raw_env(illegal_action="penalize", **options)
    rng = np.random.default_rng(7)
    for episode in range(3):
        obs, infos = env.reset(seed=episode)
        aec.reset(seed=episode)
        delivered = dict.fromkeys(env.possible_agents, 0.0)
        expected = dict.fromkeys(env.possible_agents, 0.0)
        done = False
        while not done:
            assert list(obs) == [aec.agent_selection] and set(infos) <= set(obs)
            ((agent, observation),) = obs.items()
            assert env.observation_spaces[agent].contains(observation)
            aec_obs = aec.observe(agent)
            np.testing.assert_array_equal(observation["observations"], aec_obs["observation"])
            np.testing.assert_array_equal(observation["action_mask"], aec_obs["action_mask"])
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
            aec.step(action)
            for seat, reward in aec.rewards.items():
                expected[seat] += reward
            for seat, reward in rewards.items():
                delivered[seat] += reward
            assert truncateds == {"__all__": False}
            done = terminateds["__all__"]
        assert set(obs) == set(env.possible_agents) and all(terminateds[a] for a in env.possible_agents)
        assert all(not o["action_mask"].any() for o in obs.values())
        assert delivered == pytest.approx(expected)
        assert infos == {a: aec.infos[a] for a in env.possible_agents}


def test_a_round_score_reaches_the_seat_that_did_not_act() -> None:
    env = DominoMultiAgentEnv({"game": "dominoes", "variant": "block"})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    while True:
        ((agent, observation),) = obs.items()
        obs, rewards, terminateds, _, infos = env.step(
            {agent: int(rng.choice(np.flatnonzero(observation["action_mask"])))}
        )
        if terminateds["__all__"]:
            break
    other = next(a for a in env.possible_agents if a != agent)
    points = infos[other]["round_points"]
    assert points[0] != points[1] or rewards[other] == 0.0
    assert rewards[other] == -rewards[agent] and set(rewards) == set(env.possible_agents)


def test_registered_names_build_each_game_and_refuse_another() -> None:
    register_envs()  # another test's ray.shutdown() may have emptied Tune's registry since import
    for game, name in ENV_NAMES.items():
        env = _global_registry.get(ENV_CREATOR, name)({"observation_encoder": "compact"})
        assert env.game_name == game
    with pytest.raises(ValueError, match="plays 'dominoes'"):
        _global_registry.get(ENV_CREATOR, ENV_NAMES["dominoes"])({"game": "texas42"})


def test_illegal_actions_follow_the_illegal_action_setting() -> None:
    penalized = DominoMultiAgentEnv({"game": "texas42", "illegal_penalty": 2.5})
    obs, _ = penalized.reset(seed=0)
    ((agent, observation),) = obs.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    obs, rewards, terminateds, _, infos = penalized.step({agent: illegal})
    assert terminateds["__all__"] and rewards[agent] == -2.5
    assert infos[agent] == {"illegal_action": True, "offender": int(agent.rsplit("_", 1)[1])}

    raising = DominoMultiAgentEnv({"game": "texas42", "illegal_action": "raise"})
    obs, _ = raising.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raising.step({agent: illegal})
    assert raising.step({agent: int(np.flatnonzero(obs[agent]["action_mask"])[0])})[0]  # state untouched


def test_only_the_seat_to_act_may_act() -> None:
    env = DominoMultiAgentEnv({"game": "dominoes"})
    obs, _ = env.reset(seed=0)
    other = next(a for a in env.possible_agents if a not in obs)
    with pytest.raises(ValueError, match=f"only {next(iter(obs))} is to act"):
        env.step({other: 0})


def test_unknown_games_options_and_values_are_named() -> None:
    with pytest.raises(ValueError, match=r"unknown dominoes option\(s\) \['variantt'\]; known: .*'variant'"):
        env_config("dominoes", variantt="block")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        env_config("chess")
    with pytest.raises(ValueError, match="num_players"):
        env_config("dominoes", num_players=9)
    with pytest.raises(ValueError, match=r"unknown texas42 option\(s\) \['nelo'\]"):
        DominoMultiAgentEnv({"game": "texas42", "nelo": "low"})
    assert env_config("texas42", nello="low") == {"game": "texas42", "nello": "low"}


def test_fives_and_threes_through_the_registered_name() -> None:
    """``fives`` picks Fives and Threes with its ``variant`` option: the config names the game as every
    other game's does, and the registered name, ``game=`` or the config's ``"game"`` key all play it."""
    config = env_config("fives", variant="fives_and_threes", episode="hand")
    assert config == {"game": "fives", "variant": "fives_and_threes", "episode": "hand"}
    env = _global_registry.get(ENV_CREATOR, ENV_NAMES["fives"])(config)
    assert env.game_name == "fives" and env.aec.unwrapped.config.variant == "fives_and_threes"
    assert DominoMultiAgentEnv(config).aec.unwrapped.config.variant == "fives_and_threes"
    options = {k: v for k, v in config.items() if k != "game"}
    assert DominoMultiAgentEnv(options, game="fives").aec.unwrapped.config.variant == "fives_and_threes"
