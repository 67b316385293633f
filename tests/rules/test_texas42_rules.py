"""Scripted Texas 42 positions, one per rule of docs/rules.md 3.2-3.6 (exact legal sets and scores)."""

from __future__ import annotations

import numpy as np
import pytest
from texas42_moves import DEAL_P, DEAL_X, legal_texts, play

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.texas42 import (
    COUNT,
    DECLARE,
    NUM_ACTIONS,
    PLAY,
    TILES,
    Texas42Config,
    Texas42Game,
)


def new_game(hands: list[list[str]] = DEAL_X, shaker: int = 3, **options) -> Texas42Game:
    """Shaker 3 by default, so seat 0 bids first."""
    config = Texas42Config.make(**options)
    return Texas42Game(config, np.random.default_rng(0), deal={"hands": hands, "shaker": shaker})


def tiles(*names: str) -> set[str]:
    return {f"play {TILES.name(TILES.parse(n))}" for n in names}


# ----- 3.2 bidding ------------------------------------------------------------------------------
def test_opening_bids_are_30_to_41_and_one_or_two_marks() -> None:
    game = new_game()
    assert game.current_player == 0  # left of shaker 3
    assert legal_texts(game) == {"pass"} | {f"bid {b}" for b in range(30, 42)} | {"bid 1m", "bid 2m"}


def test_each_bid_must_beat_the_highest_and_marks_rise_one_at_a_time() -> None:
    game = play(new_game(), "bid 35")
    assert legal_texts(game) == {"pass"} | {f"bid {b}" for b in range(36, 42)} | {"bid 1m", "bid 2m"}
    play(game, "bid 1m")
    assert legal_texts(game) == {"pass", "bid 2m"}
    play(game, "bid 2m")
    assert legal_texts(game) == {"pass", "bid 3m"}  # 3 only over 2, never 4
    play(game, "bid 3m")
    assert game.phase == DECLARE and game.current_player == 3 and game.bidder == 3


def test_the_bidder_declares_and_leads() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass")
    assert game.current_player == 0 and game.phase == DECLARE
    assert legal_texts(game) == {f"trump {v}" for v in range(7)} | {"trump doubles", "trump followme"}
    play(game, "trump 3")
    assert game.current_player == 0
    assert legal_texts(game) == tiles(*DEAL_X[0])


def test_illegal_move_raises_naming_it_and_the_legal_moves_and_changes_nothing() -> None:
    game = play(new_game(), "bid 35")
    before = game.to_json()
    for bad in (game.action_from_text("bid 30"), game.action_from_text("play 6-6"), NUM_ACTIONS, -1):
        with pytest.raises(IllegalActionError) as err:
            game.apply(bad)
        assert "legal: pass, bid 36" in str(err.value)
        assert game.to_json() == before


def test_four_passes_reshake_with_the_next_shaker_and_no_marks() -> None:
    game = play(new_game(), "pass", "pass", "pass", "pass")
    assert not game.is_terminal and game.phase == 0
    assert game.shaker == 0 and game.current_player == 1 and game.marks == [0, 0]
    assert game.deals == 2 and game.hands_scored == 0
    assert sum(game.hands) == TILES.full_mask


def test_forced_bid_shaker_may_not_pass_after_three_passes() -> None:
    game = play(new_game(forced_bid=True), "pass", "pass", "pass")
    assert "pass" not in legal_texts(game) and "bid 30" in legal_texts(game)
    game = play(new_game(forced_bid=True), "pass", "pass", "bid 30")
    assert "pass" in legal_texts(game)


# ----- 3.3 trumps, suits, following, winning ----------------------------------------------------
def test_a_trump_tile_belongs_to_the_trump_suit_only() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", "trump 3", "play 5-4")
    assert legal_texts(game) == tiles(*DEAL_X[1])  # 5-3 is a three (trump), not a five
    play(game, "play 4-4")
    assert legal_texts(game) == tiles("5-5", "5-2", "5-1", "5-0")


def test_a_trump_led_asks_for_trumps() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", "trump 4", "play 5-4")
    assert legal_texts(game) == tiles("4-4", "4-3", "4-2", "4-1", "4-0")


def test_suit_led_is_the_higher_half() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", "trump 1", "play 6-2")
    assert legal_texts(game) == tiles(*DEAL_X[1])  # no six; its twos need not follow
    play(game, "play 2-2")
    assert legal_texts(game) == tiles("6-3")


def test_doubles_as_trump_a_double_does_not_follow_its_number() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", "trump doubles", "play 5-4", "play 5-3")
    assert legal_texts(game) == tiles("5-2", "5-1", "5-0")  # 5-5 is a trump only


