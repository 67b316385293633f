"""docs/rules.md sections 1, 2 and 5 for the line engine, one test (or more) per rule, on exact deals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import LineConfig, LineGame, RoundResult
from domino_env.rules.tiles import DOUBLE_SIX


def make(hands, stock=(), leader=0, seed=0, **options) -> LineGame:
    deal = {"hands": hands, "leader": leader}
    if stock:
        deal["stock"] = list(stock)
    return LineGame(LineConfig(**options), np.random.default_rng(seed), deal=deal)


def play(game: LineGame, *moves: str) -> None:
    for move in moves:
        game.apply(game.action_from_text(move))


def legal_texts(game: LineGame) -> set[str]:
    return {game.action_to_text(a) for a in game.legal_actions()}


# ----- 2.1 options and presets -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "players", "teams", "size"),
    [("block", 2, False, 7), ("block", 3, False, 5), ("block", 4, False, 5), ("draw", 2, False, 7),
     ("draw", 3, False, 7), ("draw", 4, False, 6), ("block", 4, True, 7), ("draw", 4, True, 6)],
)
@pytest.mark.parametrize("preset", ["pagat", "boardpan"])
def test_hand_size_table(variant, players, teams, size, preset):
    cfg = LineConfig(variant=variant, num_players=players, teams=teams, preset=preset)
    assert cfg.hand_size == size
    game = LineGame(cfg, np.random.default_rng(1))
    assert [h.bit_count() for h in game.hands] == [size] * players
    dealt = size * players
    if variant == "block":
        assert game.stock == [] and game.out_of_play.bit_count() == 28 - dealt
    else:
        assert len(game.stock) == 28 - dealt and game.out_of_play == 0


@pytest.mark.parametrize(
    ("options", "size"),
    [({"max_pips": 2}, 2), ({"max_pips": 3}, 3), ({"max_pips": 3, "num_players": 3}, 2),
     ({"max_pips": 4}, 7), ({"max_pips": 4, "variant": "draw"}, 5),
     ({"max_pips": 4, "variant": "draw", "preset": "boardpan"}, 7), ({"max_pips": 2, "num_players": 4}, 1),
     ({"max_pips": 5, "num_players": 4, "teams": True}, 4)],
)
def test_small_sets_default_to_a_hand_size_that_fits(options, size):
    """docs/rules.md 2.1: the table's size when the set holds it (Draw: with the reserve in the
    stock), else ``tiles // (players + 1)``, so every set deals out of the box with tiles hidden."""
    cfg = LineConfig(**options)
    assert cfg.hand_size == size
    game = LineGame(cfg, np.random.default_rng(0))
    assert [h.bit_count() for h in game.hands] == [size] * cfg.num_players
    assert game.out_of_play | sum(1 << t for t in game.stock)  # some tiles stay unseen


def test_preset_defaults():
    pagat = LineConfig(preset="pagat")
    assert (pagat.draw_reserve, pagat.draw_policy, pagat.first_leader, pagat.scoring, pagat.target_score) == (
        2, "any", "random", "others_minus_own", 100)
    assert LineConfig(preset="pagat", num_players=3).target_score == 61
    assert LineConfig(preset="pagat", num_players=4, teams=True).target_score == 61
    boardpan = LineConfig(preset="boardpan", num_players=3)
    assert (boardpan.draw_reserve, boardpan.draw_policy, boardpan.first_leader, boardpan.scoring,
            boardpan.target_score) == (0, "when_stuck", "highest_double", "others", 100)


def test_options_override_presets_and_config_round_trips():
    cfg = LineConfig(preset="boardpan", variant="draw", draw_reserve=1, scoring="others_minus_own",
                     target_score=None, hand_size=4, max_pips=9)
    assert (cfg.draw_reserve, cfg.scoring, cfg.target_score, cfg.hand_size, cfg.num_actions) == (
        1, "others_minus_own", None, 4, 2 * 55 + 2)
    from dataclasses import asdict
    assert LineConfig(**asdict(cfg)) == cfg


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"num_players": 3, "teams": True}, "teams need exactly 4"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"hand_size": 15}, "need 30 tiles"),
        ({"max_pips": 2, "num_players": 2, "hand_size": 7}, "need 14 tiles"),
        ({"target_score": 0}, "target_score"),
        ({"variant": "draw", "draw_reserve": 15}, "exceeds the stock"),
        ({"variant": "muggins"}, "variant"),
        ({"preset": "house"}, "preset"),
        ({"draw_policy": "sometimes"}, "draw_policy"),
        ({"max_pips": 13}, "max_pips"),
        ({"open_hands": 1}, "open_hands"),
    ],
)
def test_impossible_options_are_refused(options, words):
    with pytest.raises(ValueError, match=words):
        LineConfig(**options)


