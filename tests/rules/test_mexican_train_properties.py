"""Property tests (hypothesis) for Mexican Train over option mixes hypothesis draws.

``test_mexican_train_fuzz.py`` plays a fixed list of configs; here every option is drawn on its own,
with the same invariants (its ``check_state`` and ``play_random``: tiles conserved, refusals leave no
trace, each round within ``max_decisions``). On top: every legal move (not just the one played)
applies, from the game and from its save alike, and round points are the pips left in hand in the
contract's units (3.8: ``double_blank_50`` adds 50 for the 0-0, ``blank_halves_25`` 25 a blank half).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from saved_moves import moves_from_game_and_save
from test_mexican_train_fuzz import check_state, play_random

from domino_env.rules.mexican_train import (
    BLANK_SCORINGS,
    DOUBLE_BONUSES,
    ENGINE_SOURCES,
    FIRST_PLAYERS,
    HAND_SIZE_TABLES,
    OPENINGS,
    TILES,
    UNSATISFIABLE,
    MexicanTrainConfig,
    MexicanTrainGame,
)

PROPERTY_SETTINGS = settings(max_examples=10, deadline=None)


def hand_sizes(players: int) -> st.SearchStrategy[int | str | None]:
    """The preset's size, a named table, or a number that leaves a boneyard."""
    return st.none() | st.sampled_from(sorted(HAND_SIZE_TABLES)) | st.integers(1, 80 // players)


@st.composite
def configs(draw: st.DrawFn) -> MexicanTrainConfig:
    """Any valid config of one or two rounds, each option drawn independently."""
    players = draw(st.integers(2, 8))
    rounds = draw(st.integers(1, 2))
    try:
        return MexicanTrainConfig(
            num_players=players,
            preset=draw(st.sampled_from(["standard", "cardinal"])),
            hand_size=draw(hand_sizes(players)),
            engine_source=draw(st.sampled_from(ENGINE_SOURCES)),
            first_player=draw(st.sampled_from(FIRST_PLAYERS)),
            opening=draw(st.sampled_from(OPENINGS)),
            own_train_first=draw(st.booleans()),
            double_bonus=draw(st.sampled_from(DOUBLE_BONUSES)),
            unsatisfiable_double=draw(st.sampled_from(UNSATISFIABLE)),
            blank_scoring=draw(st.sampled_from(BLANK_SCORINGS)),
            open_hands=draw(st.booleans()),
            episode="round" if rounds == 1 else "match",
            rounds=rounds,
        )
    except ValueError:  # a mix the contract rejects (hands too large for the set, ...)
        reject()


def blank_surcharge(blank_scoring: str, pips: int, round_points: int) -> bool:
    """Whether ``round_points`` is ``pips`` plus what ``blank_scoring`` may add for blanks."""
    extra = round_points - pips
    if blank_scoring == "face":
        return extra == 0
    if blank_scoring == "double_blank_50":
        return extra in (0, 50)
    return extra >= 0 and extra % 25 == 0


@PROPERTY_SETTINGS
@given(config=configs(), seed=st.integers(0, 2**32 - 1))
def test_any_option_mix_conserves_tiles_and_scores_pips(config, seed):
    rng = np.random.default_rng(seed)
    game = MexicanTrainGame(config, np.random.default_rng(seed + 1))
    play_random(game, rng, refusals=True)
    for result in game.results:
        for pips, points in zip(result.pips, result.round_points, strict=True):
            assert blank_surcharge(config.blank_scoring, pips, points)
    last = game.results[-1]
    held = [[t for t in range(TILES.num_tiles) if hand >> t & 1] for hand in game.hands]
    assert list(last.pips) == [sum(TILES.pips[t] for t in tiles) for tiles in held]
    assert game.winners == tuple(s for s, x in enumerate(game.scores) if x == min(game.scores))


@PROPERTY_SETTINGS
@given(config=configs(), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 150))
def test_every_legal_move_applies_from_the_game_and_its_save(config, seed, cut):
    game = MexicanTrainGame(config, np.random.default_rng(seed + 1))
    for _action, moved in moves_from_game_and_save(game, np.random.default_rng(seed), cut):
        check_state(moved)