def test_follow_me_doubles_high_or_own_suit() -> None:
    high = play(new_game(), "bid 30", "pass", "pass", "pass", "trump followme", "play 6-6")
    assert legal_texts(high) == tiles(*DEAL_X[1])  # suit 6: seat 1 holds none
    own = play(new_game(follow_me_doubles="own_suit"), "bid 30", "pass", "pass", "pass", "trump followme")
    play(own, "play 6-6")
    assert legal_texts(own) == tiles("4-4", "2-2")


@pytest.mark.parametrize(
    ("trump", "trick", "winner"),
    [
        ("trump 3", ["5-4", "4-4", "5-5", "3-1"], 3),  # a trump beats the suit led
        ("trump 2", ["5-4", "5-3", "5-5", "1-1"], 2),  # no trump played: the double tops the suit
        ("trump followme", ["6-5", "4-4", "6-3", "0-0"], 0),  # 6-5 ranks above 6-3
        ("trump followme", ["6-0", "4-4", "6-3", "0-0"], 2),
        ("trump doubles", ["6-6", "2-2", "5-5", "0-0"], 0),
        ("trump doubles", ["5-4", "5-3", "5-0", "1-1"], 3),  # 1-1 is a trump
        ("trump 6", ["5-4", "5-3", "5-0", "0-0"], 0),  # 5-4 > 5-3 > 5-0 by their other half
    ],
)
def test_trick_winners(trump: str, trick: list[str], winner: int) -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", trump)
    play(game, *[f"play {t}" for t in trick])
    assert game.trick_winners == [winner]
    assert game.points[winner % 2] == 1 + sum(COUNT[TILES.parse(t)] for t in trick)


def test_trump_ranks_double_then_other_half() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", "trump 3", "play 6-5", "play 4-3", "play 6-3")
    play(game, "play 3-1")
    assert game.trick_winners == [2]  # 6-3 > 4-3 > 3-1 with 3s trump


def test_count_tiles_hold_35_and_a_hand_42() -> None:
    assert sum(COUNT) == 35
    assert {TILES.name(t) for t in range(len(COUNT)) if COUNT[t]} == {"5-5", "6-4", "5-0", "4-1", "3-2"}


# ----- 3.4 marks and early end ------------------------------------------------------------------
def play_out(game: Texas42Game) -> None:
    """Lowest legal action until the hand is over."""
    while not game.is_terminal:
        game.apply(game.legal_actions()[0])


def test_mark_bid_made_scores_its_marks() -> None:
    game = play(new_game(DEAL_P), "bid 2m", "pass", "pass", "pass", "trump 6")  # seat 0: all sixes...
    play_out(game)
    made = game.last_result["contract"]["made"]
    assert game.marks == ([2, 0] if made else [0, 2])
    assert made == (game.tricks_won[1] == 0)


def test_point_bid_set_ends_early_and_gives_one_mark_to_the_other_team() -> None:
    game = play(new_game(), "pass", "pass", "pass", "bid 41", "trump 0")
    play(game, "play 2-1", "play 6-2", "play 4-2")
    assert not game.is_terminal
    play(game, "play 3-2")  # seat 0's 6-2 wins 1 + 5 points: 41 is out of reach
    assert game.is_terminal and len(game.tricks) == 1 and game.points == [6, 0]
    assert game.marks == [1, 0] and game.last_result["hand_marks"] == [1, 0, 1, 0]


def test_without_early_end_all_seven_tricks_are_played() -> None:
    full = play(new_game(stop_when_decided=False), "pass", "pass", "pass", "bid 30", "trump 0")
    early = play(new_game(), "pass", "pass", "pass", "bid 30", "trump 0")
    play_out(full)
    play_out(early)
    assert len(full.tricks) == 7 and sum(full.points) == 42 and full.points[1] == 42
    assert len(early.tricks) < 7 and 30 <= early.points[1] < 42  # made as soon as 30 was reached
    assert full.marks == early.marks == [0, 1]


def test_game_ends_when_a_team_reaches_the_target() -> None:
    rng = np.random.default_rng(5)
    game = Texas42Game(Texas42Config.make(episode="game"), rng)
    while not game.is_terminal:
        before = list(game.marks)
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    assert max(game.marks) >= 7 and max(before) < 7 and game.hands_scored >= 1


# ----- 3.5 Nello, Sevens; 3.6 Plunge -------------------------------------------------------------
def test_nello_needs_a_mark_bid_and_partner_sits_out() -> None:
    assert "nello" not in legal_texts(play(new_game(nello="high"), "bid 30", "pass", "pass", "pass"))
    game = play(new_game(nello="high"), "bid 1m", "pass", "pass", "pass")
    assert "nello" in legal_texts(game)
    play(game, "nello", "play 5-4", "play 5-3")
    assert game.current_player == 3  # seat 2 sits out
    play(game, "play 0-0")
    assert game.trick_winners == [0] and game.is_terminal  # the bidder took a trick: set
    assert game.marks == [0, 1] and not game.last_result["contract"]["made"]


