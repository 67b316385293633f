"""The generic registry suite as a public test helper: check a registered game, yours included.

In the spirit of PettingZoo's ``pettingzoo.test.api_test`` and Pgx's ``api_test``::

    from domino_env.games import register_game
    from domino_env.testing import registry_test

    register_game(MY_GAME)        # a ``domino_env.games.Game`` record
    registry_test("mygame")       # every check, on each of the record's ``examples``

``registry_test`` raises ``AssertionError`` naming the failing check, the game and the option set
(the original error is chained as its cause). Nothing here names a game and nothing imports pytest
or hypothesis: the checks are plain functions ``check_*(name, options)`` of a registered game's
name and one option set, listed in order in ``CHECKS``. ``tests/test_registry_suite.py`` runs
``CHECKS`` on every registered game's examples under pytest.

- ``record``: the record agrees with itself: config type, sides, tiles (at the deal every tile of
  ``num_tiles`` in exactly one of the engine's ``hands``, ``hidden_mask`` or ``table_mask``), PettingZoo id,
  encoders, bots, unknown options refused;
- ``pettingzoo_api``: PettingZoo's ``api_test`` and ``seed_test``, and different seeds deal
  differently;
- ``illegal_moves``: random-play fuzzing on the engine: the mask equals ``legal_actions``; every
  illegal id tried is refused with ``ValueError`` and leaves the save unchanged; decisions per
  round/hand stay within ``max_decisions``;
- ``rewards``: rewards stay inside ``reward_range`` and sum to zero under the first ``reward``;
- ``save_load``: ``from_json(to_json())`` mid-episode continues exactly like the original;
- ``no_leak``: each registered encoder gives a seat the same observation after everything that seat
  cannot see is redealt (``search.beliefs.determinize``);
- ``bots``: ``random`` and the default bot play a round or hand to its end;
- ``batched_engine``: where a batched engine plays the config, its sizes match the reference encoder
  and config, random legal play keeps every mask non-empty, and the record's batched bots play legal
  moves only. (Step-for-step equality with the
  reference is ``tests/vector/``, whose deal hand-over is specific to each engine.)

A check returns ``None`` when it ran, or the reason it does not apply to the option set (only
``batched_engine`` does that: no batched engine plays the config).
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
from pettingzoo.test import api_test, seed_test

from domino_env.bots import available_bots, make_bot
from domino_env.bots.batched import make_batched_bot
from domino_env.encoders.base import available_encoders, get_encoder
from domino_env.games import available_games, game_of_config, get_game
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import determinize
from domino_env.vector import sample_legal

__all__ = [
    "CHECKS", "check_batched_engine", "check_bots", "check_illegal_moves", "check_no_leak",
    "check_pettingzoo_api", "check_record", "check_rewards", "check_save_load", "example_cases",
    "registry_test", "run_check",
]


def _random_engine_walks(name: str, options: Mapping[str, Any], seed: int, episodes: int) -> Iterator:
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


# ----- the checks --------------------------------------------------------------------------------------
def check_record(name: str, options: Mapping[str, Any]) -> None:
    """The record agrees with itself and with the engine, the env module, encoders and bots."""
    record = get_game(name)
    config = record.config(**options)
    assert isinstance(config, record.config_type), f"config is a {type(config).__name__}, not config_type"
    assert game_of_config(config) is record, "game_of_config(config) finds another record"
    sides = record.sides(config)
    assert len(sides) == config.num_players, f"sides {sides} for {config.num_players} players"
    assert sorted(set(sides)) == list(range(config.num_sides)), f"sides {sides} for {config.num_sides} sides"
    # Tiles: at the deal every tile of the set lies in exactly one hand or in hidden_mask.
    full = (1 << record.num_tiles(config)) - 1
    for seed in range(3):
        engine = record.new_engine(config, np.random.default_rng(seed))
        seen = 0
        for seat, hand in enumerate(engine.hands):
            assert not seen & hand, f"seat {seat}'s hand shares tiles with another hand (deal seed {seed})"
            seen |= hand
        hidden, table = record.hidden_mask(engine), record.table_mask(engine)
        assert not seen & hidden, f"hidden_mask overlaps the hands (deal seed {seed})"
        assert not (seen | hidden) & table, f"table_mask overlaps the hands or hidden_mask (deal seed {seed})"
        if record.hidden_tiles(config) is None:
            assert not hidden, f"hidden_tiles says no tile is hidden, hidden_mask is {hidden:#x}"
        dealt = seen | hidden | table
        assert dealt == full, (
            f"hands, hidden_mask and table_mask hold {dealt.bit_count()} tile ids up to "
            f"{dealt.bit_length() - 1}, "
            f"num_tiles(config) is {record.num_tiles(config)} (deal seed {seed})"
        )
    env_id = importlib.import_module(record.env_module).ENV_ID
    assert env_id == record.env_id, f"{record.env_module}.ENV_ID is {env_id!r}, the record: {record.env_id!r}"
    env = record.raw_env(**options)
    assert env.num_actions == config.num_actions, (
        f"env: {env.num_actions} actions, config: {config.num_actions}"
    )
    assert len(env.possible_agents) == config.num_players, "env agents != config.num_players"
    encoders = set(available_encoders(name))
    assert {"default", "compact", "history"} <= encoders, f"encoders {sorted(encoders)} lack a required one"
    bots = set(available_bots(name))
    assert {"random", record.default_bot} <= bots, f"bots {sorted(bots)} lack random or the default bot"
    try:
        record.config(**options, not_an_option=1)
    except ValueError as error:
        assert re.search("unknown", str(error)), f"an unknown option is refused without saying so: {error}"
    else:
        raise AssertionError("config(not_an_option=1) was accepted")


def check_pettingzoo_api(name: str, options: Mapping[str, Any]) -> None:
    """PettingZoo's ``api_test`` and ``seed_test``; six seeds do not all deal the same."""
    record = get_game(name)
    api_test(record.env(**options), num_cycles=100)
    seed_test(functools.partial(record.env, **options), num_cycles=50)
    firsts = set()
    for seed in range(6):
        env = record.raw_env(**options)
        env.reset(seed=seed)
        firsts.add(env.observe(env.agent_selection)["observation"].tobytes())
    assert len(firsts) > 1, "six seeds dealt the same first observation: the seed is ignored"


