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


@pytest.mark.parametrize("open_hands", [False, True])
def test_texas88_compact_observation_does_not_tell_a_tiles_two_copies_apart(open_hands: bool) -> None:
    """Two deals that differ only in which copy of some tiles went where, played with the same
    moves (each copy's action mapped to its twin's), give the same compact observations at every
    step: the slots say "a copy of tile c" and "both copies", never which id a copy has."""
    from domino_env.encoders.texas42_compact import encode_compact

    config = Texas42Config(preset="texas88", open_hands=open_hands)
    v = config.variant
    rng = np.random.default_rng(3)
    for _ in range(6):
        order = rng.permutation(v.num_tiles)
        swapped_tiles = set(rng.choice(28, size=14, replace=False).tolist())
        twin = np.array([(t + 28) % 56 if t % 28 in swapped_tiles else t for t in range(56)])
        hands = [order[9 * s : 9 * s + 9].tolist() for s in range(6)]
        deal = {"hands": hands, "kitty": order[54:].tolist(), "shaker": int(rng.integers(6))}
        twin_deal = {"hands": [twin[h].tolist() for h in hands], "kitty": twin[order[54:]].tolist(),
                     "shaker": deal["shaker"]}
        game, twin_game = Texas42Game(config, rng, deal=deal), Texas42Game(config, rng, deal=twin_deal)
        differs = 0
        while not game.is_terminal:
            seat = game.current_player
            np.testing.assert_array_equal(encode_compact(game.view(seat)), encode_compact(twin_game.view(seat)))
            legal = game.legal_actions()
            action = legal[rng.integers(len(legal))]
            tile = action - v.play if v.play <= action < v.discard else action - v.discard
            twin_action = action - tile + int(twin[tile]) if action >= v.play else action
            differs += twin_action != action
            game.apply(action)
            twin_game.apply(twin_action)
        assert twin_game.is_terminal and differs > 0  # the twin did play other ids
