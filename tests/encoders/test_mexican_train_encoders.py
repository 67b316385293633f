"""Mexican Train's encoders: no leak under redeals (every encoder, several rule sets, through the
environment: observation and action mask), a deliberately leaking encoder caught, the compact voids
sound against the true hands, and the history tokens within their bound."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from domino_env.encoders.base import available_encoders, get_encoder
from domino_env.encoders.mexican_train import DefaultMexicanTrainEncoder
from domino_env.encoders.mexican_train_compact import known_voids, longest_chain
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.rules.mexican_train import DOUBLE_TILE, NUM_TILES, SUIT, TILES
from domino_env.search.beliefs import determinize

VARIANTS = [
    {"num_players": 2},
    {"num_players": 4, "double_bonus": "any", "own_train_first": False},
    {"num_players": 6, "preset": "cardinal"},
    {"num_players": 3, "opening": "run", "unsatisfiable_double": "stand", "episode": "match", "rounds": 2},
]
CASES = [
    pytest.param(partial(raw_env, observation_encoder=name, **options), id=f"{name}-{i}")
    for i, options in enumerate(VARIANTS)
    for name in available_encoders("mexican_train")
]


def leaks(make_env, seed: int, positions: int) -> list[str]:
    """Positions where an agent's observation or mask changes when all it cannot see is redealt."""
    rng = np.random.default_rng(seed)
    env, other = make_env(), make_env()
    found = []
    for position in range(positions):
        env.reset(seed=seed * 100 + position)
        for _ in range(int(rng.integers(1, 80))):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            if env.game.is_terminal:
                env.reset(seed=seed * 100 + position)
        agent = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
        want = env.observe(agent)
        other.reset()
        other.game = determinize(env.game.view(env.agent_name_mapping[agent]), rng)
        got = other.observe(agent)
        for key in ("observation", "action_mask"):
            if got[key].tobytes() != want[key].tobytes():
                found.append(f"position {position}, {agent}: {key} differs")
    return found


@pytest.mark.parametrize("make_env", CASES)
def test_no_encoder_leaks(make_env) -> None:
    assert leaks(make_env, seed=1, positions=6) == []


class PeekingEncoder(DefaultMexicanTrainEncoder):
    """Leaks on purpose: the default observation plus the next seat's hand, read from the engine."""

    def __init__(self, env):
        super().__init__()
        self.env = env

    def encode(self, view) -> np.ndarray:
        next_hand = self.env.game.hands[(view.seat + 1) % view.config.num_players]
        peek = np.array([next_hand >> t & 1 for t in range(91)], np.float32)
        return np.concatenate([super().encode(view), peek])


def test_the_harness_catches_a_leaking_encoder() -> None:
    def make():
        env = raw_env(num_players=3)
        env.encoder = PeekingEncoder(env)
        return env

    found = leaks(make, seed=2, positions=4)
    assert found and all("observation differs" in line for line in found)


@pytest.mark.parametrize("options", VARIANTS)
def test_compact_voids_hold_for_the_true_hands(options: dict) -> None:
    """Every number a seat is said to lack is absent from its hand, at every step of random play."""
    env = raw_env(**options)
    rng = np.random.default_rng(3)
    voided = 0
    for episode in range(3):
        env.reset(seed=episode)
        while not env.game.is_terminal:
            view = env.game.view(0)
            for seat, void in enumerate(known_voids(view)):
                for v in range(13):
                    if void >> v & 1:
                        assert not env.game.hands[seat] & SUIT[v], f"seat {seat} holds a {v}"
                        voided += 1
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert voided > 0


def slot(encoder, config, obs: np.ndarray, name: str) -> set[int]:
    """The indices of the 1 entries of slot ``name`` in a flat observation."""
    found = next(s for s in encoder.slots(config) if s.name == name)
    return set(np.flatnonzero(obs[found.start:found.start + found.length]).tolist())


def test_compact_plan_slots_show_the_home_chain() -> None:
    """``plan`` holds the tiles of the longest chain of the hand from the seat's own train end,
    ``plan_first`` its first tile, ``coverable`` the numbers whose double the hand can cover; checked
    against a chain laid out by hand and at every step of random rounds."""
    env = raw_env(num_players=2, preset="cardinal", observation_encoder="compact")
    encoder = env.encoder
    assert longest_chain(12, sum(1 << TILES.index(*t) for t in [(12, 4), (4, 8), (3, 12), (3, 7), (7, 7),
                                                                 (7, 1), (1, 9), (0, 0)])) == tuple(
        TILES.index(*t) for t in [(3, 12), (3, 7), (7, 7), (1, 7), (1, 9)])
    rng = np.random.default_rng(4)
    planned = covered = 0
    for episode in range(3):
        env.reset(seed=episode)
        while not env.game.is_terminal:
            seat = env.agent_name_mapping[env.agent_selection]
            obs = env.observe(env.agent_selection)
            hand, end = env.game.hands[seat], env.game.view(seat).ends[seat]
            chain = longest_chain(end, hand)
            assert slot(encoder, env.config, obs["observation"], "plan") == set(chain)
            assert slot(encoder, env.config, obs["observation"], "plan_first") == set(chain[:1])
            assert all(hand >> t & 1 for t in chain) and len(chain) < NUM_TILES
            coverable = {v for v in range(13) if hand >> DOUBLE_TILE[v] & 1
                         and (hand & SUIT[v]).bit_count() > 1}
            assert slot(encoder, env.config, obs["observation"], "coverable") == coverable
            planned, covered = planned + bool(chain), covered + bool(coverable)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert planned > 0 and covered > 0


def test_history_tokens_stay_within_their_bound() -> None:
    encoder = get_encoder("mexican_train", "history")
    env = raw_env(num_players=8, observation_encoder="history")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    config = env.config
    width = len(encoder.encode(env.game.view(0))) // encoder.max_tokens(config)
    while not env.game.is_terminal:
        obs = env.observe(env.agent_selection)
        tokens = obs["observation"].reshape(encoder.max_tokens(config), width)
        assert tokens[:, 0].sum() == len(env.game.history)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
