"""RULES-new-games.md sections 2, 4, 5, 6 and 8 for the All Fives / Fives and Threes engine, exact deals."""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.fives import (
    ACTION_END,
    ACTION_TILE,
    COUNT_POINTS,
    FivesConfig,
    FivesGame,
    FivesResult,
)
from domino_env.rules.tiles import DOUBLE_SIX


def make(hands, stock=(), leader=0, seed=0, **options) -> FivesGame:
    deal = {"hands": hands, "leader": leader}
    if stock:
        deal["stock"] = list(stock)
    return FivesGame(FivesConfig(**options), np.random.default_rng(seed), deal=deal)


def play(game: FivesGame, *moves: str) -> None:
    for move in moves:
        game.apply(game.action_from_text(move))


def legal_texts(game: FivesGame) -> set[str]:
    return {game.action_to_text(a) for a in game.legal_actions()}


def t(name: str) -> int:
    return DOUBLE_SIX.parse(name)


# ----- 2.1 / 4.1 options and presets -----------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "preset", "players", "size", "teams"),
    [("all_fives", "standard", 2, 9, False), ("all_fives", "standard", 3, 7, False),
     ("all_fives", "standard", 4, 5, True), ("all_fives", "classic", 2, 7, False),
     ("all_fives", "classic", 3, 5, False), ("all_fives", "classic", 4, 5, False),
     ("fives_and_threes", "standard", 2, 7, False), ("fives_and_threes", "standard", 3, 5, False),
     ("fives_and_threes", "standard", 4, 5, True)],
)
def test_hand_sizes_and_teams(variant, preset, players, size, teams):
    cfg = FivesConfig(variant=variant, preset=preset, num_players=players)
    assert (cfg.hand_size, cfg.teams) == (size, teams)
    g = FivesGame(cfg, np.random.default_rng(3))
    assert [h.bit_count() for h in g.hands] == [size] * players
    if variant == "all_fives":
        assert len(g.stock) == 28 - size * players and g.out_of_play == 0
    else:
        assert g.stock == [] and g.out_of_play.bit_count() == 28 - size * players


def test_defaults_and_round_trip():
    af = FivesConfig()
    assert (af.spinner, af.draw_policy, af.draw_reserve, af.lead_rule, af.next_leader, af.double_count,
            af.hand_rounding, af.blocked_scoring, af.score_unit, af.target_score, af.target_check) == (
        "first_double", "must_play", 0, "lot_any", "winner", "both_halves", "nearest5", "others", "points",
        100, "immediate")
    assert af.chip_out_bonus is None and af.exact_target is None
    ft = FivesConfig(variant="fives_and_threes")
    assert (ft.chip_out_bonus, ft.exact_target, ft.target_score, ft.spinner) == (1, False, 61, None)
    exact = FivesConfig(variant="fives_and_threes", target_score="exact_61")
    assert (exact.target_score, exact.exact_target) == (61, True)
    for cfg in (af, ft, exact, FivesConfig(preset="classic", num_players=4, teams=True)):
        assert FivesConfig(**asdict(cfg)) == cfg
    assert (af.num_actions, ft.num_actions) == (114, 58)
    assert FivesConfig(num_players=np.int64(3), hand_size=np.int32(4)).hand_size == 4


