"""Scripted positions for three-player 42 (docs/rules.md 3.7) and Texas 88 (3.8), one test per rule,
plus the house rules of docs/decisions.md (exact legal sets, scores, errors)."""

from __future__ import annotations

import numpy as np
import pytest
from texas42_moves import legal_texts, play

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.texas42 import DECLARE, DISCARD_PHASE, DONE, PLAY_PHASE, Texas42Config, Texas42Game

# Three players, shaker 2 (seat 0 bids first). Seat 0: every six but none missing, 5-5 and 4-4.
DEAL_3 = [
    ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-5", "4-4"],
    ["5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2", "4-1", "4-0"],
    ["3-3", "3-2", "3-1", "3-0", "2-2", "2-1", "2-0", "1-1", "0-0"],
]
# Texas 88, shaker 5 (seat 0 bids first). The second copy of a tile is written with a prime.
DEAL_88 = [
    ["6-6", "6-6'", "6-5", "6-5'", "6-4", "6-4'", "6-3", "6-3'", "6-2"],
    ["5-5", "5-5'", "5-4", "5-4'", "5-3", "5-3'", "5-2", "5-2'", "5-1"],
    ["4-4", "4-4'", "4-3", "4-3'", "4-2", "4-2'", "4-1", "4-1'", "4-0"],
    ["3-3", "3-3'", "3-2", "3-2'", "3-1", "3-1'", "3-0", "3-0'", "2-2"],
    ["2-2'", "2-1", "2-1'", "2-0", "2-0'", "1-1", "1-1'", "1-0", "1-0'"],
    ["0-0", "0-0'", "6-2'", "6-1", "6-1'", "6-0", "6-0'", "5-1'", "5-0"],
]
KITTY_88 = ["5-0'", "4-0'"]


def three(hands: list[list[str]] = DEAL_3, shaker: int = 2, **options) -> Texas42Game:
    config = Texas42Config.make(num_players=3, **options)
    return Texas42Game(config, np.random.default_rng(0), deal={"hands": hands, "shaker": shaker})


def eighty_eight(hands: list[list[str]] = DEAL_88, kitty: list[str] = KITTY_88, **options) -> Texas42Game:
    config = Texas42Config.make("texas88", **options)
    return Texas42Game(config, np.random.default_rng(0), deal={"hands": hands, "kitty": kitty, "shaker": 5})


def play_lowest(game: Texas42Game) -> Texas42Game:
    """Every seat plays its lowest legal action id until the episode ends."""
    while not game.is_terminal:
        game.apply(game.legal_actions()[0])
    return game


# ----- 3.7 three-player 42 --------------------------------------------------------------------
def test_three_players_remove_0_1_and_deal_nine_tiles_each() -> None:
    variant = Texas42Config(num_players=3).variant
    assert variant.num_tiles == 27 and variant.hand_size == variant.num_tricks == 9
    assert "1-0" not in variant.names and sum(variant.count) == 35
    for seed in range(20):
        game = Texas42Game(Texas42Config(num_players=3), np.random.default_rng(seed))
        assert [h.bit_count() for h in game.hands] == [9, 9, 9]
        assert sum(game.hands) == variant.full_mask  # every tile but 0-1, once
    with pytest.raises(ValueError, match="0-1 is removed"):
        three().action_from_text("play 1-0")
    with_0_1 = [DEAL_3[0], DEAL_3[1], ["1-0", *DEAL_3[2][1:]]]
    with pytest.raises(ValueError, match="0-1 is removed"):
        three(with_0_1)


def test_three_player_point_bids_run_30_to_43() -> None:
    game = three()
    assert game.current_player == 0
    assert legal_texts(game) == {"pass"} | {f"bid {b}" for b in range(30, 44)} | {"bid 1m", "bid 2m"}
    play(game, "bid 43")
    assert legal_texts(game) == {"pass", "bid 1m", "bid 2m"}
    assert game.variant.bid_value(game.bid) == 43 and game.variant.points_per_hand == 44


def test_three_player_marks_rise_one_at_a_time_to_four() -> None:
    game = play(three(), "bid 2m")
    assert legal_texts(game) == {"pass", "bid 3m"}
    play(game, "bid 3m")
    assert legal_texts(game) == {"pass", "bid 4m"}
    play(game, "bid 4m")
    assert game.phase == DECLARE and game.current_player == 2
    assert game.config.max_hand_marks == 4