def test_first_leader_boardpan_highest_double_then_heaviest_tile():
    game = make([["5-5", "6-1"], ["3-3", "6-5"], ["4-2"]], leader=None, preset="boardpan", num_players=3)
    assert game.leader == 0 and game.current_player == 0
    # No double: heaviest tile; 6-1 and 5-2 tie on 7 pips, the higher high end (6) wins.
    game = make([["5-2", "4-0"], ["6-1", "3-0"]], leader=None, preset="boardpan")
    assert game.leader == 1


def test_first_leader_pagat_is_by_lot_and_seeded():
    leaders = {LineGame(LineConfig(num_players=4), np.random.default_rng(s)).leader for s in range(40)}
    assert leaders == {0, 1, 2, 3}
    assert LineGame(LineConfig(), np.random.default_rng(5)).leader == LineGame(
        LineConfig(), np.random.default_rng(5)).leader


# ----- 2.2 a round, 2.7 action ids -----------------------------------------------------------------
def test_action_ids_and_text():
    game = make([["6-6"], ["0-0"]])
    assert game.num_actions == 58 and game.draw_action == 56 and game.pass_action == 57
    assert game.action_from_text("play 5-6 left") == game.action_from_text("play 6-5 left") == 2 * 26
    assert game.action_from_text("play 6-6 right") == 2 * 27 + 1
    assert game.action_from_text(" Draw ") == 56 and game.action_from_text("pass") == 57
    for a in range(58):
        assert game.action_from_text(game.action_to_text(a)) == a
    for bad in ("play 7-1 left", "play 6-5 up", "jump", "play 65 left"):
        with pytest.raises(ValueError):
            game.action_from_text(bad)


def test_opening_any_tile_side_zero_lower_half_left():
    game = make([["5-3", "6-6", "1-0"], ["2-2"]])
    assert legal_texts(game) == {"play 5-3 left", "play 6-6 left", "play 1-0 left"}
    play(game, "play 3-5 left")
    assert (game.left, game.right) == (3, 5)
    assert game.line == [(DOUBLE_SIX.index(3, 5), 0, 0)]


def test_matching_end_other_half_becomes_end_and_side_choice():
    game = make([["3-5", "5-1", "0-0"], ["3-6", "5-6", "2-2"]])
    play(game, "play 3-5 left")
    # 5-6 fits the right end only, 3-6 the left end only.
    assert legal_texts(game) == {"play 6-3 left", "play 6-5 right"}
    play(game, "play 6-5 right")
    assert (game.left, game.right) == (3, 6)
    # Seat 0 holds 5-1 and 0-0: nothing fits 3 or 6, so it must pass (Block, no draw).
    assert legal_texts(game) == {"pass"}
    play(game, "pass")
    # 3-6 fits both ends: both sides are legal.
    assert legal_texts(game) == {"play 6-3 left", "play 6-3 right"}
    play(game, "play 6-3 right")
    assert (game.left, game.right) == (3, 3)


def test_double_does_not_branch_or_give_extra_turn():
    game = make([["4-4", "4-1"], ["4-2", "4-3"]])
    play(game, "play 4-4 left")
    assert (game.left, game.right) == (4, 4) and game.current_player == 1
    play(game, "play 4-2 left")
    assert (game.left, game.right) == (2, 4) and game.current_player == 0
    assert legal_texts(game) == {"play 4-1 right"}


def test_only_the_two_ends_count():
    game = make([["6-5", "5-0"], ["5-2", "6-6"]])
    play(game, "play 6-5 left", "play 5-2 left")
    # The first 5 is now inside the line: seat 0's 5-0 matches it but not an end (2 or 6).
    assert (game.left, game.right) == (2, 6)
    assert legal_texts(game) == {"pass"}


def test_block_must_play_and_never_draws():
    game = make([["6-5", "5-5", "1-1"], ["5-0", "2-2"]])
    play(game, "play 6-5 left")
    assert legal_texts(game) == {"play 5-0 left"}
    play(game, "play 5-0 left", "pass")
    assert legal_texts(game) == {"pass"}
    with pytest.raises(IllegalActionError):
        play(game, "draw")


