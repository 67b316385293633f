"""Random play over every All Fives / Fives and Threes option mix: invariants that hold at every step."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.fives import MAX_COUNT, FivesConfig, FivesGame

PLAYERS = ((2, False), (3, False), (4, False), (4, True))
VARIED = {  # every non-default All Fives option at once
    "spinner": "none", "draw_policy": "may_draw", "draw_reserve": 2, "lead_rule": "highest_double",
    "next_leader": "rotate", "double_count": "one_half", "hand_rounding": "exact",
    "blocked_scoring": "others_minus_own", "target_check": "end_of_hand",
}
CONFIGS = [
    FivesConfig(num_players=n, teams=teams, preset=preset, target_score=target)
    for (n, teams), preset, target in itertools.product(PLAYERS, ("standard", "classic"), (None, 40))
] + [
    FivesConfig(num_players=n, teams=teams, target_score=60, **VARIED) for n, teams in PLAYERS
] + [
    FivesConfig(num_players=n, teams=teams, score_unit="fives", target_score=12, draw_policy="may_draw")
    for n, teams in PLAYERS
] + [
    FivesConfig(variant="fives_and_threes", num_players=n, teams=teams, target_score=t, chip_out_bonus=bonus)
    for (n, teams), t, bonus in itertools.product(PLAYERS, (None, 61, "exact_61"), (0, 1))
] + [
    FivesConfig(num_players=2, hand_size=3, draw_reserve=21, target_score=None),
    FivesConfig(variant="fives_and_threes", num_players=3, hand_size=9, open_hands=True),
]


def check_state(game: FivesGame) -> None:
    """Tiles conserved, the mask agrees with the views, partners' scores equal."""
    cfg = game.config
    parts = [*game.hands, game.table, sum(1 << t for t in game.stock), game.out_of_play]
    union = 0
    for part in parts:
        assert union & part == 0, "a tile is in two places"
        union |= part
    assert union == (1 << 28) - 1 and sum(p.bit_count() for p in parts) == 28
    placed = [game.centre, *itertools.chain.from_iterable(game.arms)] if game.centre else []
    assert sum(1 << r[0] for r in placed) == game.table and len(placed) == game.plays
    assert 0 <= game.count <= MAX_COUNT[cfg.variant]
    if cfg.teams:
        assert game.scores[0] == game.scores[2] and game.scores[1] == game.scores[3]
    if game.is_terminal:
        assert game.legal_mask() == 0 and game.current_player is None
        return
    mask = game.legal_mask()
    assert mask and mask < 1 << game.num_actions
    assert game.hands[game.current_player], "a seat with no tiles never acts"
    for s in range(game.num_players):
        view = game.view(s)
        assert view.legal_mask == (mask if s == game.current_player else 0)
        assert view.hand == game.hands[s] and (view.hands is not None) == cfg.open_hands
        assert view.count == game.count and view.scores == tuple(game.scores)
    if not cfg.is_all_fives:
        assert not mask >> game.draw_action & 1
        assert mask < 1 << game.draw_action or mask == 1 << game.pass_action


def check_scores(game: FivesGame) -> None:
    """Scores are the sum of the finished hands and this hand's play points, in the right multiples."""
    cfg = game.config
    finished = [sum(r.points[s] for r in game.results) for s in range(game.num_players)]
    ongoing = [0] * game.num_players if game.is_terminal else game.play_points
    assert game.scores == [a + b for a, b in zip(finished, ongoing, strict=True)]
    plays = [p for _s, a, p, _e in game.history if a < game.draw_action]
    if cfg.is_all_fives and cfg.score_unit == "points":
        assert all(p % 5 == 0 for p in plays)
        if cfg.hand_rounding == "nearest5":
            assert all(x % 5 == 0 for x in game.scores)
    if cfg.exact_target:
        assert max(game.scores) <= cfg.target_score
    assert all(0 <= p <= cfg.max_play_points for p in plays)
    for r in game.results:
        assert max(r.points) <= cfg.max_round_points


def check_end(game: FivesGame) -> None:
    cfg = game.config
    target = cfg.target_score
    if target is None:
        assert len(game.results) == 1
        return
    top = max(game.scores)
    assert top >= target
    leaders = {cfg.side_of(s) for s in range(game.num_players) if game.scores[s] == top}
    assert len(leaders) == 1
    if cfg.exact_target:
        assert top == target


def play_random(game: FivesGame, rng: np.random.Generator, check_refusals: bool) -> int:
    """Random legal moves to the end of the match, checking invariants; returns the moves made."""
    in_hand = 0
    for moves in itertools.count():
        check_state(game)
        check_scores(game)
        if game.is_terminal:
            check_end(game)
            return moves
        legal = game.legal_actions()
        if check_refusals and moves % 5 == 0:
            illegal = [a for a in range(game.num_actions) if a not in legal]
            if illegal:
                before = game.to_json()
                with pytest.raises(IllegalActionError):
                    game.apply(int(rng.choice(illegal)))
                assert game.to_json() == before
        hand = game.hand_index
        game.apply(int(rng.choice(legal)))
        in_hand += 1
        if game.hand_index != hand or game.is_terminal:
            assert in_hand <= game.config.max_decisions
            in_hand = 0
        assert moves < 200 * game.config.max_decisions, "the match does not end"
    raise AssertionError("unreachable")


@pytest.mark.parametrize("index", range(len(CONFIGS)))
def test_random_games_keep_invariants(index):
    cfg = CONFIGS[index]
    rng = np.random.default_rng(index)
    for seed in range(6):
        play_random(FivesGame(cfg, np.random.default_rng(seed)), rng, check_refusals=seed < 2)


@settings(max_examples=40, deadline=None)
@given(index=st.integers(0, len(CONFIGS) - 1), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 150))
def test_clone_and_save_replay_identically(index, seed, cut):
    cfg = CONFIGS[index]
    rng = np.random.default_rng(seed)
    game = FivesGame(cfg, np.random.default_rng(seed + 1))
    for _ in range(cut):
        if game.is_terminal:
            break
        game.apply(int(rng.choice(game.legal_actions())))
    copies = [game.clone(), FivesGame.from_json(game.to_json())]
    assert all(c.to_json() == game.to_json() for c in copies)
    moves = np.random.default_rng(seed + 2)
    while not game.is_terminal:
        a = int(moves.choice(game.legal_actions()))
        for g in (game, *copies):
            g.apply(a)
    for c in copies:
        assert c.is_terminal and c.scores == game.scores and c.results == game.results
        assert [c.view(s) for s in range(c.num_players)] == [game.view(s) for s in range(game.num_players)]


@settings(max_examples=25, deadline=None)
@given(index=st.integers(0, len(CONFIGS) - 1), seed=st.integers(0, 2**32 - 1))
def test_auto_move_is_always_legal(index, seed):
    game = FivesGame(CONFIGS[index], np.random.default_rng(seed))
    for _ in range(400):
        if game.is_terminal:
            break
        a = game.auto_move()
        assert game.legal_mask() >> a & 1
        game.apply(a)