def test_three_player_bidder_declares_and_leads_alone() -> None:
    game = play(three(), "pass", "bid 30", "pass")
    assert game.phase == DECLARE and game.current_player == 1
    assert legal_texts(game) == {f"trump {v}" for v in range(7)} | {"trump doubles", "trump followme"}
    play(game, "trump 5")
    assert game.current_player == 1 and game.sides == (1, 0, 1)  # seat 1 alone against 0 and 2
    assert game.sitting_out == -1


def test_three_player_mark_bid_made_needs_all_nine_tricks_and_scores_the_bidder_only() -> None:
    game = play_lowest(play(three(), "bid 1m", "pass", "pass", "trump 6"))
    assert len(game.tricks) == 9 and set(game.trick_winners) == {0}
    assert sum(game.points) == 44 == game.points[0]  # 35 count + 9 tricks
    result = game.last_result
    assert result["contract"]["made"] is True
    assert result["hand_marks"] == [1, 0, 0] and result["marks"] == [1, 0, 0]
    assert result["points_taken"] == [44, 0, 0]


def test_three_player_set_scores_each_opponent() -> None:
    # Seat 1 bids 1 mark in fives; seat 0 holds 5-5 and 6-5, higher fives: the first trick sets it.
    game = play(three(), "pass", "bid 1m", "pass", "trump 5", "play 5-4", "play 3-3", "play 5-5")
    assert game.phase == DONE and game.trick_winners == [0]
    result = game.last_result
    assert result["contract"]["made"] is False
    assert result["hand_marks"] == [1, 0, 1] and game.marks == [1, 0, 1]
    assert result["points_taken"] == [11, 0, 11]  # 5-5 and the trick; the opponents share points


def test_three_player_point_bid_counts_the_opponents_together() -> None:
    game = play_lowest(play(three(stop_when_decided=False), "pass", "pass", "bid 30", "trump 0"))
    opponents = game.points[1]
    assert game.points[0] + opponents == 44 and len(game.tricks) == 9
    made = game.points[0] >= 30
    assert game.last_result["hand_marks"] == ([0, 0, 1] if made else [1, 1, 0])


def test_three_player_game_ends_when_a_player_reaches_the_target() -> None:
    game = play(three(episode="game", target_marks=1), "pass", "bid 1m", "pass", "trump 5",
                "play 5-4", "play 3-3", "play 5-5")
    assert game.is_terminal and game.marks == [1, 0, 1]  # both opponents reach it together
    game = three(episode="game", target_marks=2)
    play(game, "pass", "bid 1m", "pass", "trump 5", "play 5-4", "play 3-3", "play 5-5")
    assert not game.is_terminal and game.marks == [1, 0, 1] and game.shaker == 0  # next hand dealt


def test_three_player_nello_has_nobody_sitting_out() -> None:
    game = play(three(nello="high"), "bid 1m", "pass", "pass", "nello")
    assert game.sitting_out == -1 and game.phase == PLAY_PHASE
    play(game, "play 4-4", "play 4-3", "play 3-3")  # trick of three; the bidder's 4-4 wins it
    assert game.is_terminal and game.last_result["hand_marks"] == [0, 1, 1]


def test_three_player_forced_bid_and_sevens() -> None:
    game = play(three(forced_bid=True, sevens=True), "pass", "pass")
    assert "pass" not in legal_texts(game)
    play(game, "bid 1m", "sevens")  # the shaker, seat 2, holds 3-3 (6), 3-2 and 1-1 ... nearest 7: 3-3
    assert legal_texts(game) == {"play 3-3"}


def test_three_player_refuses_plunge_and_other_counts() -> None:
    with pytest.raises(ValueError, match="Plunge needs a partner"):
        Texas42Config.make(num_players=3, plunge=True)
    with pytest.raises(ValueError, match="n42pa preset .* four-player"):
        Texas42Config.make("n42pa", num_players=3)
    for bad in (2, 5, 6, "3"):
        with pytest.raises(ValueError, match="3 or 4 players"):
            Texas42Config.make(num_players=bad)