def test_pagat_draw_any_time_keeps_reserve_and_same_player_acts():
    stock = ["1-2", "1-3", "1-4", "2-2", "3-3"]
    game = make([["6-5", "6-6"], ["5-0", "4-4"]], stock=stock, variant="draw", preset="pagat")
    play(game, "play 6-5 left")
    assert legal_texts(game) == {"play 5-0 left", "draw"}  # may draw holding a playable tile
    play(game, "draw")
    assert game.current_player == 1 and game.hands[1] >> DOUBLE_SIX.index(1, 2) & 1
    play(game, "draw", "draw")
    assert len(game.stock) == 2 and game.drawable == 0
    assert legal_texts(game) == {"play 5-0 left"}  # the last two tiles are never drawn
    play(game, "play 5-0 left")
    assert legal_texts(game) == {"play 6-6 right"}


def test_pagat_pass_only_when_reserve_reached_and_stuck():
    game = make([["6-5", "6-6"], ["3-3", "4-4"]], stock=["1-1", "2-2", "0-0"], variant="draw")
    play(game, "play 6-5 left")
    assert legal_texts(game) == {"draw"}
    play(game, "draw")
    assert legal_texts(game) == {"pass"}


def test_boardpan_draw_only_when_stuck_and_stock_may_be_emptied():
    game = make([["6-5", "6-6", "4-1"], ["5-0", "1-1"]], stock=["2-2", "5-3"], variant="draw",
                preset="boardpan")
    play(game, "play 6-5 left")
    assert legal_texts(game) == {"play 5-0 left"}
    play(game, "play 5-0 left")
    assert legal_texts(game) == {"play 6-6 right"}
    play(game, "play 6-6 right")
    assert legal_texts(game) == {"draw"}  # 1-1 fits neither 6 nor 0
    play(game, "draw", "draw")
    assert game.stock == [] and game.current_player == 1
    assert legal_texts(game) == {"pass"}


def test_round_ends_on_domino():
    game = make([["6-5"], ["5-0", "2-2"]], target_score=None)
    play(game, "play 6-5 left")
    assert game.is_terminal and game.current_player is None and game.legal_mask() == 0
    assert game.results[-1].kind == "domino" and game.results[-1].winners == (0,)


def test_blocked_needs_every_player_to_pass_in_succession():
    game = make([["6-6", "1-0"], ["2-2", "5-5"], ["3-3", "6-2"]], num_players=3, target_score=None)
    play(game, "play 6-6 left", "pass")
    play(game, "play 6-2 left")  # a tile played breaks the run of passes
    assert game.passes == 0
    play(game, "pass")
    assert legal_texts(game) == {"play 2-2 left"}
    play(game, "play 2-2 left", "pass", "pass", "pass")
    assert game.is_terminal and game.results[-1].kind == "blocked"


def test_draws_before_a_pass_do_not_break_the_run():
    game = make([["6-6", "1-0"], ["2-2"]], stock=["3-3"], variant="draw", preset="boardpan",
                target_score=None)
    play(game, "play 6-6 left", "draw", "pass")
    assert game.passes == 1
    play(game, "pass")
    assert game.is_terminal and game.results[-1].kind == "blocked"


# ----- 2.3 round scoring: the worked checks --------------------------------------------------------
@pytest.mark.parametrize("preset", ["pagat", "boardpan"])
def test_two_players_domino_loser_holds_6_5_and_3_2(preset):
    game = make([["1-1"], ["6-5", "3-2"]], preset=preset)
    play(game, "play 1-1 left")
    assert game.results[0].round_points == (16, 0) and game.scores == [16, 0]


def test_three_players_blocked_pagat_winner_subtracts_own_once():
    game = make([["6-6", "4-0"], ["5-4", "2-0"], ["5-5", "4-3"]], num_players=3, preset="pagat")
    play(game, "play 6-6 left", "pass", "pass", "pass")
    result = game.results[0]
    assert result.kind == "blocked" and result.pips == (4, 11, 17)
    assert result.round_points == (24, 0, 0)


def test_blocked_tie_for_lowest_nobody_scores():
    game = make([["6-6", "4-3"], ["5-2"], ["5-4", "3-1"]], num_players=3)
    play(game, "play 6-6 left", "pass", "pass", "pass")
    assert game.results[0].pips == (7, 7, 13)
    assert game.results[0].winners == () and game.results[0].round_points == (0, 0, 0)