def check_illegal_moves(name: str, options: Mapping[str, Any]) -> None:
    """Random play on the engine for 12 rounds or hands: the mask equals ``legal_actions`` and is not
    empty; a random illegal id at every decision raises ``ValueError`` and leaves the save unchanged;
    a forced-bid or line-game round/hand takes at most ``max_decisions`` decisions."""
    record = get_game(name)
    config = record.config(**{**options, "episode": record.episodes[0]})  # one round or hand
    rng = np.random.default_rng(1)
    for episode in range(12):
        engine = record.new_engine(config, np.random.default_rng(episode))
        decisions = 0
        while not engine.is_terminal:
            mask = engine.legal_mask()
            assert mask, f"empty legal mask at decision {decisions} of episode {episode}"
            assert list(iter_bits(mask)) == engine.legal_actions(), (
                f"legal_mask and legal_actions differ at decision {decisions} of episode {episode}"
            )
            illegal = [a for a in range(config.num_actions) if not mask >> a & 1]
            if illegal:
                action = illegal[int(rng.integers(len(illegal)))]
                before = engine.to_json()
                try:
                    engine.apply(action)
                except ValueError:
                    pass
                else:
                    raise AssertionError(f"illegal action {action} was accepted (decision {decisions}, "
                                         f"episode {episode})")
                assert engine.to_json() == before, f"refusing illegal action {action} changed the state"
            legal = engine.legal_actions()
            engine.apply(legal[int(rng.integers(len(legal)))])
            decisions += 1
        # A reshake deals again, so only a forced bid or a line game bounds one episode.
        if getattr(config, "all_pass", "forced") == "forced":
            assert decisions <= config.max_decisions, (
                f"{decisions} decisions in episode {episode}, max_decisions is {config.max_decisions}"
            )


