"""Random Texas 42 play under every option: masks agree with ``apply``, points add up, games end."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.texas42 import COUNT, NELLO, NUM_ACTIONS, POINTS_PER_HAND, Texas42Config, Texas42Game
from domino_env.tiles import iter_bits

CONFIGS = {
    "standard": {},
    "n42pa, all tricks": {"preset": "n42pa", "stop_when_decided": False},
    "every option, all tricks": {
        "nello": "low",
        "plunge": True,
        "sevens": True,
        "forced_bid": True,
        "follow_me_doubles": "own_suit",
        "stop_when_decided": False,
    },
    "every option, games": {"nello": "own_suit", "plunge": True, "sevens": True, "episode": "game"},
}


def fingerprint(game: Texas42Game) -> tuple:
    return (tuple(game.hands), tuple(game.history), game.phase, game.to_act, tuple(game.marks), game.deals)


def random_episode(game: Texas42Game, rng: np.random.Generator, check_refusals: bool) -> int:
    """Play to the end; every masked action must apply on a clone, every other one must raise."""
    steps = 0
    while not game.is_terminal:
        mask = game.legal_mask()
        assert mask and mask >> NUM_ACTIONS == 0
        for a in iter_bits(mask):
            game.clone().apply(a)
        if check_refusals:
            before = fingerprint(game)
            for a in range(NUM_ACTIONS):
                if not mask >> a & 1:
                    with pytest.raises(IllegalActionError):
                        game.apply(a)
            assert fingerprint(game) == before
        legal = list(iter_bits(mask))
        game.apply(legal[rng.integers(len(legal))])
        steps += 1
        assert steps < 5000, "episode does not end"
    with pytest.raises(IllegalActionError):
        game.apply(0)
    return steps


@pytest.mark.parametrize("name", CONFIGS)
def test_random_play_masks_and_points(name: str) -> None:
    options = dict(CONFIGS[name])
    config = Texas42Config.make(options.pop("preset", "standard"), **options)
    rng = np.random.default_rng(hash(name) % 2**32)
    episodes = 40 if config.episode == "game" else 400
    for i in range(episodes):
        game = Texas42Game(config, rng)
        random_episode(game, rng, check_refusals=i % 10 == 0)
        result = game.last_result
        assert result is not None and max(game.marks) >= (
            config.target_marks if config.episode == "game" else 1
        )
        assert sum(result["hand_marks"]) == 2 * max(result["hand_marks"])  # one team scores
        if not config.stop_when_decided:
            unplayed = game.hands[game.sitting_out] if game.declaration == NELLO else 0
            expected = POINTS_PER_HAND - sum(COUNT[t] for t in iter_bits(unplayed))
            assert sum(game.points) == expected and len(game.tricks) == 7
        assert Texas42Game.from_json(game.to_json()).to_json() == game.to_json()


def test_saved_games_replay_mid_hand() -> None:
    rng = np.random.default_rng(7)
    config = Texas42Config.make(nello="high", plunge=True, sevens=True, episode="game")
    game = Texas42Game(config, rng)
    for _ in range(400):
        if game.is_terminal:
            break
        copy = Texas42Game.from_json(game.to_json())
        assert fingerprint(copy) == fingerprint(game) and copy.view(0) == game.view(0)
        legal = game.legal_actions()
        action = legal[rng.integers(len(legal))]
        game.apply(action)
        copy.apply(action)
        assert copy.render_text() == game.render_text()  # same generator state: same next deal


def test_different_generators_deal_differently() -> None:
    deals = {Texas42Game(Texas42Config(), np.random.default_rng(seed)).dealt for seed in range(20)}
    assert len(deals) == 20
