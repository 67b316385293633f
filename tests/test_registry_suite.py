"""The generic suite: every registered game, on each of its record's example option sets, passes
the same checks. Nothing here names a game: registering a record (``domino_env.games``) is what
puts a game under test.

- the record agrees with itself: config type, sides, tiles, PettingZoo id, encoders, bots;
- PettingZoo's ``api_test`` and ``seed_test``, and different seeds deal differently;
- random-play fuzzing on the engine: the mask equals ``legal_actions``; every illegal id is refused
  with ``ValueError`` and leaves the save unchanged; decisions per round/hand stay within
  ``max_decisions``; rewards stay inside ``reward_range`` and sum to zero under ``zero_sum``;
- saves: ``from_json(to_json())`` mid-episode continues exactly like the original;
- hidden information: each registered encoder gives a seat the same observation after everything
  that seat cannot see is redealt (``beliefs.determinize``);
- the batched engine, where one plays the config: its sizes match the reference encoder and config
  and random legal play keeps every mask non-empty. (Step-for-step equality with the reference is
  ``tests/vector/``, whose deal hand-over is specific to each engine.)
"""

from __future__ import annotations

import functools
import importlib

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from domino_env.bots import available_bots, make_bot
from domino_env.encoders.base import available_encoders, get_encoder
from domino_env.games import available_games, game_of_config, get_game
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import determinize
from domino_env.vector import sample_legal


def _label(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items()) or "default"


CASES = [
    pytest.param(name, dict(options), id=f"{name}-{_label(options)}")
    for name in available_games()
    for options in get_game(name).examples
]


def _random_engine_walks(name: str, options: dict, seed: int, episodes: int):
    """Yield ``(engine, step)`` at every decision of ``episodes`` random-play episodes."""
    record = get_game(name)
    config = record.config(**options)
    rng = np.random.default_rng(seed)
    for _ in range(episodes):
        engine = record.new_engine(config, np.random.default_rng(rng.integers(2**32)))
        step = 0
        while not engine.is_terminal:
            yield engine, step
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.integers(len(legal)))])
            step += 1


@pytest.mark.parametrize(("name", "options"), CASES)
def test_record_is_consistent(name: str, options: dict) -> None:
    record = get_game(name)
    config = record.config(**options)
    assert isinstance(config, record.config_type) and game_of_config(config) is record
    assert len(record.sides(config)) == config.num_players
    assert sorted(set(record.sides(config))) == list(range(config.num_sides))
    assert importlib.import_module(record.env_module).ENV_ID == record.env_id
    env = record.raw_env(**options)
    assert env.num_actions == config.num_actions and len(env.possible_agents) == config.num_players
    assert {"default", "compact", "history"} <= set(available_encoders(name))
    assert {"random", record.default_bot} <= set(available_bots(name))
    with pytest.raises(ValueError, match="unknown"):
        record.config(**options, not_an_option=1)


@pytest.mark.parametrize(("name", "options"), CASES)
def test_pettingzoo_api_and_seeds(name: str, options: dict) -> None:
    record = get_game(name)
    api_test(record.env(**options), num_cycles=100)
    seed_test(functools.partial(record.env, **options), num_cycles=50)
    firsts = set()
    for seed in range(6):
        env = record.raw_env(**options)
        env.reset(seed=seed)
        firsts.add(env.observe(env.agent_selection)["observation"].tobytes())
    assert len(firsts) > 1, "six seeds dealt the same first observation: the seed is ignored"


@pytest.mark.parametrize(("name", "options"), CASES)
def test_fuzz_illegal_moves_and_decision_bound(name: str, options: dict) -> None:
    record = get_game(name)
    config = record.config(**{**options, "episode": record.episodes[0]})  # one round or hand
    rng = np.random.default_rng(1)
    for episode in range(12):
        engine = record.new_engine(config, np.random.default_rng(episode))
        decisions = 0
        while not engine.is_terminal:
            mask = engine.legal_mask()
            assert list(iter_bits(mask)) == engine.legal_actions() and mask
            illegal = [a for a in range(config.num_actions) if not mask >> a & 1]
            if illegal:
                before = engine.to_json()
                with pytest.raises(ValueError):
                    engine.apply(illegal[int(rng.integers(len(illegal)))])
                assert engine.to_json() == before
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.integers(len(legal)))])
            decisions += 1
        # A reshake deals again, so only a forced bid or a line game bounds one episode.
        if getattr(config, "all_pass", "forced") == "forced":
            assert decisions <= config.max_decisions