def check_rewards(name: str, options: Mapping[str, Any]) -> None:
    """400 random env steps, with the first ``reward`` option and with ``options``: every reward
    within ``reward_range``; with the first (zero-sum) one, the rewards of all seats sum to zero."""
    record = get_game(name)
    zero_sum = {**options, "reward": record.rewards[0]}
    for opts in (zero_sum, options):
        env = record.raw_env(**opts)
        low, high = env.reward_range
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for step in range(400):
            if not env.agents:
                env.reset(seed=int(rng.integers(1000)))
            _obs, _reward, term, trunc, _info = env.last()
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            step_rewards = list(env.rewards.values())
            assert all(low <= r <= high for r in step_rewards), (
                f"rewards {step_rewards} outside reward_range {env.reward_range} (step {step}, {opts})"
            )
            if opts is zero_sum and len(step_rewards) == len(env.possible_agents):
                assert abs(sum(step_rewards)) < 1e-9, f"rewards {step_rewards} sum to non-zero (step {step})"


def check_save_load(name: str, options: Mapping[str, Any]) -> None:
    """At every seventh decision of six random episodes, ``from_json(to_json())`` saves and renders
    the same and plays the next five random moves exactly like the original."""
    rng = np.random.default_rng(5)
    checked = 0
    for walked, step in _random_engine_walks(name, options, seed=5, episodes=6):
        if step % 7 != 3:
            continue
        engine = walked.clone()  # the walk goes on from ``walked``
        copy = type(engine).from_json(engine.to_json())
        assert copy.to_json() == engine.to_json(), f"a loaded save saves differently (step {step})"
        assert copy.render_text() == engine.render_text(), f"a loaded save renders differently (step {step})"
        for _ in range(5):
            if engine.is_terminal:
                break
            legal = engine.legal_actions()
            assert copy.legal_actions() == legal, f"a loaded save has other legal actions (from step {step})"
            action = legal[int(rng.integers(len(legal)))]
            engine.apply(action)
            copy.apply(action)
        assert copy.to_json() == engine.to_json(), f"a loaded save played on differently (from step {step})"
        checked += 1
    assert checked > 0, "no episode lasted four decisions: nothing was saved"


def check_no_leak(name: str, options: Mapping[str, Any]) -> None:
    """At every fifth decision of four random episodes, every seat's observation under every
    registered encoder is unchanged when all that seat cannot see is redealt."""
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
                np.testing.assert_array_equal(
                    encoder.encode(view), encoder.encode(other),
                    err_msg=f"encoder {encoder.name!r} shows hidden tiles at step {step}, seat {seat}",
                )
            checked += 1
    assert checked > 0, "no episode lasted three decisions: nothing was checked"


def check_bots(name: str, options: Mapping[str, Any]) -> None:
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
        assert "random" in str(refusal), f"the default bot refuses without pointing to random: {refusal}"
        agents = agents[:1]
    while not engine.is_terminal:
        seat = engine.current_player
        engine.apply(agents[seat % len(agents)].act(engine.view(seat), rng))
    outcome = record.outcome(engine, False)
    assert len(outcome.side_scores) == config.num_sides, (
        f"outcome has {len(outcome.side_scores)} side scores for {config.num_sides} sides"
    )
    assert outcome.rounds == 1, f"one round or hand scored as {outcome.rounds}"


