"""The compact encoders' fast paths against the rules they stand for."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.encoders.base import get_encoder, mask_to_array
from domino_env.encoders.line_compact import encode_compact, known_voids, slot_slices
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "draw", "num_players": 3, "preset": "boardpan"},  # draws "when_stuck"
        {"variant": "draw", "num_players": 2},  # pagat: draws "any"
        {"variant": "block", "num_players": 4, "teams": True},
    ],
)
def test_line_voids_from_the_per_seat_summaries_equal_the_history_replay(options: dict) -> None:
    """The encoder reads voids off ``passed_on``/``drawn_on``; ``known_voids`` replays the history."""
    config = LineConfig(target_score=None, **options)
    numbers, n = config.max_pips + 1, config.num_players
    rng = np.random.default_rng(7)
    for _ in range(40):
        game = LineGame(config, rng)
        while not game.is_terminal:
            for seat in range(n):
                view = game.view(seat)
                voids = encode_compact(view)[slot_slices(config)["voids"]].reshape(n - 1, numbers)
                replayed = known_voids(view)
                expected = [[replayed[(seat + r) % n] >> v & 1 for v in range(numbers)] for r in range(1, n)]
                np.testing.assert_array_equal(voids, expected)
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("game", ["dominoes", "texas42"])
def test_compact_encode_with_mask_is_encode_and_the_mask(game: str) -> None:
    encoder = get_encoder(game, "compact")
    rng = np.random.default_rng(3)
    state = LineGame(LineConfig(), rng) if game == "dominoes" else Texas42Game(Texas42Config(), rng)
    while not state.is_terminal:
        view = state.view(state.current_player)
        obs, mask = encoder.encode_with_mask(view, state.num_actions)
        np.testing.assert_array_equal(obs, encoder.encode(view))
        np.testing.assert_array_equal(mask, mask_to_array(view.legal_mask, state.num_actions))
        assert obs.dtype == np.float32 and mask.dtype == np.int8
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