# ----- 3.8 Texas 88 ------------------------------------------------------------------------------
def test_88_two_sets_nine_each_and_a_kitty_of_two() -> None:
    config = Texas42Config.make("texas88")
    assert config.num_players == 6 and config.num_sides == 2
    variant = config.variant
    assert variant.num_tiles == 56 and variant.points_per_hand == 88 and sum(variant.count) == 70
    assert variant.names[27] == "6-6" and variant.names[28 + 27] == "6-6'"  # canonical + 28 x copy
    for seed in range(10):
        game = Texas42Game(config, np.random.default_rng(seed))
        assert [h.bit_count() for h in game.hands] == [9] * 6 and game.kitty.bit_count() == 2
        assert sum(game.hands) + game.kitty == variant.full_mask


def test_88_seats_alternate_in_two_teams_of_three() -> None:
    game = eighty_eight()
    assert game.sides == (0, 1, 0, 1, 0, 1)
    assert [Texas42Config.make("texas88").side_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]


def test_88_bids_run_60_to_86_by_two_then_marks_with_42s_raising() -> None:
    game = eighty_eight()
    points = {f"bid {b}" for b in range(60, 87, 2)}
    assert legal_texts(game) == {"pass", "bid 1m", "bid 2m"} | points
    play(game, "bid 86")
    assert legal_texts(game) == {"pass", "bid 1m", "bid 2m"}
    assert game.variant.bid_value(game.action_from_text("bid 1m")) == 88
    play(game, "bid 2m", "bid 3m", "bid 4m", "bid 5m")
    assert legal_texts(game) == {"pass", "bid 6m"}  # one mark more at a time
    assert game.config.max_hand_marks == 7


def test_88_bid_winner_takes_the_kitty_and_discards_two_non_count_tiles() -> None:
    game = play(eighty_eight(), "bid 60", "pass", "pass", "pass", "pass", "pass")
    assert game.phase == DISCARD_PHASE and game.current_player == 0
    assert game.hands[0].bit_count() == 11
    non_count = {"6-6", "6-6'", "6-5", "6-5'", "6-3", "6-3'", "6-2", "4-0'"}  # not 6-4, 6-4', 5-0'
    assert legal_texts(game) == {f"discard {t}" for t in non_count}
    before = game.to_json()
    for count_tile in ("discard 6-4", "discard 5-0'", "play 6-6", "trump 6"):
        with pytest.raises(IllegalActionError, match="legal: discard") as err:
            game.apply(game.action_from_text(count_tile))
        assert count_tile in str(err.value) and "discard phase" in str(err.value)
        assert game.to_json() == before
    play(game, "discard 4-0'", "discard 6-6'")
    assert game.phase == DECLARE and game.hands[0].bit_count() == 9
    assert game.discards == [game.variant.parse_tile("4-0'"), game.variant.parse_tile("6-6'")]
    # A suit 0-6 or doubles: no follow-me, Nello or Sevens in 88.
    assert legal_texts(game) == {f"trump {v}" for v in range(7)} | {"trump doubles"}


def test_88_kitty_and_discards_are_hidden_from_the_other_seats() -> None:
    game = eighty_eight()
    assert "5-0'" not in game.render_text(0) and "kitty: 2 tiles" in game.render_text(0)
    play(game, "bid 60", "pass", "pass", "pass", "pass", "pass", "discard 4-0'", "discard 6-6'")
    discards = tuple(game.discards)
    assert game.view(0).discards == discards
    for seat in range(1, 6):
        view = game.view(seat)
        assert view.discards == (-1, -1) and view.hand_sizes[0] == 9
        assert "discards: 2 tiles" in game.render_text(seat)
    assert "discards: 4-0' 6-6'" in game.render_text(0)


@pytest.mark.parametrize("first_copy", ["6-2", "6-2'"])
def test_88_identical_tiles_the_one_played_first_wins(first_copy: str) -> None:
    other = "6-2'" if first_copy == "6-2" else "6-2"
    hands = [list(h) for h in DEAL_88]
    hands[0][8], hands[5][2] = first_copy, other
    game = play(eighty_eight(hands), "bid 60", "pass", "pass", "pass", "pass", "pass",
                "discard 4-0'", "discard 6-6'", "trump 3")
    play(game, f"play {first_copy}", "play 5-1", "play 4-1", "play 2-2", "play 2-1")
    assert f"play {other}" in legal_texts(game)  # seat 5 must follow sixes
    play(game, f"play {other}")
    assert game.trick_winners == [0]
    assert game.points == [2 + 5, 0]  # the trick is worth 2, 4-1 counts 5; team 0 takes it