def test_boardpan_domino_losers_6_6_4_3_1_1():
    game = make([["2-0"], ["6-6", "4-3"], ["1-1"]], num_players=3, preset="boardpan")
    play(game, "play 2-0 left")
    assert game.results[0].round_points == (21, 0, 0)


def test_two_player_pagat_match_ends_at_104_and_blocked_3_against_11_scores_8():
    game = make([["6-6", "2-1"], ["5-4", "2-0"]])
    play(game, "play 6-6 left", "pass", "pass")
    assert game.results[0].round_points == (8, 0)
    assert not game.is_terminal and game.leader == 1  # the lead passes to the left

    game = make([["1-1"], ["6-5", "3-2"]])
    game.scores[0] = 88  # as if earlier rounds had been won
    play(game, "play 1-1 left")
    assert game.scores == [104, 0] and game.is_terminal


def test_teams_partners_share_points_and_a_tie_between_partners_wins():
    # Blocked: seats 0 and 2 (team 0) tie on 3 pips; opponents hold 9 and 10.
    hands = [["6-6", "2-1"], ["5-4"], ["3-0"], ["5-5"]]
    game = make(hands, num_players=4, teams=True, preset="pagat")
    play(game, "play 6-6 left", "pass", "pass", "pass", "pass")
    result = game.results[0]
    assert result.pips == (3, 9, 3, 10) and result.winners == (0, 2)
    assert result.round_points == (16, 0, 16, 0)  # 9 + 10 - 3, own pips once
    game = make(hands, num_players=4, teams=True, preset="boardpan")
    play(game, "play 6-6 left", "pass", "pass", "pass", "pass")
    assert game.results[0].round_points == (19, 0, 19, 0)


def test_teams_tie_across_teams_nobody_scores():
    game = make([["6-6", "2-1"], ["3-0"], ["5-4"], ["5-5"]], num_players=4, teams=True)
    play(game, "play 6-6 left", "pass", "pass", "pass", "pass")
    assert game.results[0].winners == () and game.scores == [0, 0, 0, 0]


# ----- 2.4 matches -------------------------------------------------------------------------------
def test_match_rounds_rotate_lead_reshuffle_and_stop_at_target():
    rng = np.random.default_rng(3)
    game = LineGame(LineConfig(num_players=3, target_score=61), rng)
    deals, leaders = [], []
    while not game.is_terminal:
        if not game.line and not game.history:
            deals.append(tuple(game.hands))
            leaders.append(game.leader)
        game.apply(game.auto_move())
    assert len(game.results) == len(deals) >= 2
    assert len(set(deals)) == len(deals)
    assert all(b == (a + 1) % 3 for a, b in zip(leaders, leaders[1:], strict=False))
    assert max(game.scores) >= 61 and sorted(game.scores)[1] < 61
    assert game.scores == [sum(r.round_points[s] for r in game.results) for s in range(3)]


def test_single_round_without_target():
    game = LineGame(LineConfig(target_score=None), np.random.default_rng(0))
    while not game.is_terminal:
        game.apply(game.legal_actions()[0])
    assert len(game.results) == 1


# ----- 2.5 automatic move ----------------------------------------------------------------------
def test_auto_move_heaviest_playable_first_side_then_draw_then_pass():
    game = make([["3-3", "1-0"], ["3-6", "3-5", "4-4", "3-2"]], stock=["0-0", "2-2", "1-1"],
                variant="draw", preset="boardpan")
    play(game, "play 3-3 left")
    assert game.action_to_text(game.auto_move()) == "play 6-3 left"
    game = make([["6-0", "1-1"], ["6-1", "5-2", "0-0"]])
    play(game, "play 6-0 left")
    # Ends 0 and 6: 6-1 (7 pips) fits the right end, 0-0 the left; 5-2 fits neither.
    assert game.action_to_text(game.auto_move()) == "play 6-1 right"
    game = make([["6-6", "1-0"], ["2-2", "3-3"]], stock=["5-5"], variant="draw", preset="boardpan")
    play(game, "play 6-6 left")
    assert game.action_to_text(game.auto_move()) == "draw"
    play(game, "draw")
    assert game.action_to_text(game.auto_move()) == "pass"


def test_auto_move_ties_by_lowest_action_id():
    game = make([["3-3", "1-0"], ["3-4", "2-5", "3-1"]])
    play(game, "play 3-3 left")
    # 3-4 (7 pips) is the heaviest fitting tile, and side 0 comes before side 1.
    assert game.action_to_text(game.auto_move()) == "play 4-3 left"


