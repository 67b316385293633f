"""Leak harness (docs/rules.md 4): no encoder shows a seat anything its view does not allow.

For every registered encoder and every game variant: play random positions through the
environment, resample everything the observing seat cannot see with ``sample_consistent_deal``,
put the rebuilt engine into a fresh environment and require the seat's observation and action
mask to be bit-identical. A deliberately leaking encoder (it peeks at the engine) must fail it.
Finished episodes are left out: their scores count the hands, which a round's end makes public.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import partial

import numpy as np
import pytest

from domino_env.encoders.base import available_encoders
from domino_env.encoders.line import DefaultLineEncoder
from domino_env.encoders.texas42 import DefaultTexas42Encoder
from domino_env.envs.base import DominoAECEnv
from domino_env.envs.dominoes_v0 import raw_env as line_env
from domino_env.envs.texas42_v0 import raw_env as texas42_env
from domino_env.search.beliefs import rebuild, sample_consistent_deal

LINE_VARIANTS = [
    {"variant": v, "num_players": n, "teams": teams, "preset": p}
    for v, (n, teams), p in itertools.product(
        ("block", "draw"), ((2, False), (3, False), (4, False), (4, True)), ("pagat", "boardpan")
    )
]
def _label(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items()) or "standard"


TEXAS42_VARIANTS = [
    {},
    {"nello": "high", "plunge": True, "sevens": True, "forced_bid": True, "follow_me_doubles": "own_suit",
     "stop_when_decided": False, "episode": "game"},
    {"preset": "n42pa"},
    {"num_players": 3},
    {"num_players": 3, "nello": "low", "sevens": True, "forced_bid": True, "stop_when_decided": False,
     "episode": "game"},
    {"preset": "texas88"},  # the kitty, and the bid winner's discards for every other seat
    {"preset": "texas88", "stop_when_decided": False, "episode": "game", "open_hands": True},
]
# Every registered encoder of each game, so a new encoder is covered without touching this file.
CASES = [
    pytest.param(partial(make, observation_encoder=name, **options), id=f"{game}-{name}-{_label(options)}")
    for game, make, variants in (
        ("dominoes", line_env, LINE_VARIANTS),
        ("texas42", texas42_env, TEXAS42_VARIANTS),
    )
    for options in variants
    for name in available_encoders(game)
]


def _random_moves(env: DominoAECEnv, seed: int, rng: np.random.Generator) -> list[int]:
    """The moves of one random episode from ``reset(seed=seed)``."""
    env.reset(seed=seed)
    moves = []
    while not env.game.is_terminal:
        moves.append(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        env.step(moves[-1])
    return moves


def leaks(make_env: Callable[[], DominoAECEnv], seed: int, positions: int, resamples: int) -> list[str]:
    """Mismatches found: each names the position; empty when nothing hidden reaches an observation."""
    rng = np.random.default_rng(seed)
    env, other = make_env(), make_env()
    found = []
    for position in range(positions):
        moves = _random_moves(env, seed * 1000 + position, rng)
        env.reset(seed=seed * 1000 + position)
        steps = int(rng.integers(len(moves)))  # any position before the end
        for action in moves[:steps]:
            env.step(action)
        agent = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
        seat = env.agent_name_mapping[agent]
        want = env.observe(agent)
        view = env.game.view(seat)
        for _ in range(resamples):
            other.reset()
            other.game = rebuild(view, sample_consistent_deal(view, rng), rng)
            got = other.observe(agent)
            for key in ("observation", "action_mask"):
                if got[key].dtype != want[key].dtype or got[key].tobytes() != want[key].tobytes():
                    found.append(f"position {position} after {steps} steps, {agent}: {key} differs")
    return found


@pytest.mark.parametrize("make_env", CASES)
def test_no_encoder_leaks(make_env: Callable[[], DominoAECEnv]) -> None:
    # Texas 88: fewer positions, as a 56-tile consistent deal takes the sampler about 2 s to draw.
    positions, resamples = (4, 2) if make_env.keywords.get("preset") == "texas88" else (12, 3)
    assert leaks(make_env, seed=1, positions=positions, resamples=resamples) == []


@pytest.mark.benchmark
@pytest.mark.parametrize("make_env", CASES)
def test_no_encoder_leaks_long(make_env: Callable[[], DominoAECEnv]) -> None:
    assert leaks(make_env, seed=2, positions=100, resamples=5) == []


class PeekingEncoder(DefaultLineEncoder):
    """Leaks on purpose: the default observation plus the hand of the next seat, read from the engine."""

    def __init__(self, env: DominoAECEnv):
        super().__init__()
        self.env = env

    def encode(self, view) -> np.ndarray:  # noqa: ANN001
        next_hand = self.env.game.hands[(view.seat + 1) % view.config.num_players]
        peek = np.array([next_hand >> t & 1 for t in range(view.config.tiles.num_tiles)], np.float32)
        return np.concatenate([super().encode(view), peek])


class KittyPeekingEncoder(DefaultTexas42Encoder):
    """Leaks on purpose: the default Texas 88 observation plus the kitty, then the discards."""

    def __init__(self, env: DominoAECEnv):
        super().__init__()
        self.env = env

    def encode(self, view) -> np.ndarray:  # noqa: ANN001
        game = self.env.game
        hidden = game.kitty | sum(1 << t for t in game.discards)
        peek = np.array([hidden >> t & 1 for t in range(game.variant.num_tiles)], np.float32)
        return np.concatenate([super().encode(view), peek])


def test_harness_catches_an_encoder_that_shows_the_88_kitty_or_discards() -> None:
    def make() -> DominoAECEnv:
        env = texas42_env(preset="texas88")
        env.encoder = KittyPeekingEncoder(env)
        return env

    found = leaks(make, seed=1, positions=3, resamples=1)
    assert found and all("observation differs" in line for line in found)


def test_harness_catches_a_leaking_encoder() -> None:
    def make() -> DominoAECEnv:
        env = line_env(variant="draw", num_players=3)
        env.encoder = PeekingEncoder(env)
        return env

    found = leaks(make, seed=1, positions=6, resamples=3)
    assert found and all("observation differs" in line for line in found)