def check_batched_engine(name: str, options: Mapping[str, Any]) -> str | None:
    """The batched engine's sizes match the compact encoder and the config; 300 random legal steps of
    16 games keep every mask non-empty and the shapes fixed. Returns why it does not apply when no
    batched engine plays the config."""
    record = get_game(name)
    config = record.config(**options)
    cls = record.vector_class(config)
    if cls is None:
        return f"no batched engine plays {name} {dict(options)}"
    vec = cls(16, seed=0, **options)
    compact = get_encoder(name, "compact").size(config)
    assert vec.obs_dim == compact, f"obs_dim {vec.obs_dim}, the compact encoder's size {compact}"
    assert (vec.num_actions, vec.num_players) == (config.num_actions, config.num_players), (
        f"(num_actions, num_players) {(vec.num_actions, vec.num_players)}, the config's "
        f"{(config.num_actions, config.num_players)}"
    )
    batch = vec.reset()
    rng = np.random.default_rng(0)
    for step in range(300):
        assert batch.mask.any(axis=1).all(), f"a game has no legal action at step {step}"
        assert batch.obs.shape == (16, vec.obs_dim), f"obs shape {batch.obs.shape} at step {step}"
        assert batch.mask.shape == (16, vec.num_actions), f"mask shape {batch.mask.shape} at step {step}"
        batch = vec.step(sample_legal(batch.mask, rng))
    for bot in record.batched_bots:  # each of the record's batched bots plays legal moves only
        policy = make_batched_bot(name, bot, options)
        batch = vec.reset()
        for step in range(60):
            actions = np.asarray(policy(batch.obs, batch.mask, rng))
            legal = batch.mask[np.arange(16), actions]
            assert legal.all(), f"batched {bot!r} played illegally at step {step}"
            batch = vec.step(actions)
    return None


CHECKS: Mapping[str, Callable[[str, Mapping[str, Any]], str | None]] = MappingProxyType({
    "record": check_record,
    "pettingzoo_api": check_pettingzoo_api,
    "illegal_moves": check_illegal_moves,
    "rewards": check_rewards,
    "save_load": check_save_load,
    "no_leak": check_no_leak,
    "bots": check_bots,
    "batched_engine": check_batched_engine,
})
"""check name -> ``check(name, options)``, in the order ``registry_test`` runs them"""


# ----- running them ------------------------------------------------------------------------------------
def example_cases(games: Iterable[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """``(name, options)`` for every example option set of ``games`` (default: every registered game)."""
    names = available_games() if games is None else list(games)
    return [(name, dict(options)) for name in names for options in get_game(name).examples]


def run_check(check: str, name: str, options: Mapping[str, Any]) -> str | None:
    """Run the check called ``check`` on game ``name`` with ``options``: ``None`` when it passed, the
    reason when it does not apply. Any error it raises becomes an ``AssertionError`` naming the check,
    the game and the options (the error is its ``__cause__``)."""
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; checks: {list(CHECKS)}")
    get_game(name)  # an unknown game raises ValueError naming the known ones, not a failed check
    try:
        return CHECKS[check](name, options)
    except Exception as error:
        raise AssertionError(
            f"registry check {check!r} failed for game {name!r} with options {dict(options)}: "
            f"{type(error).__name__}: {error}"
        ) from error


def registry_test(
    name: str,
    examples: Iterable[Mapping[str, Any]] | None = None,
    checks: Iterable[str] | None = None,
) -> list[str]:
    """Run every check (or those named in ``checks``, in the order given) on each option set
    of ``examples`` (default: the record's ``examples``) of the registered game ``name``.

    Stops at the first failure with an ``AssertionError`` naming the check, the game and the options
    (``run_check``). Returns the checks that did not apply, as ``"check (options): reason"`` lines.
    An unknown game or check name raises ``ValueError``.
    """
    record = get_game(name)
    selected = list(CHECKS) if checks is None else list(checks)
    unknown = [c for c in selected if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; checks: {list(CHECKS)}")
    skipped = []
    for options in record.examples if examples is None else examples:
        for check in selected:
            reason = run_check(check, name, options)
            if reason is not None:
                skipped.append(f"{check} ({dict(options)}): {reason}")
    return skipped