# ----- 5 illegal input ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("setup", "move"),
    [
        ((), 2 * DOUBLE_SIX.index(0, 0)),  # a tile not in hand
        (("play 6-5 left",), 2 * DOUBLE_SIX.index(5, 2) + 1),  # a side it does not fit (ends 5, 6)
        (("play 6-5 left",), 57),  # pass while holding a playable tile
        (("play 6-5 left",), 56),  # draw in Block
        ((), 58),  # out of range
        ((), -1),
        ((), 2.0),
        ((), True),
    ],
)
def test_illegal_moves_are_refused_and_state_untouched(setup, move):
    game = make([["6-5", "1-1"], ["5-2", "0-4"]])
    play(game, *setup)
    before = game.to_json()
    with pytest.raises(IllegalActionError) as err:
        game.apply(move)
    assert "illegal move" in str(err.value) and "legal moves: play" in str(err.value)
    assert game.to_json() == before


def test_illegal_message_names_move_and_legal_moves():
    game = make([["6-5", "1-1"], ["5-2", "0-4"]])
    play(game, "play 6-5 left")
    with pytest.raises(IllegalActionError, match=r"'pass' \(action 57\).*legal moves: play 5-2 left"):
        game.apply(57)


def test_wrong_seat_and_after_the_end():
    game = make([["6-5"], ["5-2", "0-4"]], target_score=None)
    with pytest.raises(IllegalActionError, match="seat 0 is to act, not seat 1"):
        game.apply(game.action_from_text("play 6-5 left"), seat=1)
    play(game, "play 6-5 left")
    before = game.to_json()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(57)
    assert game.to_json() == before


def test_boardpan_draw_forbidden_while_holding_playable():
    game = make([["6-5", "1-1"], ["5-2", "0-4"]], stock=["3-3"], variant="draw", preset="boardpan")
    play(game, "play 6-5 left")
    with pytest.raises(IllegalActionError, match="'draw'"):
        play(game, "draw")


@pytest.mark.parametrize(
    ("deal", "words"),
    [
        ({"hands": [["6-6"], ["6-6"]]}, "dealt twice"),
        ({"hands": [["6-6"]]}, "must list 2 hands"),
        ({"hands": [["6-6"], []]}, "at least one tile"),
        ({"hands": [["6-7"], ["1-1"]]}, "no tile"),
        ({"hands": [["6-6"], ["1-1"]], "stock": ["2-2"]}, "Block has no stock"),
        ({"hands": [["6-6"], ["1-1"]], "leader": 2}, "leader"),
        ({"hands": [["6-6"], ["1-1"]], "dealer": 0}, "unknown deal keys"),
        ("6-6", "deal must map"),
    ],
)
def test_malformed_deals_are_refused(deal, words):
    with pytest.raises(ValueError, match=words):
        LineGame(LineConfig(), np.random.default_rng(0), deal=deal)


# ----- views (RULES 4) ----------------------------------------------------------------------------
def test_view_hides_other_hands_unless_open_hands():
    game = make([["6-5", "1-1"], ["5-2", "0-4"]], stock=["3-3", "2-2", "4-4"], variant="draw")
    play(game, "play 6-5 left", "draw")
    view = game.view(0)
    assert view.hand == game.hands[0] and view.hands is None
    assert view.hand_sizes == (1, 3) and view.stock_size == 2 and view.drawable == 0
    assert view.history == ((0, 2 * DOUBLE_SIX.index(5, 6), -1, -1), (1, 56, 5, 6))
    assert view.line == ((DOUBLE_SIX.index(5, 6), 0, 0),) and view.legal_mask == 0
    assert game.view(1).legal_mask == game.legal_mask()
    open_game = make([["6-5", "1-1"], ["5-2", "0-4"]], open_hands=True)
    assert open_game.view(0).hands == tuple(open_game.hands)


def test_view_identical_when_hidden_tiles_swap():
    a = make([["6-5", "1-1"], ["5-2", "0-4"], ["3-3", "2-1"]], stock=["6-6", "4-4", "0-0"],
             variant="draw", num_players=3, preset="boardpan")
    b = make([["6-5", "1-1"], ["6-6", "0-4"], ["3-3", "4-4"]], stock=["5-2", "2-1", "0-0"],
             variant="draw", num_players=3, preset="boardpan")
    for g in (a, b):
        play(g, "play 6-5 left")
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)


