"""Random play over Mexican Train for 2-8 players and mixed options: invariants at every step."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.mexican_train import (
    BLANK_SCORINGS,
    DOUBLE_BONUSES,
    OPENINGS,
    TILES,
    UNSATISFIABLE,
    MexicanTrainConfig,
    MexicanTrainGame,
)

CONFIGS = [
    MexicanTrainConfig(num_players=n, preset=preset, episode="round")
    for n, preset in itertools.product(range(2, 9), ("standard", "cardinal"))
] + [
    MexicanTrainConfig(num_players=3, double_bonus="any", unsatisfiable_double="stand", own_train_first=False,
                       episode="round"),
    MexicanTrainConfig(num_players=5, preset="cardinal", double_bonus="any", hand_size="fundex",
                       blank_scoring="blank_halves_25", episode="round"),
    MexicanTrainConfig(num_players=8, opening="run", own_train_first=False, unsatisfiable_double="stand",
                       hand_size="bh", episode="round"),
    MexicanTrainConfig(num_players=2, hand_size=40, double_bonus="any", episode="round"),
    MexicanTrainConfig(num_players=4, rounds=3, blank_scoring="double_blank_50"),
]


def check_state(game: MexicanTrainGame) -> None:
    """Every tile in exactly one place; trains chain out of the engine; the seat to act can move."""
    on_trains = 0
    for train, end in zip(game.trains, game.ends, strict=True):
        value = game.engine
        for t, _seat, after in train:
            assert value in (TILES.low[t], TILES.high[t]) and after == TILES.other_half(t, value)
            value = after
            assert not on_trains >> t & 1
            on_trains |= 1 << t
        assert value == end
    engine = 1 << TILES.index(game.engine, game.engine)
    parts = [*game.hands, on_trains, sum(1 << t for t in game.boneyard), engine, game.out_of_play]
    union = 0
    for part in parts:
        assert not union & part, "a tile is in two places"
        union |= part
    assert union == TILES.full_mask and game.out_of_play == 0
    if game.config.double_bonus == "cover":
        assert len(game.open_doubles) <= 1
    if game.is_terminal:
        assert game.current_player is None and game.legal_mask() == 0
    else:
        assert game.legal_mask(), "the seat to act always has a move"
        assert game.legal_mask() >> game.num_actions == 0


def play_random(game: MexicanTrainGame, rng: np.random.Generator, refusals: bool = False) -> int:
    """Random legal moves to the end of the episode, checking invariants; returns the move count."""
    cfg, moves, in_round, rounds = game.config, 0, 0, game.round_index
    while not game.is_terminal:
        check_state(game)
        legal = game.legal_actions()
        if refusals:
            before = game.to_json()
            for a in rng.choice(game.num_actions, 20):
                if int(a) not in legal:
                    with pytest.raises(IllegalActionError):
                        game.apply(int(a))
            assert game.to_json() == before
        game.apply(int(rng.choice(legal)))
        moves += 1
        in_round += 1
        if game.round_index != rounds:
            rounds, in_round = game.round_index, 0
        assert in_round <= cfg.max_decisions, "a round ran past max_decisions"
    check_state(game)
    assert len(game.results) == cfg.num_rounds
    assert game.scores == [sum(r.round_points[s] for r in game.results) for s in range(game.num_players)]
    for r in game.results:
        assert (r.kind == "domino") == (r.out is not None)
        if r.out is not None:
            assert r.round_points[r.out] == 0
    return moves


def test_random_games_conserve_tiles_and_end():
    rng = np.random.default_rng(2026)
    kinds: Counter[str] = Counter()
    for cfg in CONFIGS:
        for _ in range(15 if cfg.episode == "round" else 3):
            game = MexicanTrainGame(cfg, np.random.default_rng(rng.integers(2**32)))
            play_random(game, rng)
            kinds.update(r.kind for r in game.results)
    assert kinds["domino"] and kinds["blocked"]  # both endings were reached


def test_unmasked_actions_refused():
    rng = np.random.default_rng(8)
    for cfg in CONFIGS[::4]:
        play_random(MexicanTrainGame(cfg, np.random.default_rng(rng.integers(2**32))), rng, refusals=True)


def test_views_hold_only_the_seats_hand():
    rng = np.random.default_rng(3)
    for cfg in CONFIGS[:6]:
        game = MexicanTrainGame(cfg, np.random.default_rng(rng.integers(2**32)))
        while not game.is_terminal:
            for seat in range(game.num_players):
                view = game.view(seat)
                assert view.hand == game.hands[seat] and view.hands is None
                assert view.legal_mask == (game.legal_mask() if seat == game.current_player else 0)
                assert sum(view.hand_sizes) == sum(h.bit_count() for h in game.hands)
            game.apply(int(rng.choice(game.legal_actions())))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 8),
    opening=st.sampled_from(OPENINGS),
    bonus=st.sampled_from(DOUBLE_BONUSES),
    unsatisfiable=st.sampled_from(UNSATISFIABLE),
    scoring=st.sampled_from(BLANK_SCORINGS),
    holder=st.booleans(),
    own_first=st.booleans(),
    cut=st.floats(0, 1),
)
def test_clone_and_save_replay_identically(
    seed, players, opening, bonus, unsatisfiable, scoring, holder, own_first, cut
):
    cfg = MexicanTrainConfig(
        num_players=players, opening=opening, double_bonus=bonus, unsatisfiable_double=unsatisfiable,
        blank_scoring=scoring, engine_source="holder" if holder else "set_aside", own_train_first=own_first,
        rounds=2,
    )
    rng = np.random.default_rng(seed)
    game = MexicanTrainGame(cfg, np.random.default_rng(seed))
    reference = game.clone()
    moves = [int(rng.choice(reference.legal_actions()))]
    while True:  # one whole playthrough decides the moves
        reference.apply(moves[-1])
        if reference.is_terminal:
            break
        moves.append(int(rng.choice(reference.legal_actions())))
    stop = int(cut * len(moves))
    for a in moves[:stop]:
        game.apply(a)
    copies = [game.clone(), MexicanTrainGame.from_json(game.to_json())]
    for copy in copies:
        assert copy.to_json() == game.to_json() and copy.view(0) == game.view(0)
    for a in moves[stop:]:
        for g in (game, *copies):
            g.apply(a)
    for g in (game, *copies):
        assert g.is_terminal and g.to_json() == reference.to_json() and g.scores == reference.scores
        assert g.results == reference.results