def test_88_mark_bid_needs_all_nine_tricks_and_points_total_88() -> None:
    game = play(eighty_eight(stop_when_decided=False), "bid 1m", "pass", "pass", "pass", "pass", "pass",
                "discard 4-0'", "discard 6-6'", "trump 6")
    play_lowest(game)
    assert len(game.tricks) == 9 and sum(game.points) == 88
    made = set(game.trick_winners) <= {0, 2, 4}
    assert game.last_result["contract"]["made"] is made
    winners = [0, 2, 4] if made else [1, 3, 5]
    assert game.last_result["hand_marks"] == [int(s in winners) for s in range(6)]


def test_88_discards_any_tile_only_when_no_non_count_tile_is_left() -> None:
    count = ["5-5", "5-5'", "6-4", "6-4'", "5-0", "5-0'", "4-1", "4-1'", "3-2"]
    rest = [t for h in DEAL_88 for t in h] + KITTY_88
    for t in [*count, "3-2'"]:
        rest.remove(t)
    hands = [count] + [rest[i * 9:(i + 1) * 9] for i in range(5)]
    kitty = ["3-2'", rest[45]]
    game = play(eighty_eight(hands, kitty), "bid 60", "pass", "pass", "pass", "pass", "pass")
    assert legal_texts(game) == {f"discard {kitty[1]}"}  # the only non-count tile
    play(game, f"discard {kitty[1]}")
    assert len(legal_texts(game)) == 10  # count tiles only left: any of them


def test_88_refuses_nello_plunge_sevens_forced_bid_and_follow_me() -> None:
    for option in ({"nello": "high"}, {"plunge": True}, {"sevens": True}, {"forced_bid": True},
                   {"follow_me_doubles": "own_suit"}):
        with pytest.raises(ValueError, match="Texas 88 .* does not allow"):
            Texas42Config.make("texas88", **option)
    with pytest.raises(ValueError, match="played by 6 players"):
        Texas42Config.make("texas88", num_players=4)


def test_88_notation_names_the_copy_with_a_prime() -> None:
    game = eighty_eight()
    for a in range(game.num_actions):
        assert game.action_from_text(game.action_to_text(a)) == a
    assert game.action_from_text("discard 1-3'") == game.variant.discard + 28 + game.variant.parse_tile("3-1")
    assert game.action_from_text("play 4-6") == game.variant.play + game.variant.parse_tile("6-4")
    with pytest.raises(ValueError, match="only Texas 88 has a second copy"):
        three().action_from_text("play 6-4'")
    with pytest.raises(ValueError, match="cannot read move"):
        three().action_from_text("discard 3-1")


def test_88_deals_are_validated_with_clear_errors() -> None:
    config = Texas42Config.make("texas88")
    rng = np.random.default_rng(0)
    bad_deals = {
        "needs a kitty": {"hands": DEAL_88, "shaker": 0},
        "every kitty holds 2 tiles": {"hands": DEAL_88, "kitty": ["5-0'"], "shaker": 0},
        "needs 6 hands": {"hands": DEAL_88[:4], "kitty": KITTY_88, "shaker": 0},
        "each exactly once": {"hands": [DEAL_88[0], *DEAL_88[:5]], "kitty": KITTY_88, "shaker": 0},
        "all 56 tiles": {"hands": DEAL_88, "kitty": ["5-0'", "6-6"], "shaker": 0},
        "shaker must be a seat 0..5": {"hands": DEAL_88, "kitty": KITTY_88, "shaker": 6},
    }
    for message, deal in bad_deals.items():
        with pytest.raises(ValueError, match=message):
            Texas42Game(config, rng, deal=deal)


def test_variants_save_and_replay_mid_hand() -> None:
    games = [
        play(eighty_eight(), "bid 60", "pass", "pass", "pass", "pass", "pass", "discard 4-0'"),
        play(three(), "bid 30", "pass", "pass", "trump 6", "play 6-6"),
    ]
    for game in games:
        copy = Texas42Game.from_json(game.to_json())
        assert copy.to_json() == game.to_json() and copy.view(1) == game.view(1)
        clone = game.clone()
        play_lowest(clone)
        assert not game.is_terminal and clone.is_terminal
