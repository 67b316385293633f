"""Property tests (hypothesis): invariants that must hold for any set size, deal and line of play."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import (
    COUNT,
    NUM_ACTIONS,
    POINTS_PER_HAND,
    Texas42Config,
    Texas42Game,
)
from domino_env.rules.tiles import iter_bits, tile_set

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


@PROPERTY_SETTINGS
@given(max_pips=st.integers(2, 12), data=st.data())
def test_tile_index_round_trips_in_any_set(max_pips, data):
    tiles = tile_set(max_pips)
    n = max_pips + 1
    assert tiles.num_tiles == n * (n + 1) // 2
    assert tiles.total_pips == max_pips * n * (n + 1) // 2  # every number appears n + 1 times
    t = data.draw(st.integers(0, tiles.num_tiles - 1))
    a, b = tiles.low[t], tiles.high[t]
    assert tiles.index(a, b) == tiles.index(b, a) == t
    assert tiles.parse(tiles.name(t)) == t == tiles.parse(f"{a}-{b}")
    for v in (a, b):
        assert tiles.suit_mask[v] >> t & 1
    assert [bin(m).count("1") for m in tiles.suit_mask] == [n] * n


@PROPERTY_SETTINGS
@given(
    max_pips=st.integers(2, 12),
    variant=st.sampled_from(["block", "draw"]),
    data=st.data(),
)
def test_line_notation_round_trips_for_every_action(max_pips, variant, data):
    players = data.draw(st.integers(2, 4))
    hand = data.draw(st.integers(1, max(1, tile_set(max_pips).num_tiles // players - 1)))
    cfg = LineConfig(variant=variant, num_players=players, max_pips=max_pips, hand_size=hand,
                     draw_reserve=0, target_score=None)
    game = LineGame(cfg, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))
    action = data.draw(st.integers(0, cfg.num_actions - 1))
    text = game.action_to_text(action)
    assert game.action_from_text(text) == action
    assert game.action_from_text(text.upper().replace(" ", "  ")) == action


@PROPERTY_SETTINGS
@given(max_pips=st.integers(2, 9), seed=st.integers(0, 2**32 - 1), choices=st.lists(st.integers(0, 10**6)))
def test_line_tiles_are_conserved_and_refusals_leave_no_trace(max_pips, seed, choices):
    tiles = tile_set(max_pips)
    players = 2 + seed % 3
    hand = max(1, min(7, tiles.num_tiles // players - 2))
    cfg = LineConfig(
        variant="draw", num_players=players, max_pips=max_pips, hand_size=hand, target_score=None
    )
    game = LineGame(cfg, np.random.default_rng(seed))
    for choice in choices:
        if game.is_terminal:
            break
        legal = game.legal_mask()
        illegal = [a for a in range(cfg.num_actions) if not legal >> a & 1]
        if illegal:
            before = game.to_json()
            try:
                game.apply(illegal[choice % len(illegal)])
            except IllegalActionError:
                pass
            else:
                raise AssertionError("an unmasked action was accepted")
            assert game.to_json() == before
        legal_ids = list(iter_bits(legal))
        game.apply(legal_ids[choice % len(legal_ids)])
        placed = sum(1 << t for t, _seat, _side in game.line)
        parts = [*game.hands, placed, sum(1 << t for t in game.stock), game.out_of_play]
        assert sum(bin(p).count("1") for p in parts) == tiles.num_tiles
        union = 0
        for p in parts:
            assert union & p == 0, "a tile is in two places"
            union |= p
        assert union == tiles.full_mask


@PROPERTY_SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    choices=st.lists(st.integers(0, 10**6), min_size=40, max_size=40),
    trumps=st.sampled_from([{}, {"follow_me_doubles": "own_suit"}, {"plunge": True}]),
)
def test_texas42_hand_played_out_holds_42_points_and_one_team_scores(seed, choices, trumps):
    cfg = Texas42Config(stop_when_decided=False, all_pass="forced", **trumps)
    game = Texas42Game(cfg, np.random.default_rng(seed))
    moves = iter(choices)
    while not game.is_terminal:
        legal = [a for a in range(NUM_ACTIONS) if game.legal_mask() >> a & 1]
        game.apply(legal[next(moves) % len(legal)])
    result = game.last_result
    assert sum(result["points_taken"][:2]) == POINTS_PER_HAND == 7 + sum(COUNT)
    hand_marks = result["hand_marks"]
    assert (hand_marks[0] == 0) != (hand_marks[1] == 0), "exactly one team scores marks"
    assert hand_marks[0] == hand_marks[2] and hand_marks[1] == hand_marks[3]