# ----- clone and saved games ------------------------------------------------------------------------
def test_clone_is_independent():
    game = LineGame(LineConfig(variant="draw", num_players=3), np.random.default_rng(2))
    copy = game.clone()
    copy.apply(copy.auto_move())
    assert copy.to_json() != game.to_json()
    game.apply(game.auto_move())
    assert copy.to_json() == game.to_json()


def test_json_round_trip_continues_identically():
    game = LineGame(LineConfig(variant="draw", num_players=4, teams=True, preset="boardpan"),
                    np.random.default_rng(9))
    for step in range(400):
        if game.is_terminal:
            break
        if step % 37 == 0:
            restored = LineGame.from_json(game.to_json())
            assert restored.to_json() == game.to_json() and restored.view(1) == game.view(1)
        game.apply(game.auto_move() if step % 3 else game.legal_actions()[-1])
    restored = LineGame.from_json(game.to_json())
    assert restored.results == game.results and restored.is_terminal == game.is_terminal


def test_json_restores_generator_so_later_rounds_match():
    game = LineGame(LineConfig(num_players=2), np.random.default_rng(4))
    for _ in range(3):
        game.apply(game.auto_move())
    restored = LineGame.from_json(game.to_json())
    while not game.is_terminal:
        game.apply(game.auto_move())
        restored.apply(restored.auto_move())
    assert restored.to_json() == game.to_json() and len(game.results) > 1


def _corrupt(saved: dict, path: tuple, value) -> str:
    data = json.loads(json.dumps(saved))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("format",), "chess"),
        (("version",), 99),
        (("config", "num_players"), 7),
        (("deal", "hands"), [[0], [0]]),
        (("actions",), [57, 57, 57]),
        (("actions",), "oops"),
        (("scores",), [100, 0]),
        (("scores",), [5, 0]),
        (("rng",), {"bit_generator": "Nope"}),
        (("round_index",), 3),
    ],
)
def test_malformed_saves_are_refused(path, value):
    game = make([["6-5", "1-1"], ["5-2", "0-4"]])
    play(game, "play 6-5 left")
    with pytest.raises(ValueError, match="malformed saved line game"):
        LineGame.from_json(_corrupt(json.loads(game.to_json()), path, value))
    for text in ("not json", "[]", json.dumps({"format": "domino-env/line"})):
        with pytest.raises(ValueError, match="malformed"):
            LineGame.from_json(text)


def test_render_text_shows_line_and_doubles_crosswise():
    game = make([["3-5", "5-5"], ["5-1", "6-6"]])
    play(game, "play 3-5 left", "play 5-1 right")
    text = game.render_text()
    assert "[3|5][5|1]" in text and "seat 1: 6-6" in text and "open ends: 3 (left) and 1 (right)" in text
    game = make([["5-5", "3-5"], ["5-1", "6-6"]])
    play(game, "play 5-5 left", "play 5-1 left")
    rows = game.render_text(seat=0).splitlines()
    assert rows[1:4] == ["     ┌5┐", "[1|5]│─│", "     └5┘"]
    assert "seat 1: 1 tiles" in game.render_text(seat=0)


def test_render_text_says_how_the_last_round_ended():
    game = make([["6-5", "1-1"], ["5-2", "0-4"]], target_score=None)
    play(game, "play 6-5 left", "play 5-2 left")  # ends 2 and 6: nobody fits, blocked
    while not game.is_terminal:
        game.apply(game.legal_actions()[0])
    text = game.render_text()
    assert "RoundResult(" not in text
    assert text.splitlines()[-1].startswith("match over; last round: ")
    assert "round points" in text and "pips left" in text


def test_render_text_shows_the_previous_round_at_the_start_of_the_next():
    game = make([["6-5", "1-1"], ["5-2", "0-4"]], target_score=500)
    play(game, "play 6-5 left", "play 5-2 left")
    while game.round_index == 0:
        game.apply(game.legal_actions()[0])
    assert f"previous round: {game.results[0].describe()}" in game.render_text()
    game.apply(game.legal_actions()[0])
    assert "previous round" not in game.render_text()


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (RoundResult(0, "domino", (1,), (4, 0), (4, 0)), "seat 1 went out; pips left [4, 0]"),
        (RoundResult(0, "blocked", (0, 2), (3, 9, 3, 9), (18, 0, 18, 0)), "blocked, fewest pips: seats 0, 2"),
        (RoundResult(0, "blocked", (), (3, 3), (0, 0)), "blocked, the sides tie on pips: nobody scores"),
    ],
)
def test_round_result_describe(result, text):
    assert result.describe().startswith(text)