@pytest.mark.parametrize(("name", "options"), CASES)
def test_rewards_within_range_and_zero_sum(name: str, options: dict) -> None:
    record = get_game(name)
    zero_sum = {**options, "reward": record.rewards[0]}
    for opts in (zero_sum, options):
        env = record.raw_env(**opts)
        low, high = env.reward_range
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(400):
            if not env.agents:
                env.reset(seed=int(rng.integers(1000)))
            _obs, _reward, term, trunc, _info = env.last()
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            step_rewards = list(env.rewards.values())
            assert all(low <= r <= high for r in step_rewards)
            if opts is zero_sum and len(step_rewards) == len(env.possible_agents):
                assert abs(sum(step_rewards)) < 1e-9


@pytest.mark.parametrize(("name", "options"), CASES)
def test_save_load_mid_episode_continues_identically(name: str, options: dict) -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for walked, step in _random_engine_walks(name, options, seed=5, episodes=6):
        if step % 7 != 3:
            continue
        engine = walked.clone()  # the walk goes on from ``walked``
        copy = type(engine).from_json(engine.to_json())
        assert copy.to_json() == engine.to_json() and copy.render_text() == engine.render_text()
        for _ in range(5):
            if engine.is_terminal:
                break
            legal = engine.legal_actions()
            assert copy.legal_actions() == legal
            action = legal[int(rng.integers(len(legal)))]
            engine.apply(action)
            copy.apply(action)
        assert copy.to_json() == engine.to_json()
        checked += 1
    assert checked > 0


@pytest.mark.parametrize(("name", "options"), CASES)
def test_no_encoder_shows_what_the_seat_may_not_see(name: str, options: dict) -> None:
    record = get_game(name)
    config = record.config(**options)
    encoders = [get_encoder(name, e) for e in available_encoders(name)]
    rng = np.random.default_rng(11)
    checked = 0
    for engine, step in _random_engine_walks(name, options, seed=11, episodes=4):
        if step % 5 != 2:
            continue
        for seat in range(config.num_players):
            view = engine.view(seat)
            other = determinize(view, rng).view(seat)
            for encoder in encoders:
                np.testing.assert_array_equal(encoder.encode(view), encoder.encode(other),
                                              err_msg=f"{encoder.name} at step {step}, seat {seat}")
            checked += 1
    assert checked > 0


@pytest.mark.parametrize(("name", "options"), CASES)
def test_bots_finish_episodes(name: str, options: dict) -> None:
    """``random`` and the default bot play a round or hand to its end; a bot that does not play a
    form of the game must refuse it by name and point to one that does."""
    record = get_game(name)
    config = record.config(**{**options, "episode": record.episodes[0]})
    rng = np.random.default_rng(2)
    engine = record.new_engine(config, rng)
    agents = [make_bot(name, "random"), make_bot(name, record.default_bot)]
    try:
        agents[1].act(engine.view(engine.current_player), np.random.default_rng(0))
    except ValueError as refusal:
        assert "random" in str(refusal)
        agents = agents[:1]
    while not engine.is_terminal:
        seat = engine.current_player
        engine.apply(agents[seat % len(agents)].act(engine.view(seat), rng))
    outcome = record.outcome(engine, False)
    assert len(outcome.side_scores) == config.num_sides and outcome.rounds == 1


@pytest.mark.parametrize(("name", "options"), CASES)
def test_batched_engine_matches_the_reference_contract(name: str, options: dict) -> None:
    record = get_game(name)
    config = record.config(**options)
    cls = record.vector_class(config)
    if cls is None:
        pytest.skip(f"no batched engine plays {name} {options}")
    vec = cls(16, seed=0, **options)
    assert vec.obs_dim == get_encoder(name, "compact").size(config)
    assert (vec.num_actions, vec.num_players) == (config.num_actions, config.num_players)
    batch = vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        assert batch.mask.any(axis=1).all()
        assert batch.obs.shape == (16, vec.obs_dim) and batch.mask.shape == (16, vec.num_actions)
        batch = vec.step(sample_legal(batch.mask, rng))