@pytest.mark.parametrize(("doubles", "winner"), [("high", 2), ("low", 0)])
def test_nello_doubles_high_or_low(doubles: str, winner: int) -> None:
    game = play(new_game(nello=doubles), "pass", "bid 1m", "pass", "pass", "nello", "play 5-3", "play 5-5")
    play(game, "play 5-4")
    assert game.trick_winners == [winner]


def test_nello_doubles_own_suit() -> None:
    game = play(new_game(nello="own_suit"), "pass", "bid 1m", "pass", "pass", "nello", "play 5-3")
    assert legal_texts(game) == tiles("5-2", "5-1", "5-0")


def test_sevens_forces_the_tile_nearest_seven_and_ties_go_to_the_first() -> None:
    game = play(new_game(sevens=True), "bid 1m", "pass", "pass", "pass")
    assert "sevens" in legal_texts(game)
    play(game, "sevens")
    assert legal_texts(game) == tiles("6-1")
    play(game, "play 6-1")
    assert legal_texts(game) == tiles("4-3")
    play(game, "play 4-3", "play 5-2")
    assert legal_texts(game) == tiles("3-1")
    play(game, "play 3-1")
    assert game.trick_winners == [0]


def test_plunge_needs_four_doubles_and_may_jump() -> None:
    game = play(new_game(DEAL_P, plunge=True), "bid 30")
    assert {"bid plunge 4m", "bid plunge 7m"} <= legal_texts(game)  # seat 1, four doubles
    play(game, "bid plunge 4m")
    assert legal_texts(game) == {"pass", "bid 5m"}  # seat 2 has no four doubles: one mark more only
    play(game, "pass", "pass")
    assert game.phase == DECLARE and game.current_player == 3  # the partner names trump
    assert "nello" not in legal_texts(game)
    play(game, "trump doubles")
    assert game.current_player == 3  # and leads


def test_no_plunge_without_four_doubles_or_the_option() -> None:
    assert not any("plunge" in t for t in legal_texts(new_game(DEAL_P, plunge=True)))  # seat 0
    assert not any("plunge" in t for t in legal_texts(play(new_game(DEAL_P), "pass")))


# ----- presets, text, saved games ---------------------------------------------------------------
@pytest.mark.parametrize(
    "options",
    [
        {"nello": "high"},
        {"plunge": True},
        {"sevens": True},
        {"forced_bid": True},
        {"follow_me_doubles": "own_suit"},
    ],
)
def test_n42pa_refuses_what_it_forbids(options: dict) -> None:
    with pytest.raises(ValueError, match="n42pa"):
        Texas42Config.make("n42pa", **options)


def test_bad_options_and_deals_are_refused() -> None:
    for options in ({"target_marks": 0}, {"episode": "match"}, {"nello": "yes"}, {"colour": 1}):
        with pytest.raises(ValueError):
            Texas42Config.make(**options)
    with pytest.raises(ValueError, match="contradicts"):
        Texas42Config.make(forced_bid=True, all_pass="reshake")
    bad_deals = [
        {"hands": DEAL_X[:3], "shaker": 0},
        {"hands": [DEAL_X[0], DEAL_X[0], DEAL_X[2], DEAL_X[3]], "shaker": 0},
        {"hands": DEAL_X, "shaker": 4},
    ]
    for deal in bad_deals:
        with pytest.raises(ValueError):
            Texas42Game(Texas42Config(), np.random.default_rng(0), deal=deal)


def test_text_round_trips_for_every_action() -> None:
    game = Texas42Game(Texas42Config(), np.random.default_rng(0))
    for a in range(NUM_ACTIONS):
        assert game.action_from_text(game.action_to_text(a)) == a
    assert game.action_from_text("  Play 4-6 ") == PLAY + TILES.index(6, 4)
    with pytest.raises(ValueError):
        game.action_from_text("bid 29")


def test_saved_games_round_trip_and_malformed_ones_are_refused() -> None:
    game = play(new_game(), "bid 30", "pass", "pass", "pass", "trump 3", "play 5-4")
    copy = Texas42Game.from_json(game.to_json())
    assert copy.to_json() == game.to_json() and copy.view(1) == game.view(1)
    text = game.to_json()
    for broken in (
        text[:-5],
        text.replace('"play 5-4"', '"play 5-3"'),
        text.replace('"marks": [0, 0]', '"marks": 3'),
    ):
        with pytest.raises(ValueError):
            Texas42Game.from_json(broken)
