"""Random Texas 42 play under every option and variant (three players, Texas 88): masks agree with
``apply``, points add up (42, 44, 88), exactly the winning side scores, games end."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.texas42 import Texas42Config, Texas42Game
from domino_env.rules.tiles import iter_bits

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
    "three players": {"num_players": 3},
    "three players, every option, all tricks": {
        "num_players": 3, "nello": "low", "sevens": True, "forced_bid": True, "stop_when_decided": False,
    },
    "three players, games": {"num_players": 3, "nello": "high", "sevens": True, "episode": "game"},
    "texas88": {"preset": "texas88"},
    "texas88, all tricks": {"preset": "texas88", "stop_when_decided": False},
    "texas88, games": {"preset": "texas88", "episode": "game"},
}


def fingerprint(game: Texas42Game) -> tuple:
    return (
        tuple(game.hands), tuple(game.history), game.phase, game.current_player, tuple(game.marks),
        game.deals, tuple(game.discards),
    )


def random_episode(game: Texas42Game, rng: np.random.Generator, check_refusals: bool) -> int:
    """Play to the end; every masked action must apply on a clone, every other one must raise."""
    steps = 0
    while not game.is_terminal:
        mask = game.legal_mask()
        assert mask and mask >> game.num_actions == 0
        for a in iter_bits(mask):
            game.clone().apply(a)
        if check_refusals:
            before = fingerprint(game)
            for a in range(game.num_actions):
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
        contract, v = result["contract"], game.variant
        sides = v.sides(contract["bidder"])  # exactly the winning side scores: the bidder's, or the others
        scorers = {s for s, m in enumerate(result["hand_marks"]) if m}
        won = sides[contract["bidder"]] if contract["made"] else 1 - sides[contract["bidder"]]
        assert scorers == {s for s in range(game.num_players) if sides[s] == won}
        if not config.stop_when_decided:
            unplayed = game.hands[game.sitting_out] if game.declaration == v.nello else 0
            out = sum(1 << t for t in game.discards) | unplayed  # 88 discards count only when forced
            assert sum(game.points) == v.points_per_hand - sum(v.count[t] for t in iter_bits(out))
            assert len(game.tricks) == v.num_tricks
            assert sum(game.points) == v.points_per_hand or game.declaration == v.nello
        assert Texas42Game.from_json(game.to_json()).to_json() == game.to_json()


@pytest.mark.parametrize(
    "options",
    [
        {"nello": "high", "plunge": True, "sevens": True},
        {"num_players": 3, "nello": "high", "sevens": True},
        {"preset": "texas88"},
    ],
    ids=["four players", "three players", "texas88"],
)
def test_saved_games_replay_mid_hand(options: dict) -> None:
    rng = np.random.default_rng(7)
    config = Texas42Config.make(**options, episode="game")
    game, policy = Texas42Game(config, rng), np.random.default_rng(8)
    for _ in range(400):
        if game.is_terminal:
            break
        copy = Texas42Game.from_json(game.to_json())
        assert fingerprint(copy) == fingerprint(game) and copy.view(0) == game.view(0)
        legal = game.legal_actions()
        action = legal[policy.integers(len(legal))]  # not the game's generator: the copy holds its state
        game.apply(action)
        copy.apply(action)
        assert copy.render_text() == game.render_text()  # same generator state: same next deal


@pytest.mark.parametrize("options", [{}, {"num_players": 3}, {"preset": "texas88"}], ids=["4", "3", "88"])
def test_different_generators_deal_differently(options: dict) -> None:
    config = Texas42Config.make(**options)
    deals = {Texas42Game(config, np.random.default_rng(seed)).dealt for seed in range(20)}
    assert len(deals) == 20
