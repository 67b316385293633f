"""Random play over every line-game variant: invariants that must hold at every step."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import LineConfig, LineGame

CONFIGS = [
    LineConfig(variant=v, num_players=n, teams=teams, preset=p, target_score=target)
    for v, p, (n, teams), target in itertools.product(
        ("block", "draw"), ("pagat", "boardpan"), ((2, False), (3, False), (4, False), (4, True)), (None, 30)
    )
] + [
    LineConfig(variant="draw", max_pips=9, num_players=4, preset="boardpan", target_score=None),
    LineConfig(variant="block", max_pips=3, num_players=2, hand_size=4, target_score=None),
]


def check_conservation(game: LineGame) -> None:
    full = game.tiles.full_mask
    on_line = sum(1 << t for t, _seat, _side in game.line)
    parts = [*game.hands, on_line, sum(1 << t for t in game.stock), game.out_of_play]
    union = 0
    for part in parts:
        assert union & part == 0, "a tile is in two places"
        union |= part
    assert union == full
    assert sum(p.bit_count() for p in parts) == game.tiles.num_tiles


def play_random(game: LineGame, rng: np.random.Generator, check_refusals: bool) -> int:
    """Random legal moves to the end; returns the number of moves. Checks invariants each step."""
    for moves in itertools.count():
        check_conservation(game)
        if game.is_terminal:
            assert game.legal_mask() == 0 and game.current_player is None
            return moves
        legal = game.legal_actions()
        assert legal, "a seat to act always has a move"
        if check_refusals:
            before = game.to_json()
            for a in set(range(game.num_actions)) - set(legal):
                with pytest.raises(IllegalActionError):
                    game.apply(a)
            assert game.to_json() == before
            probe = game.clone()
            for a in legal:  # every masked action is accepted
                trial = probe.clone()
                trial.apply(a)
        game.apply(int(rng.choice(legal)))
        assert moves < 5000, "episode does not end"
    raise AssertionError("unreachable")


def test_thousands_of_random_games_conserve_tiles_and_end():
    rng = np.random.default_rng(2024)
    games = 0
    for cfg in CONFIGS:
        for _ in range(100):
            game = LineGame(cfg, np.random.default_rng(rng.integers(2**32)))
            play_random(game, rng, check_refusals=False)
            if cfg.target_score is not None:
                assert max(game.scores) >= cfg.target_score
            games += 1
    assert games >= 3000


def test_masked_actions_accepted_unmasked_refused():
    rng = np.random.default_rng(7)
    for cfg in CONFIGS:
        for _ in range(4):
            play_random(LineGame(cfg, np.random.default_rng(rng.integers(2**32))), rng, check_refusals=True)


@settings(max_examples=60, deadline=None)
@given(
    cfg=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**32 - 1),
    cut=st.integers(0, 200),
)
def test_save_anywhere_restores_exactly(cfg, seed, cut):
    rng = np.random.default_rng(seed)
    game = LineGame(cfg, np.random.default_rng(seed))
    for _ in range(cut):
        if game.is_terminal:
            break
        game.apply(int(rng.choice(game.legal_actions())))
    restored = LineGame.from_json(game.to_json())
    assert restored.to_json() == game.to_json()
    seats = range(cfg.num_players)
    assert [restored.view(s) for s in seats] == [game.view(s) for s in seats]
