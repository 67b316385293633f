"""Property tests (hypothesis) for All Fives and Fives and Threes over option mixes hypothesis draws.

``test_fives_fuzz.py`` plays a fixed list of configs; here every option is drawn on its own, so mixes
nobody listed are played too, with the same per-step invariants (its ``check_*`` helpers): tiles
conserved, refusals leave no trace, scores in the right multiples, each hand within
``max_decisions``. On top: every legal move (not just the one played) applies, from the game and
from its save alike, and a play scores what the contract's count table says (2.3, 4.2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from saved_moves import moves_from_game_and_save
from test_fives_fuzz import check_scores, check_state, play_random

from domino_env.rules.fives import (
    BLOCKED_SCORINGS,
    DOUBLE_COUNTS,
    DRAW_POLICIES,
    HAND_ROUNDINGS,
    LEAD_RULES,
    NEXT_LEADERS,
    PRESETS,
    SCORE_UNITS,
    SPINNERS,
    TARGET_CHECKS,
    FivesConfig,
    FivesGame,
)

PROPERTY_SETTINGS = settings(max_examples=20, deadline=None)


@st.composite
def configs(draw: st.DrawFn) -> FivesConfig:
    """Any valid config: the game, the seats, then each option of that game drawn independently."""
    players = draw(st.integers(2, 4))
    options: dict[str, Any] = {
        "num_players": players,
        "teams": players == 4 and draw(st.booleans()),
        "open_hands": draw(st.booleans()),
        "hand_size": draw(st.none() | st.integers(1, 28 // players)),
    }
    if draw(st.booleans()):
        options |= {
            "variant": "fives_and_threes",
            "chip_out_bonus": draw(st.sampled_from([0, 1])),
            "target_score": draw(st.sampled_from([None, 31, 61, "exact_61"])),
        }
    else:
        options |= {
            "preset": draw(st.sampled_from(PRESETS)),
            "spinner": draw(st.sampled_from(SPINNERS)),
            "draw_policy": draw(st.sampled_from(DRAW_POLICIES)),
            "draw_reserve": draw(st.sampled_from([0, 2])),
            "lead_rule": draw(st.sampled_from(LEAD_RULES)),
            "next_leader": draw(st.sampled_from(NEXT_LEADERS)),
            "double_count": draw(st.sampled_from(DOUBLE_COUNTS)),
            "hand_rounding": draw(st.sampled_from(HAND_ROUNDINGS)),
            "blocked_scoring": draw(st.sampled_from(BLOCKED_SCORINGS)),
            "score_unit": draw(st.sampled_from(SCORE_UNITS)),
            "target_check": draw(st.sampled_from(TARGET_CHECKS)),
        }
        fives = options["score_unit"] == "fives"
        options["target_score"] = draw(st.sampled_from([None, 8 if fives else 40]))
    try:
        return FivesConfig(**options)
    except ValueError:  # a mix the contract rejects (a reserve as large as the stock, ...)
        reject()


def contract_play_points(config: FivesConfig, count: int) -> int:
    """What a play leaving count ``count`` scores: its multiple of five (All Fives, 2.3), or its
    fives plus its threes (Fives and Threes, 4.2: 15 scores 5 + 3)."""
    if config.is_all_fives:
        points = count if count % 5 == 0 else 0
        return points // 5 if config.score_unit == "fives" else points
    return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)


@PROPERTY_SETTINGS
@given(config=configs(), seed=st.integers(0, 2**32 - 1))
def test_any_option_mix_keeps_the_invariants_to_the_end(config, seed):
    rng = np.random.default_rng(seed)
    play_random(FivesGame(config, np.random.default_rng(seed + 1)), rng, check_refusals=True)


@PROPERTY_SETTINGS
@given(config=configs(), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 120))
def test_every_legal_move_applies_from_the_game_and_its_save(config, seed, cut):
    game = FivesGame(config, np.random.default_rng(seed + 1))
    for action, moved in moves_from_game_and_save(game, np.random.default_rng(seed), cut):
        check_state(moved)
        check_scores(moved)
        if action < game.draw_action:
            points = moved.history[-1][2] if moved.history else None
            if points is None:  # the play ended the hand and a new one was dealt
                continue
            expected = contract_play_points(config, moved.count)
            assert points == expected or (config.exact_target and points == 0)