def test_make_one_round_and_bounds():
    assert FivesConfig.make(one_round=True).target_score is None
    one = FivesConfig.make(one_round=True, variant="fives_and_threes", target_score="exact_61")
    assert (one.target_score, one.exact_target) == (None, False)
    assert FivesConfig.make(target_score=150).target_score == 150
    cfg = FivesConfig()  # 2p: 18 dealt, stock 10: plays <= 28, draws <= 10
    assert cfg.max_decisions == 2 * 28 + 10 + 1
    assert FivesConfig(variant="fives_and_threes").max_decisions == 2 * 14 + 1
    assert cfg.max_play_points == 35 and FivesConfig(score_unit="fives").max_play_points == 7
    assert FivesConfig(variant="fives_and_threes").max_play_points == 8
    sides = [FivesConfig(num_players=n).num_sides for n in (2, 3, 4)]
    assert sides == [2, 3, 2]
    assert [FivesConfig(num_players=4).side_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize(
    ("options", "words"),
    [({"num_players": 3, "teams": True}, "teams"), ({"num_players": 2, "hand_size": 15}, "28"),
     ({"num_players": 2, "draw_reserve": 10}, "draw_reserve"), ({"target_score": 0}, "target_score"),
     ({"score_unit": "fives", "hand_rounding": "exact"}, "score_unit"), ({"spinner": "all"}, "spinner"),
     ({"variant": "fives_and_threes", "spinner": "none"}, "spinner"),
     ({"variant": "fives_and_threes", "preset": "classic"}, "preset"),
     ({"chip_out_bonus": 1}, "chip_out_bonus"), ({"target_score": "exact_61"}, "target_score"),
     ({"variant": "fives_and_threes", "chip_out_bonus": 2}, "chip_out_bonus"),
     ({"variant": "fives_and_threes", "exact_target": True, "target_score": None}, "exact_target"),
     ({"variant": "fives_and_threes", "target_score": "exact_61", "exact_target": False}, "exact_target"),
     ({"num_players": 5}, "num_players"), ({"teams": 1}, "teams"), ({"hand_size": True}, "hand_size"),
     ({"variant": "muggins"}, "variant"), ({"target_score": 1001}, "target_score"),
     ({"draw_reserve": -1}, "draw_reserve"), ({"target_check": "never"}, "target_check")],
)
def test_bad_options_refused(options, words):
    with pytest.raises(ValueError, match=words):
        FivesConfig(**options)


def test_reserve_limits():
    assert FivesConfig(num_players=2, draw_reserve=9).draw_reserve == 9  # stock of 10
    assert FivesConfig(num_players=4, hand_size=7, draw_reserve=0).draw_reserve == 0  # no stock, 0 allowed


# ----- 2.2 / 2.3 / 2.6 the layout and the count ---------------------------------------------------
A1_HANDS = [["5-5", "5-4", "5-0", "5-1", "6-6"], ["5-3", "3-6", "4-4", "2-2", "1-1"]]


def test_a1_spinner_led():
    g = make(A1_HANDS)
    steps = [("play 5-5 west", 10, (10, 0)), ("play 5-3 east", 13, (10, 0)), ("play 5-4 west", 7, (10, 0)),
             ("play 3-6 east", 10, (10, 10)), ("play 5-0 north", 10, (20, 10)),
             ("play 4-4 west", 14, (20, 10)), ("play 5-1 south", 15, (35, 10))]
    for i, (move, count, scores) in enumerate(steps):
        if i == 2:  # before 5-4 the spinner's ends are not legal targets
            assert legal_texts(g) == {"play 4-5 west", "play 0-5 west", "play 1-5 west"}  # E shows 3
            assert not any(a % 4 >= 2 for a in g.legal_actions())
        play(g, move)
        assert (g.count, tuple(g.scores)) == (count, scores), move
        if i == 2:
            assert g.open_ends() == (4, 3, 5, 5) and g.spinner_sides == 2
    assert g.spinner == t("5-5")
    assert [r[0] for r in g.arms[0]] == [t("4-5"), t("4-4")]
    assert [p for _s, _a, p, _e in g.history] == [10, 0, 0, 10, 10, 0, 15]


def test_a1_n_and_s_legal_after_both_sides():
    g = make(A1_HANDS)
    play(g, "play 5-5 west", "play 5-3 east", "play 5-4 west", "play 3-6 east")
    assert {"play 0-5 north", "play 0-5 south", "play 1-5 north", "play 1-5 south"} <= legal_texts(g)
    play(g, "play 5-0 north")
    assert g.count == 10  # the empty S arm adds nothing


def test_a2_spinner_after_the_lead():
    g = make([["6-2", "2-1", "0-0"], ["2-2", "2-3", "4-4"]])
    play(g, "play 2-6 west")
    assert (g.open_ends(), g.count, g.scores) == ((2, 6, -1, -1), 8, [0, 0])
    play(g, "play 2-2 west")
    assert g.spinner == t("2-2") and g.count == 10 and g.scores == [0, 10]
    assert [r[0] for r in g.arms[1]] == [t("2-6")] and g.arms[0] == []
    assert g.arms[1][0][3:] == (2, 6)  # inner half 2 faces the spinner
    play(g, "play 1-2 west")
    assert (g.count, g.open_ends()) == (7, (1, 6, 2, 2))
    play(g, "play 2-3 north")
    assert g.count == 10 and g.scores == [0, 20]


def test_later_doubles_do_not_spin_and_one_half():
    g = make([["6-2", "2-1", "0-0"], ["2-2", "6-6", "4-4"]])
    play(g, "play 2-6 west", "play 2-2 west", "play 1-2 west", "play 6-6 east")
    assert g.spinner == t("2-2") and g.count == 1 + 12  # the first double only; 6-6 counts both halves
    g = make([["5-2", "1-3"], ["5-5", "4-4"]], spinner="none", double_count="one_half")
    play(g, "play 2-5 west", "play 5-5 east")  # a crosswise double at E counts one half
    assert g.count == 2 + 5 and g.spinner == -1
    g = make([["5-0", "1-2"], ["5-5", "4-4"]], spinner="none")
    play(g, "play 0-5 west", "play 5-5 east")
    assert g.count == 10 and g.scores == [5, 10]
    assert not any(a % 4 >= 2 for a in g.legal_actions())


def test_one_half_keeps_spinner_and_lone_double():
    g = make([["5-5", "1-2"], ["5-3", "4-4"]], double_count="one_half")
    play(g, "play 5-5 west")
    assert g.count == 10 and g.scores == [10, 0]
    play(g, "play 3-5 east")
    assert g.count == 13  # the spinner still counts 2s


@pytest.mark.parametrize(("tile", "action", "move"),
                         [("5-5", 100, "play 5-5 west"), ("5-3", 81, "play 3-5 east"),
                          ("5-0", 22, "play 0-5 north"), ("5-1", 47, "play 1-5 south")])
def test_action_id_examples(tile, action, move):
    g = make(A1_HANDS)
    assert g.action_to_text(action) == move and g.action_from_text(move) == action
    assert ACTION_TILE["all_fives"][action] == t(tile) and ACTION_END["all_fives"][action] == action % 4
    assert (g.draw_action, g.pass_action) == (112, 113)


def test_count_tables():
    assert [int(COUNT_POINTS["fives_and_threes"][c]) for c in (3, 5, 6, 9, 10, 12, 15, 18, 20, 0, 7)] == [
        1, 1, 2, 3, 2, 4, 8, 6, 4, 0, 0]
    assert [int(COUNT_POINTS["all_fives"][c]) for c in (0, 5, 7, 10, 35)] == [0, 5, 0, 10, 35]


# ----- 2.4 drawing, passing, leading ---------------------------------------------------------------
def test_must_play_draws_until_playable_then_plays():
    g = make([["6-6", "0-0"], ["1-2", "3-4"]], stock=["1-1", "2-6", "5-5"])
    play(g, "play 6-6 west")
    assert legal_texts(g) == {"draw"}
    play(g, "draw")
    assert legal_texts(g) == {"draw"}
    play(g, "draw")  # 2-6 fits: must be played, on either end
    assert legal_texts(g) == {"play 2-6 west", "play 2-6 east"}
    assert g.view(0).history[-1][:3] == (1, 112, 0)


def test_pass_only_with_nothing_to_play_or_draw_and_reserve():
    g = make([["6-6", "0-0"], ["1-2", "3-4"]], stock=["1-1", "2-2", "5-5"], draw_reserve=2)
    play(g, "play 6-6 west", "draw")  # 1-1 drawn; the last two are the reserve
    assert legal_texts(g) == {"pass"}
    assert (g.view(0).drawable, g.view(0).reserve, g.view(0).stock_size) == (0, 2, 2)
    play(g, "pass")
    assert g.current_player == 0 and legal_texts(g) == {"pass"}
    play(g, "pass")
    assert g.is_terminal is False and g.results[-1].kind == "blocked"


def test_may_draw_and_leader_cannot_draw():
    g = make([["6-6", "0-0"], ["6-2", "3-4"]], stock=["1-1", "5-5"], draw_policy="may_draw")
    assert "draw" not in legal_texts(g)  # 8.4: the leader may not draw before leading
    play(g, "play 6-6 west")
    assert legal_texts(g) == {"play 2-6 west", "play 2-6 east", "draw"}
    play(g, "draw", "draw")
    assert legal_texts(g) == {"play 2-6 west", "play 2-6 east"}  # stock empty: the turn ends with a play


def test_highest_double_first_hand_only():
    cfg = FivesConfig(lead_rule="highest_double")
    g = FivesGame(cfg, np.random.default_rng(0), deal={"hands": [["6-5"], ["4-4", "0-3"]]})
    assert g.leader == 1 and legal_texts(g) == {"play 4-4 west"}
    assert_refused(g, g.action_from_text("play 0-3 west"))
    g2 = FivesGame(cfg, np.random.default_rng(0), deal={"hands": [["6-5", "1-2"], ["4-3", "0-3"]]})
    assert g2.leader == 0 and legal_texts(g2) == {"play 5-6 west"}  # no double: the heaviest tile
    play(g, "play 4-4 west", "pass", "pass")  # blocked; the next hand leads any tile
    assert g.hand_index == 1 and len(g.legal_actions()) == 9
    assert {a % 4 for a in g.legal_actions()} == {0}


# ----- 2.5 end of hand --------------------------------------------------------------------------
@pytest.mark.parametrize(("hand", "nearest", "exact"),
                         [(["6-4", "3-0", "2-1"], 15, 16), (["6-6", "1-0"], 15, 13), (["4-4", "2-0"], 10, 10),
                          (["1-1"], 0, 2), (["1-2"], 5, 3)])
def test_a3_domino_rounding(hand, nearest, exact):
    for rounding, points in (("nearest5", nearest), ("exact", exact)):
        g = make([["6-2"], hand], target_score=None, hand_rounding=rounding)
        play(g, "play 2-6 west")
        assert g.is_terminal and g.scores == [points, 0]
        r = g.results[-1]
        assert (r.kind, r.winners, r.hand_points, r.play_points) == ("domino", (0,), (points, 0), (0, 0))


@pytest.mark.parametrize(("scoring", "rounding", "points"),
                         [("others", "nearest5", 30), ("others_minus_own", "nearest5", 25),
                          ("others", "exact", 28), ("others_minus_own", "exact", 24)])
def test_a4_blocked(scoring, rounding, points):
    g = make([["6-6", "1-3"], ["5-4", "1-1"], ["5-5", "4-3"]], num_players=3, target_score=None,
             blocked_scoring=scoring, hand_rounding=rounding)
    play(g, "play 6-6 west", "pass", "pass", "pass")
    r = g.results[-1]
    assert (r.kind, r.pips, r.winners, r.hand_points) == ("blocked", (4, 11, 17), (0,), (points, 0, 0))
    assert g.scores == [points, 0, 0]


def test_a4_blocked_tie_scores_nothing():
    g = make([["6-6", "3-4"], ["5-2"], ["5-5", "2-1"]], num_players=3, target_score=None)
    play(g, "play 6-6 west", "pass", "pass", "pass")
    assert g.results[-1].winners == () and g.scores == [0, 0, 0] and g.results[-1].pips == (7, 7, 13)


def test_a5_partnership_domino():
    g = make([["6-6", "4-4"], ["5-4", "3-0"], ["2-0"], ["6-3"]], leader=2, num_players=4, target_score=None)
    assert g.config.teams
    play(g, "play 0-2 west")
    assert g.scores == [20, 0, 20, 0] and g.results[-1].hand_points == (20, 0, 20, 0)


def test_partners_tie_on_pips_in_blocked_hand_win():
    g = make([["6-6", "1-2"], ["5-4"], ["3-0"], ["5-5"]], num_players=4, target_score=None)
    play(g, "play 6-6 west", "pass", "pass", "pass", "pass")
    r = g.results[-1]
    assert r.winners == (0, 2) and r.hand_points == (20, 0, 20, 0)  # 9 + 10 = 19 -> 20


def test_a6_target_mid_hand():
    hands = [["6-2", "1-0"], ["2-2"], ["3-3"], ["4-4"]]
    g = make(hands, num_players=4)
    g.scores = [0, 95, 0, 95]
    play(g, "play 2-6 west", "play 2-2 west")  # count 10: team 1 reaches 105 at once
    assert g.is_terminal and g.current_player is None and g.legal_mask() == 0
    r = g.results[-1]
    assert g.scores == [0, 105, 0, 105] and r.kind == "target" and r.hand_points == (0, 0, 0, 0)
    g = make(hands, num_players=4, target_check="end_of_hand")
    g.scores = [0, 95, 0, 95]
    play(g, "play 2-6 west", "play 2-2 west")  # seat 1 went out: the hand points count too (1 + 6 -> 5)
    assert g.is_terminal and g.scores == [0, 110, 0, 110] and g.results[-1].kind == "domino"


def test_end_of_hand_tie_plays_another_hand():
    g = make([["6-2"], ["1-0"]], target_score=5, target_check="end_of_hand")
    g.scores = [10, 10]
    play(g, "play 2-6 west")  # seat 0 +0 (1 pip rounds to 0): 10 v 10, another hand
    assert not g.is_terminal and g.hand_index == 1 and g.leader == 0


def test_score_unit_fives():
    g = make([["6-2"], ["6-4", "3-0", "2-1"]], score_unit="fives", target_score=None)
    play(g, "play 2-6 west")
    assert g.scores == [3, 0]
    g = make(A1_HANDS, score_unit="fives")
    play(g, "play 5-5 west")
    assert g.scores == [2, 0] and g.history[-1][2] == 2


def test_next_leader_rules():
    hands = [["1-0", "3-3"], ["4-4"], ["6-1"]]
    g = make(hands, num_players=3)
    play(g, "play 0-1 west", "pass", "play 1-6 east")  # seat 2 went out: it leads next
    assert g.leader == 2 and g.current_player == 2 and g.hand_index == 1
    g = make(hands, num_players=3, next_leader="rotate")
    play(g, "play 0-1 west", "pass", "play 1-6 east")
    assert g.leader == 1  # left of seat 0
    g = make(hands, num_players=3, **FT)
    play(g, "play 0-1 left", "pass", "play 1-6 right")
    assert g.leader == 1  # Fives and Threes always rotates
    leaders = set()
    for seed in range(12):  # blocked: by lot
        g = make([["6-6", "1-2"], ["5-4"]], seed=seed)
        play(g, "play 6-6 west", "pass", "pass")
        leaders.add(g.leader)
    assert leaders == {0, 1}


# ----- 4 Fives and Threes ----------------------------------------------------------------------
FT = {"variant": "fives_and_threes"}


def test_f1_f2_f3():
    g = make([["5-5", "1-2"], ["3-4", "0-1"]], **FT)
    play(g, "play 5-5 left")
    assert g.scores == [2, 0]
    g = make([["6-6", "1-2"], ["6-3", "0-1"]], **FT)
    play(g, "play 6-6 left")
    assert g.scores == [4, 0]
    play(g, "play 3-6 left")
    assert g.count == 15 and g.scores == [4, 8]
    for lead, points in (("4-2", 2), ("5-0", 1), ("0-0", 0)):
        g = make([[lead, "1-1"], ["3-3", "6-6"]], **FT)
        play(g, f"play {lead} left")
        assert g.scores[0] == points


@pytest.mark.parametrize(("exact", "scores", "terminal"), [(False, [63, 0], True), (True, [59, 0], False)])
def test_f4_target_61(exact, scores, terminal):
    g = make([["6-6", "1-2"], ["3-4", "0-1"]], target_score="exact_61" if exact else 61, **FT)
    g.scores = [59, 0]
    play(g, "play 6-6 left")  # 4 points
    assert g.scores == scores and g.is_terminal is terminal
    assert g.history[-1][2] == (0 if exact else 4)


def test_fives_and_threes_chip_out_and_blocked():
    g = make([["4-2"], ["1-0", "3-3"]], target_score=None, **FT)
    play(g, "play 2-4 left")
    r = g.results[-1]
    assert g.is_terminal and r.kind == "domino" and r.hand_points == (1, 0) and g.scores == [1 + 2, 0]
    g = make([["4-2"], ["1-0", "3-3"]], target_score=None, chip_out_bonus=0, **FT)
    play(g, "play 2-4 left")
    assert g.scores == [2, 0]
    g = make([["6-6", "1-2"], ["5-4"]], target_score=None, **FT)
    play(g, "play 6-6 left", "pass", "pass")
    assert g.results[-1].kind == "blocked" and g.results[-1].hand_points == (0, 0)


def test_exact_61_chip_out_bonus_reaches():
    g = make([["6-2", "2-0"], ["1-0", "3-3"]], target_score="exact_61", **FT)
    g.scores = [60, 0]
    play(g, "play 2-6 left", "pass", "play 0-2 left")  # count 6 would pass 61: not counted
    assert g.history[-1][2] == 0
    assert g.is_terminal and g.scores == [61, 0] and g.results[-1].hand_points == (1, 0)


def test_fives_and_threes_partners_both_chip_out():
    g = make([["6-6"], ["6-1"], ["1-3"], ["5-5", "0-0"]], num_players=4, target_score=None, **FT)
    play(g, "play 6-6 left")  # 4 points; seat 0 is out but its partner is not
    assert not g.is_terminal and g.current_player == 1
    play(g, "play 1-6 right", "play 1-3 right")  # 12 + 3 = 15: 8 points; both partners out: +1
    assert g.is_terminal and g.scores == [13, 0, 13, 0] and g.results[-1].kind == "domino"


def test_fives_and_threes_skips_a_seat_that_is_out_and_blocks():
    hands = [["6-6"], ["6-1", "2-2"], ["1-3", "4-4"], ["5-5", "0-0"]]
    g = make(hands, num_players=4, target_score=None, **FT)
    play(g, "play 6-6 left", "play 1-6 right", "play 1-3 right", "pass")
    assert g.current_player == 1  # seat 0 holds nothing and is skipped
    play(g, "pass", "pass")
    assert g.is_terminal and g.results[-1].kind == "blocked" and g.scores == [12, 0, 12, 0]


def test_fives_and_threes_ids_and_no_draw():
    g = make([["6-6", "1-2"], ["6-3", "0-1"]], **FT)
    assert (g.draw_action, g.pass_action, g.num_actions) == (56, 57, 58)
    assert g.action_to_text(2 * t("3-6") + 1) == "play 3-6 right"
    assert g.action_from_text("play 6-3 left") == 2 * t("3-6")
    assert g.action_from_text("play 6-3 west") == 2 * t("3-6")
    play(g, "play 6-6 left")
    with pytest.raises(IllegalActionError):
        g.apply(56)
    with pytest.raises(ValueError):
        g.action_from_text("play 6-3 north")


# ----- 6 illegal input and notation -------------------------------------------------------------
def assert_refused(g: FivesGame, action, seat=None) -> None:
    before = g.to_json()
    with pytest.raises(IllegalActionError, match="legal moves|match is over"):
        g.apply(action, seat)
    assert g.to_json() == before


def test_refusals_leave_state_untouched():
    g = make(A1_HANDS, stock=(), draw_reserve=0)
    assert_refused(g, g.action_from_text("play 5-5 east"))  # a lead with e != 0
    assert_refused(g, True)
    assert_refused(g, np.bool_(True))
    assert_refused(g, 114)
    assert_refused(g, -1)
    assert_refused(g, "100")
    assert_refused(g, 100, seat=1)
    play(g, "play 5-5 west", "play 5-3 east")
    assert_refused(g, g.action_from_text("play 5-4 north"))  # one side still free
    assert_refused(g, 113)  # a pass while a tile can be played
    g = make([["6-6", "0-0"], ["6-2", "3-4"]], stock=["1-1", "5-5"])
    play(g, "play 6-6 west")
    assert_refused(g, 112)  # a draw while holding a playable tile
    g = make([["6-6", "0-0"], ["1-2", "3-4"]], stock=["1-1", "2-2", "5-5"], draw_reserve=2)
    play(g, "play 6-6 west", "draw")
    assert_refused(g, 112)  # from the reserve
    g = make([["6-2"], ["1-0"]], target_score=None)
    play(g, "play 2-6 west")
    assert_refused(g, 0)


def test_notation():
    g = make(A1_HANDS)
    for a in range(114):
        text = g.action_to_text(a)
        assert g.action_from_text(text) == a
        assert g.action_from_text(text.upper()) == a
    assert g.action_from_text("play 3-5 left") == g.action_from_text("play 5-3 west") == 4 * 20
    assert g.action_from_text("play 5-3 right") == 81
    assert g.action_to_text(np.int64(112)) == "draw"
    for bad in ("play 5-7 east", "play 5-3 up", "put 5-3 east", "play", ""):
        with pytest.raises(ValueError):
            g.action_from_text(bad)
    for bad in (3, None, b"pass"):
        with pytest.raises(TypeError):
            g.action_from_text(bad)
    for bad in (True, 114, -1, 2.0):
        with pytest.raises(ValueError):
            g.action_to_text(bad)


def test_illegal_message_names_move_and_legal():
    g = make(A1_HANDS)
    play(g, "play 5-5 west")
    words = r"'play 0-5 north'.*legal moves: play 3-5 west, play 3-5 east"
    with pytest.raises(IllegalActionError, match=words):
        g.apply(g.action_from_text("play 5-0 north"))


def test_bad_deals_refused():
    cfg = FivesConfig()
    two = [["6-6"], ["1-1"]]
    for deal, words in (({"hands": [["6-6"]]}, "hands"), ({"hands": [["6-6"], ["6-6"]]}, "twice"),
                        ({"hands": [["6-6"], []]}, "at least"), ({"hands": two, "leader": 2}, "leader"),
                        ({"hands": [["6-6"], ["x"]]}, "tile"), ({"hands": two, "who": 1}, "unknown"),
                        ([1, 2], "deal")):
        with pytest.raises(ValueError, match=words):
            FivesGame(cfg, np.random.default_rng(0), deal=deal)
    with pytest.raises(ValueError, match="stock"):
        make([["6-6"], ["1-1"]], stock=["2-2"], **FT)
    with pytest.raises(TypeError):
        FivesGame(cfg, 7)


def test_auto_move():
    g = make([["6-6", "0-0"], ["6-2", "3-4", "6-5"]], stock=["1-1"])
    assert g.action_to_text(g.auto_move()) == "play 6-6 west"
    play(g, "play 6-6 west")
    assert g.action_to_text(g.auto_move()) == "play 5-6 west"
    g = make([["6-6", "0-0"], ["1-2"]], stock=["1-1"])
    play(g, "play 6-6 west")
    assert g.auto_move() == 112


def test_render_text():
    g = make(A1_HANDS)
    play(g, "play 5-5 west", "play 5-3 east", "play 5-4 west", "play 3-6 east", "play 5-0 north")
    text = g.render_text(seat=0)
    assert "W [4|5]{5|5}[5|3][3|6] E" in text and "N [5|0]" in text and "count 10" in text
    assert "scores [20, 10]" in text and "1-5" in text and "3 tiles" in text


# ----- saves ------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, FT, {"num_players": 4, "draw_policy": "may_draw"}])
def test_save_round_trip_mid_match(options):
    rng = np.random.default_rng(5)
    g = FivesGame(FivesConfig(**options), np.random.default_rng(9))
    for step in range(200):
        if g.is_terminal:
            break
        if step % 7 == 0:
            back = FivesGame.from_json(g.to_json())
            assert back.to_json() == g.to_json() and back.view(0) == g.view(0)
            assert back.results == g.results and back.scores == g.scores
        g.apply(int(rng.choice(g.legal_actions())))


def test_bad_saves_refused():
    g = make(A1_HANDS, seed=1)
    play(g, "play 5-5 west")
    good = json.loads(g.to_json())
    bad = [
        "not json", "[]", json.dumps({**good, "format": "domino-env/line"}),
        json.dumps({**good, "version": 2}),
        json.dumps({k: v for k, v in good.items() if k != "version"}),
        json.dumps({**good, "rng": {"bit_generator": "os.system"}}), json.dumps({**good, "actions": [113]}),
        json.dumps({**good, "actions": "100"}), json.dumps({**good, "scores": [5, 0]}),
        json.dumps({**good, "hand_index": 1}), json.dumps({**good, "deal": {**good["deal"], "leader": None}}),
        json.dumps({**good, "results": [{"kind": "domino"}]}),
        json.dumps({**good, "config": {**good["config"], "spinner": "all"}}), "[" * 100000, 42,
    ]
    for text in bad:
        with pytest.raises(ValueError):
            FivesGame.from_json(text)


def test_save_with_results():
    g = make([["6-1"], ["1-0", "3-3"]], leader=1)
    play(g, "play 0-1 west", "play 1-6 east")
    assert g.results[0].hand_points == (5, 0)
    back = FivesGame.from_json(g.to_json())
    assert back.results == g.results and isinstance(back.results[0], FivesResult)
    data = json.loads(g.to_json())
    data["results"][0]["hand_points"] = [0, 0]
    with pytest.raises(ValueError, match="sum"):
        FivesGame.from_json(json.dumps(data))


# ----- 5 views and seeds -----------------------------------------------------------------------
def test_view_hides_other_hands_and_stock():
    a = make([["6-6", "0-0"], ["1-2", "3-4"]], stock=["1-1", "2-5", "5-5"])
    b = make([["6-6", "0-0"], ["1-1", "2-5"]], stock=["3-4", "1-2", "5-5"])
    for g in (a, b):
        play(g, "play 6-6 west", "draw")
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)
    v = a.view(0)
    assert v.hands is None and v.hand_sizes == (1, 3) and v.stock_size == 2 and v.legal_mask == 0
    assert v.out_of_play == 28 - 7  # a scripted deal: tiles in no hand and not in the stock
    assert v.history[-1] == (1, 112, 0, (6, 6, -1, -1))
    opened = make([["6-6"], ["1-2"]], open_hands=True).view(0)
    assert opened.hands == (1 << t("6-6"), 1 << t("1-2"))


def test_fives_and_threes_view_hides_out_of_play():
    a = make([["6-6", "0-0"], ["1-2", "3-4"]], **FT)
    b = make([["6-6", "0-0"], ["1-1", "2-5"]], **FT)
    play(a, "play 6-6 left")
    play(b, "play 6-6 left")
    assert a.view(0) == b.view(0) and a.view(0).out_of_play == 24


def test_seeds():
    cfg = FivesConfig()
    same = [FivesGame(cfg, np.random.default_rng(4)) for _ in range(2)]
    assert same[0].to_json() == same[1].to_json()
    deals = {tuple(FivesGame(cfg, np.random.default_rng(s)).hands) for s in range(10)}
    assert len(deals) == 10
