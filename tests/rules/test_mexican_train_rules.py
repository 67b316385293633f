"""RULES-new-games.md sections 3, 5, 6 and 8 for the Mexican Train engine, on exact scripted deals."""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.mexican_train import (
    SAVE_FORMAT,
    SCORE_PIPS,
    TILES,
    MexicanTrainConfig,
    MexicanTrainGame,
    MexicanTrainResult,
    MexicanTrainView,
)

# The opening table of section 3.7: four players, standard, engine 12-12, seat 0 first.
ROUND_DEAL = {
    "hands": [["12-5", "5-5", "5-10", "3-5", "2-11", "0-1"], ["0-2", "1-3", "4-8"],
              ["12-9", "9-9", "11-4", "0-3"], ["12-7", "0-4", "1-1"]],
    "boneyard": ["3-4", "12-8", "1-6", "2-9", "6-6", "0-0"],
    "first_player": 0,
}


def make(deal, seed=0, **options) -> MexicanTrainGame:
    return MexicanTrainGame(MexicanTrainConfig(**options), np.random.default_rng(seed), deal=deal)


def legal_texts(game: MexicanTrainGame) -> set[str]:
    return {game.action_to_text(a) for a in game.legal_actions()}


def play(game: MexicanTrainGame, *moves: int | str) -> None:
    for move in moves:
        game.apply(game.action_from_text(move) if isinstance(move, str) else move)


def refused(game: MexicanTrainGame, action, seat=None) -> str:
    """``action`` is refused and the state is exactly as it was; returns the message."""
    before = game.to_json()
    with pytest.raises(IllegalActionError) as err:
        game.apply(action, seat)
    assert game.to_json() == before
    return str(err.value)


def idx(text: str) -> int:
    return TILES.parse(text)


# ----- section 1: the tile index -------------------------------------------------------------------
def test_double_twelve_index():
    expected = {"0-0": 0, "1-6": 18, "2-9": 32, "5-5": 55, "5-12": 62, "9-9": 81, "12-12": 90}
    assert {name: idx(name) for name in expected} == expected
    assert TILES.num_tiles == 91


# ----- 3.1 options and presets ---------------------------------------------------------------------
def test_presets():
    std = MexicanTrainConfig()
    assert (std.num_players, std.hand_size, std.engine_source, std.first_player, std.opening,
            std.own_train_first, std.double_bonus, std.unsatisfiable_double, std.blank_scoring, std.rounds,
            std.episode) == (
        4, 15, "set_aside", "rotate", "single", True, "cover", "lapse", "face", 13, "match")
    car = MexicanTrainConfig(preset="cardinal")
    assert (car.engine_source, car.first_player, car.opening, car.double_bonus) == (
        "holder", "holder", "run", "cover")
    assert MexicanTrainConfig(**asdict(car)) == car


@pytest.mark.parametrize(("players", "standard", "cardinal", "fundex", "bh"), [
    (2, 15, 15, 15, 15), (3, 15, 15, 15, 15), (4, 15, 15, 15, 15), (5, 12, 12, 11, 11), (6, 12, 12, 11, 11),
    (7, 10, 11, 8, 10), (8, 10, 11, 8, 10),
])
def test_hand_size_tables(players, standard, cardinal, fundex, bh):
    assert MexicanTrainConfig(num_players=players).hand_size == standard
    assert MexicanTrainConfig(num_players=players, preset="cardinal").hand_size == cardinal
    assert MexicanTrainConfig(num_players=players, hand_size="fundex").hand_size == fundex
    assert MexicanTrainConfig(num_players=players, hand_size="bh").hand_size == bh
    game = MexicanTrainGame(MexicanTrainConfig(num_players=players), np.random.default_rng(players))
    assert [h.bit_count() for h in game.hands] == [standard] * players
    assert len(game.boneyard) == 90 - standard * players


@pytest.mark.parametrize(("options", "words"), [
    ({"num_players": 1}, "2 to 8 players"),
    ({"num_players": 9}, "2 to 8 players"),
    ({"num_players": True}, "2 to 8 players"),
    ({"preset": "fundex"}, "preset"),
    ({"hand_size": 0}, "hand_size"),
    ({"hand_size": "big"}, "hand_size"),
    ({"hand_size": 1, "engine_source": "holder"}, "hand_size must be an integer >= 2"),
    ({"num_players": 6, "hand_size": 16}, "deals from 90"),
    ({"num_players": 7, "hand_size": 13}, "deals from 90"),
    ({"rounds": 0}, "rounds"),
    ({"rounds": 14}, "rounds"),
    ({"engine_source": "table"}, "engine_source"),
    ({"first_player": "holder"}, "does not go with"),
    ({"engine_source": "holder", "first_player": "rotate"}, "does not go with"),
    ({"opening": "all"}, "opening"),
    ({"own_train_first": 1}, "own_train_first"),
    ({"double_bonus": "none"}, "double_bonus"),
    ({"unsatisfiable_double": "x"}, "unsatisfiable_double"),
    ({"blank_scoring": "zero"}, "blank_scoring"),
    ({"episode": "game"}, "episode"),
    ({"open_hands": "yes"}, "open_hands"),
    ({"first_round": 0}, "first_round must be an integer 1..rounds=13"),
    ({"first_round": 14}, "first_round"),
    ({"first_round": 5, "rounds": 4}, "first_round must be an integer 1..rounds=4"),
    ({"first_round": "any"}, "'random'"),
    ({"first_round": 2.5}, "first_round"),
])
def test_refused_options(options, words):
    with pytest.raises(ValueError, match=words):
        MexicanTrainConfig(**options)


def test_holder_deals_from_all_91_tiles():
    assert MexicanTrainConfig(num_players=7, hand_size=13, engine_source="holder").hand_size == 13


def test_make_and_episode():
    cfg = MexicanTrainConfig.make(one_round=True, num_players=3, rounds=5)
    assert (cfg.episode, cfg.num_rounds, cfg.rounds) == ("round", 1, 5)
    assert MexicanTrainConfig.make(rounds=5).num_rounds == 5
    assert MexicanTrainConfig(num_players=np.int64(3), rounds=np.int32(2)).num_players == 3


@pytest.mark.parametrize(("players", "actions"), [(2, 276), (3, 367), (4, 458), (5, 549), (6, 640), (7, 731),
                                                  (8, 822)])
def test_action_counts(players, actions):
    cfg = MexicanTrainConfig(num_players=players)
    game = MexicanTrainGame(cfg, np.random.default_rng(0))
    assert cfg.num_actions == game.num_actions == actions
    assert (game.draw_action, game.pass_action, game.stop_action) == (actions - 3, actions - 2, actions - 1)
    assert cfg.num_sides == players and [cfg.side_of(s) for s in range(players)] == list(range(players))


def test_contract_constants():
    cfg = MexicanTrainConfig(num_players=4)
    assert cfg.max_round_points == 1092  # every pip of the double-twelve set
    assert MexicanTrainConfig(blank_scoring="blank_halves_25").max_round_points == 1092 + 14 * 25 - 0
    assert cfg.max_match_points == 13 * 1092
    assert cfg.max_decisions > 0


# ----- 3.7 worked examples -------------------------------------------------------------------------
def test_worked_round_m1_m2_m3():
    game = make(ROUND_DEAL)
    assert game.engine == 12 and game.current_player == 0
    play(game, 310)  # turn 1: 12-5 own
    play(game, 455)  # turn 2: seat 1 draws 3-4 ...
    assert legal_texts(game) == {"pass"}
    play(game, 456)  # ... and passes: marker on its empty train
    assert game.marked == [False, True, False, False] and game.current_player == 2
    play(game, 420)  # turn 3: 12-9 own
    # Turn 4: seat 3 may not start seat 1's marked train before its own.
    assert legal_texts(game) == {"play 7-12 own"}
    play(game, 375)
    # M1: 5-5 on its own train, then only 5-tiles on that double.
    play(game, 275)
    assert game.open_doubles == [(0, 5)] and game.current_player == 0
    assert legal_texts(game) == {"play 5-10 own", "play 3-5 own"}
    play(game, 300)
    assert game.open_doubles == [] and game.ends[0] == 10 and game.current_player == 1
    # M3 (turn 6): seat 1 draws 12-8 and must play it on its own train; the marker comes off.
    play(game, 455)
    assert legal_texts(game) == {"play 8-12 own"}
    play(game, 400)
    assert game.marked[1] is False and game.trains[1][0][0] == idx("12-8")
    # M2 (turn 7): 9-9, no other 9, draw 1-6, pass: marker on, the double stays.
    play(game, 405)
    assert game.open_doubles == [(2, 9)] and game.current_player == 2
    play(game, 455)
    assert legal_texts(game) == {"pass"}
    play(game, 456)
    assert game.marked[2] and game.open_doubles == [(2, 9)] and game.current_player == 3
    # Turn 8: seat 3 may only cover the double: draws 2-9 and must play it there (slot 3).
    assert legal_texts(game) == {"draw"}
    play(game, 455)
    assert legal_texts(game) == {"play 2-9 p2"} and game.legal_actions() == [163]
    play(game, 163)
    assert game.open_doubles == [] and game.ends[2] == 2 and game.marked[2] and game.current_player == 0
    # Turn 9: seat 0 uses that open train.
    assert game.legal_actions() == [172]
    play(game, 172)
    play(game, "play 4-8 own")  # turn 10: seat 1, any legal play
    # M3 (turn 11): seat 2 plays on its own train whose last tile seat 0 played: the marker comes off.
    assert game.trains[2][-1][:2] == (idx("2-11"), 0)
    play(game, 265)
    assert game.marked[2] is False and game.ends[2] == 4


M4_DEAL = {
    "hands": [["12-11", "0-0"], ["10-3", "0-4"], ["6-6", "2-1"], ["1-6"]],
    "trains": [[], [], ["12-6"], ["12-0"], []],
    "marked": [2],
    "first_player": 3,
}


@pytest.mark.parametrize(("scoring", "points"), [
    ("face", (23, 17, 15, 0)), ("double_blank_50", (73, 17, 15, 0)), ("blank_halves_25", (73, 42, 15, 0)),
])
def test_m4_domino_on_the_previous_players_train(scoring, points):
    game = make(M4_DEAL, blank_scoring=scoring)
    assert game.action_from_text("play 1-6 p2") == 93
    play(game, 93)
    result = game.results[0]
    assert (result.kind, result.out, result.round_points) == ("domino", 3, points)
    assert result.pips == (23, 17, 15, 0)
    assert game.scores == list(points)
    assert game.round_index == 1 and game.engine == 11  # the next round was dealt at once


def test_m5_going_out_on_a_double():
    deal = {"hands": [["7-7"], ["1-2"], ["1-4"], ["1-5"]], "trains": [["12-3"], [], [], [], ["12-7"]],
            "first_player": 0}
    game = make(deal, episode="round")
    play(game, 354)
    assert game.is_terminal and game.current_player is None and game.legal_mask() == 0
    assert game.results[0].kind == "domino" and game.results[0].out == 0
    assert game.scores == [0, 3, 5, 6]


def test_m6_a_pass_that_marks_is_progress():
    deal = {"hands": [["4-10", "5-6"], ["5-7"], ["6-8"]],
            "trains": [["12-1"], ["12-4"], ["12-2"], ["12-3"]], "marked": [0, 2], "first_player": 0}
    game = make(deal, num_players=3)
    assert game.pass_action == 365 and game.draw_action == 364
    play(game, 365)
    assert game.no_progress == 1
    play(game, 365)
    assert game.marked[1] and game.no_progress == 0
    play(game, 365)
    assert game.no_progress == 1 and game.current_player == 0
    assert legal_texts(game) == {"play 4-10 p1"}
    play(game, 4 * idx("4-10") + 1)
    assert game.no_progress == 0 and not game.results


def test_m6_blocked_round():
    deal = {"hands": [["6-3"], ["11-10"], ["9-5"]], "trains": [["12-1"], ["12-2"], ["12-4"], ["12-7"]],
            "marked": [0, 1, 2], "first_player": 1}
    game = make(deal, num_players=3, episode="round")
    play(game, "pass", "pass")
    assert not game.is_terminal
    play(game, "pass")
    assert game.is_terminal
    assert game.results[0] == MexicanTrainResult(0, 12, 1, "blocked", None, (9, 21, 14), (9, 21, 14))


M7_DEAL = {
    "hands": [["4-6"], ["3-3", "5-6", "0-0"], ["6-8"], ["7-9"]],
    "boneyard": ["1-1"],
    "trains": [["12-2", "2-3", "3-4", "4-5", "5-3", "3-6", "6-7", "7-3", "3-8", "8-9", "9-3", "3-10"],
               ["3-12", "3-0", "0-1", "1-3"], [], [], ["12-11", "11-3"]],
    "first_player": 1,
}


def test_m7_a_double_that_can_never_be_covered_lapses():
    game = make(M7_DEAL)
    play(game, "play 3-3 own")
    assert game.open_doubles == [] and game.current_player == 2
    assert legal_texts(game) == {"draw"}  # the next seat plays normally


def test_m7_stand_keeps_it_open_until_the_round_blocks():
    game = make(M7_DEAL, unsatisfiable_double="stand", episode="round")
    play(game, "play 3-3 own")
    assert game.open_doubles == [(1, 3)] and game.current_player == 1
    play(game, "draw", "pass")
    moves = 0
    while not game.is_terminal:
        assert game.legal_actions() == [game.pass_action]
        play(game, "pass")
        moves += 1
    assert moves == 3 + 4  # seats 2, 3, 0 mark their trains, then four turns without progress
    assert game.results[0].kind == "blocked"


def test_m8_lowest_total_wins_and_ties_share():
    hands = [["11-11", "10-11", "10-10", "9-10", "0-6"],
             ["9-11", "8-11", "8-10", "9-9", "7-11", "7-10", "2-9"],
             ["8-9", "7-9", "8-8", "6-11", "6-10", "5-8"],
             ["5-11", "5-10", "6-9", "7-8", "7-7", "4-9"]]
    deal = {"hands": hands, "trains": [[]] * 5, "marked": [0, 1, 2, 3], "first_player": 0}
    game = make(deal, rounds=1)
    play(game, "pass", "pass", "pass", "pass")
    assert game.is_terminal and game.scores == [88, 121, 95, 88]
    assert game.winners == (0, 3)


def test_m8_after_thirteen_rounds():
    # A save after 12 rounds (totals 85, 117, 90, 82); round 13 (engine 0-0) blocks with 3, 4, 5, 6 left.
    earlier = [85, 117, 90, 82]
    results = [{"round_index": i, "engine": 12 - i, "first_player": i % 4, "kind": "blocked", "out": None,
                "pips": earlier if i == 0 else [0] * 4, "round_points": earlier if i == 0 else [0] * 4}
               for i in range(12)]
    deal = {"hands": [["1-2"], ["1-3"], ["1-4"], ["1-5"]], "boneyard": [], "first_player": 0,
            "trains": [[]] * 5, "marked": [0, 1, 2, 3]}
    save = {"format": SAVE_FORMAT, "version": 1, "config": asdict(MexicanTrainConfig()),
            "rng": np.random.default_rng(0).bit_generator.state, "scores": earlier, "results": results,
            "round_index": 12, "deal": deal, "actions": []}
    game = MexicanTrainGame.from_json(json.dumps(save))
    assert game.engine == 0 and game.round_index == 12
    play(game, "pass", "pass", "pass", "pass")
    assert game.is_terminal and game.scores == [88, 121, 95, 88] and game.winners == (0, 3)
    assert len(game.results) == 13 and game.results[-1].round_points == (3, 4, 5, 6)


# ----- 3.3 setup: engine source, first player, rounds ------------------------------------------------
def test_set_aside_engines_and_rotation():
    cfg = MexicanTrainConfig(num_players=3, rounds=4)
    game = MexicanTrainGame(cfg, np.random.default_rng(5))
    firsts = []
    for r in range(4):
        assert game.engine == 12 - r and game.round_index == r and game.engine_holder is None
        engine = TILES.index(12 - r, 12 - r)
        assert not any(h >> engine & 1 for h in game.hands) and engine not in game.boneyard
        firsts.append(game.current_player)
        while game.round_index == r and not game.is_terminal:
            game.apply(game.auto_move())
    assert firsts[1:] == [(firsts[0] + k) % 3 for k in (1, 2, 3)]
    assert game.is_terminal and len(game.results) == 4
    assert [r.engine for r in game.results] == [12, 11, 10, 9]
    assert game.scores == [sum(r.round_points[s] for r in game.results) for s in range(3)]


@pytest.mark.parametrize(("first_round", "episode", "engines"), [
    (11, "match", [2, 1, 0]), (13, "match", [0]), (5, "round", [8]), (1, "round", [12]),
])
def test_first_round_starts_the_episode_at_its_engine(first_round, episode, engines):
    cfg = MexicanTrainConfig(num_players=3, first_round=first_round, episode=episode)
    assert cfg.num_rounds == len(engines) and cfg.first_engine == engines[0]
    game = MexicanTrainGame(cfg, np.random.default_rng(2))
    assert game.engine == engines[0] and game.round_index == 12 - engines[0]
    assert game.render_text().startswith(f"Mexican Train (standard), round {first_round}/")
    while not game.is_terminal:
        game.apply(game.auto_move())
    assert [r.engine for r in game.results] == engines
    assert [r.round_index for r in game.results] == [12 - e for e in engines]
    assert game.scores == [sum(r.round_points[s] for r in game.results) for s in range(3)]


def test_first_round_random_draws_every_round_from_the_seed():
    cfg = MexicanTrainConfig(num_players=4, first_round="random", episode="round")
    starts = [MexicanTrainGame(cfg, np.random.default_rng(seed)).engine for seed in range(200)]
    assert set(starts) == set(range(13))
    again = [MexicanTrainGame(cfg, np.random.default_rng(seed)).engine for seed in range(200)]
    assert again == starts
    fewer = MexicanTrainConfig(num_players=4, first_round="random", rounds=3, episode="match")
    assert {MexicanTrainGame(fewer, np.random.default_rng(seed)).engine for seed in range(60)} == {12, 11, 10}
    assert fewer.num_rounds == 3
    with pytest.raises(ValueError, match="first_round='random'.*no fixed one"):
        _ = fewer.first_engine


def test_first_round_saves_mid_match():
    game = MexicanTrainGame(MexicanTrainConfig(num_players=3, first_round="random", episode="match"),
                            np.random.default_rng(12))
    start = game.round_index
    assert start < 11  # this seed starts early enough to finish a round and go on
    while game.round_index == start:
        game.apply(game.auto_move())
    game.apply(game.auto_move())
    text = game.to_json()
    loaded = MexicanTrainGame.from_json(text)
    assert loaded.to_json() == text and loaded.results == game.results and loaded.round_index == start + 1
    data = json.loads(text)
    fixed = {**data["config"], "first_round": start + 2}  # a fixed start the saved rounds do not begin at
    for bad in ({**data, "config": fixed}, {**data, "round_index": start + 2},
                {**data, "config": {**data["config"], "episode": "round"}}):
        with pytest.raises(ValueError, match="malformed saved Mexican Train"):
            MexicanTrainGame.from_json(json.dumps(bad))
    assert MexicanTrainGame.from_json(json.dumps({**data, "config": {**fixed, "first_round": start + 1}}))


def test_holder_places_the_engine_and_plays_first():
    deal = {"hands": [["1-2"], ["12-12", "3-4"], ["5-6"]], "boneyard": ["0-1"], "first_player": 0}
    game = make(deal, num_players=3, preset="cardinal")
    assert game.engine_holder == 1 and game.current_player == 1 and game.first_player == 1
    assert game.hands[1] == 1 << idx("3-4")


def test_holder_search_draws_from_the_nominal_first_seat():
    deal = {"hands": [["1-2"], ["3-4"], ["5-6"]], "boneyard": ["0-1", "0-2", "0-3", "12-12", "0-4"],
            "first_player": 2}
    game = make(deal, num_players=3, preset="cardinal")
    # Seat 2 draws 0-1, seat 0 0-2, seat 1 0-3, seat 2 draws the engine and places it.
    assert game.engine_holder == 2 and game.current_player == 2
    assert game.hands == [1 << idx("1-2") | 1 << idx("0-2"), 1 << idx("3-4") | 1 << idx("0-3"),
                          1 << idx("5-6") | 1 << idx("0-1")]
    assert game.boneyard == [idx("0-4")] and game.history == []


def test_holder_random_rounds_place_every_engine():
    cfg = MexicanTrainConfig(num_players=8, preset="cardinal", rounds=3)
    game = MexicanTrainGame(cfg, np.random.default_rng(3))
    while not game.is_terminal:
        engine = TILES.index(game.engine, game.engine)
        assert not any(h >> engine & 1 for h in game.hands) and engine not in game.boneyard
        if not game.history:
            assert game.current_player == game.engine_holder
        game.apply(game.auto_move())


# ----- 3.2 trains open to a seat -------------------------------------------------------------------
def test_own_train_first_off_opens_the_mexican_train_at_once():
    deal = {"hands": [["12-3", "12-4"], ["1-2"]], "first_player": 0}
    assert legal_texts(make(deal, num_players=2)) == {"play 3-12 own", "play 4-12 own"}
    assert legal_texts(make(deal, num_players=2, own_train_first=False)) == {
        "play 3-12 own", "play 4-12 own", "play 3-12 mexican", "play 4-12 mexican"}


def test_unmarked_trains_of_others_are_closed():
    deal = {"hands": [["5-6", "3-9"], ["1-2"], ["1-4"]], "trains": [["12-6"], ["12-5"], ["12-3"], []],
            "marked": [2], "first_player": 0}
    game = make(deal, num_players=3)
    assert legal_texts(game) == {"play 5-6 own", "play 3-9 p2"}
    refused(game, 4 * idx("5-6") + 1)  # 5-6 on seat 1's unmarked train


# ----- 3.4 doubles ---------------------------------------------------------------------------------
def test_double_gives_a_fresh_draw_and_others_must_cover():
    deal = {"hands": [["6-6", "1-2"], ["6-3", "12-4"]], "boneyard": ["0-1", "6-9"],
            "first_player": 0, "trains": [["12-6"], [], []]}
    game = make(deal, num_players=2)
    play(game, "play 6-6 own")
    assert game.can_draw and legal_texts(game) == {"draw"}
    play(game, "draw")  # 0-1: no cover
    play(game, "pass")
    assert game.marked[0] and game.open_doubles == [(0, 6)]
    # Seat 1's own train and the Mexican train are closed while the double is open.
    assert legal_texts(game) == {"play 3-6 p0"}
    play(game, "play 3-6 p0")
    assert game.marked[0] and game.open_doubles == [] and game.current_player == 0


def test_double_on_own_train_removes_marker_and_a_failed_cover_puts_it_back():
    deal = {"hands": [["6-6", "1-2"], ["0-6"], ["0-4"]], "trains": [["12-6"], [], [], []], "marked": [0],
            "first_player": 0}
    game = make(deal, num_players=3)
    play(game, "play 6-6 own")
    assert not game.marked[0]
    play(game, "pass")
    assert game.marked[0] and game.open_doubles == [(0, 6)]


def test_double_bonus_any():
    deal = {"hands": [["6-6", "5-5", "1-2", "4-9", "2-7"], ["0-6", "0-5"]], "boneyard": ["0-1"],
            "trains": [["12-6"], [], ["12-5"]], "first_player": 0}
    game = make(deal, num_players=2, double_bonus="any")
    play(game, "play 6-6 own")
    assert game.open_doubles == [] and game.turn_doubles == [(0, 6)] and game.current_player == 0
    play(game, "play 5-5 mexican")  # the extra play may go anywhere, a double again
    assert game.turn_doubles == [(0, 6), (2, 5)] and game.current_player == 0
    play(game, "draw")
    refused(game, game.draw_action)  # one fresh draw per double
    play(game, "pass")
    assert game.open_doubles == [(0, 6), (2, 5)] and game.marked[0]
    # The oldest is covered first.
    assert legal_texts(game) == {"play 0-6 p0"}
    play(game, "play 0-6 p0")
    assert game.open_doubles == [(2, 5)] and game.current_player == 0


def test_double_bonus_any_covered_in_the_same_turn_never_opens():
    deal = {"hands": [["6-6", "6-1", "3-4"], ["0-9"]], "trains": [["12-6"], [], []], "first_player": 0}
    game = make(deal, num_players=2, double_bonus="any")
    play(game, "play 6-6 own", "play 1-6 own")
    assert game.open_doubles == [] and game.turn_doubles == [] and game.current_player == 1


@pytest.mark.parametrize(("rule", "open_after"), [("lapse", []), ("stand", [(0, 6)])])
def test_double_bonus_any_lapse_checked_again_at_the_end_of_the_turn(rule, open_after):
    # The extra play spends the last other 6 elsewhere: the double can no longer be covered.
    deal = {"hands": [["6-6", "6-1", "2-3"], ["2-4"]], "trains": [["12-6"], [], ["12-1", "1-8", "8-6"]],
            "first_player": 0}
    game = make(deal, num_players=2, double_bonus="any", unsatisfiable_double=rule)
    play(game, "play 6-6 own", "play 1-6 mexican")
    assert game.open_doubles == open_after and game.current_player == 1


def test_double_bonus_any_an_open_double_left_uncoverable_by_a_cover_lapses():
    deal = {"hands": [["5-5", "7-7", "1-2"], ["5-7", "3-4"]], "trains": [["12-5"], [], ["12-7"]],
            "first_player": 0}
    game = make(deal, num_players=2, double_bonus="any")
    play(game, "play 5-5 own", "play 7-7 mexican", "pass")
    assert game.open_doubles == [(0, 5), (2, 7)]
    play(game, "play 5-7 p0")  # covers 5-5 with the last 7
    assert game.open_doubles == [] and game.current_player == 0


def test_auto_move():
    game = make(ROUND_DEAL)
    assert game.auto_move() == 310
    play(game, 310)
    assert game.auto_move() == game.draw_action
    play(game, "draw")
    assert game.auto_move() == game.pass_action
    run = run_game([["12-5", "5-3", "3-9"], ["0-1"]])
    play(run, "play 5-12 own")
    assert run.auto_move() == run.action_from_text("play 3-5 own")


def test_double_bonus_cover_requires_the_cover():
    deal = {"hands": [["6-6", "6-1", "5-7"], ["0-9"]], "trains": [["12-6"], [], ["12-5"]], "first_player": 0}
    game = make(deal, num_players=2)
    play(game, "play 6-6 own")
    assert legal_texts(game) == {"play 1-6 own"}
    refused(game, game.action_from_text("play 5-7 mexican"))


# ----- 3.3 the opening run -----------------------------------------------------------------------
def run_game(hands, boneyard=()):
    deal = {"hands": hands, "boneyard": list(boneyard), "first_player": 0}
    return make(deal, num_players=2, opening="run", episode="round")


def test_opening_run_stop_and_continue():
    game = run_game([["12-5", "5-3", "3-9", "1-1"], ["0-1"]])
    assert legal_texts(game) == {"play 5-12 own"}  # stop only after a tile
    refused(game, game.stop_action)
    play(game, "play 5-12 own")
    assert legal_texts(game) == {"play 3-5 own", "stop"}
    play(game, "play 3-5 own", "stop")
    assert game.current_player == 1 and game.ends[0] == 3 and game.first_turn_done[0]


def test_opening_run_ends_without_a_further_tile():
    game = run_game([["12-5", "5-3", "1-1"], ["0-1"]])
    play(game, "play 5-12 own", "play 3-5 own")
    assert game.current_player == 1


def test_opening_run_double_needs_a_cover_and_stop_waits_for_it():
    game = run_game([["12-5", "5-5", "1-2"], ["0-1"]])
    play(game, "play 5-12 own")
    assert game.current_player == 1  # 5-5 has no cover in hand: the run has no further tile
    game = run_game([["12-5", "5-5", "5-2", "2-9"], ["0-1"]])
    play(game, "play 5-12 own", "play 5-5 own")
    assert legal_texts(game) == {"play 2-5 own"}
    refused(game, game.stop_action)
    play(game, "play 2-5 own")
    assert legal_texts(game) == {"play 2-9 own", "stop"}


def test_opening_run_only_own_train_and_a_drawn_tile_begins_it():
    deal = {"hands": [["1-2", "3-4"], ["0-1"]], "boneyard": ["12-3"], "first_player": 0}
    game = make(deal, num_players=2, opening="run", own_train_first=False)
    assert legal_texts(game) == {"draw"}  # the Mexican train is not part of a run
    play(game, "draw")
    assert legal_texts(game) == {"play 3-12 own"}
    play(game, "play 3-12 own")
    assert legal_texts(game) == {"play 3-4 own", "stop"}
    play(game, "stop")
    assert game.in_run and game.current_player == 1  # seat 1's first turn is its run
    play(game, "pass")
    assert not game.in_run and game.current_player == 0  # the second turn is an ordinary one


# ----- section 6: refusals --------------------------------------------------------------------------
def test_refusals_leave_the_state_untouched():
    game = make(ROUND_DEAL)
    message = refused(game, game.pass_action)  # a pass while a play is allowed
    assert "'pass'" in message and "play 5-12 own" in message
    refused(game, game.draw_action)  # must play, no drawing
    refused(game, game.stop_action)  # stop outside a run
    refused(game, game.action_from_text("play 5-12 mexican"))  # train not open yet
    refused(game, 310, seat=1)  # not seat 1's turn
    refused(game, True)
    refused(game, np.bool_(False))
    refused(game, -1)
    refused(game, game.num_actions)
    refused(game, "310")
    play(game, 310)
    refused(game, game.pass_action)  # a pass while a draw is allowed
    play(game, 455)
    refused(game, game.draw_action)  # a second draw in the turn
    play(game, 456, 420, 375, 275)
    refused(game, game.action_from_text("play 0-1 own"))  # any play but covering while a double is open
    game.apply(np.int64(300))  # numpy integers are action ids


def test_no_move_after_the_episode_ended():
    game = make(M4_DEAL, episode="round")
    play(game, 93)
    assert game.is_terminal
    assert "over" in refused(game, game.pass_action)
    with pytest.raises(IllegalActionError):
        game.auto_move()


# ----- section 6: notation -------------------------------------------------------------------------
def test_notation_examples():
    game = make(ROUND_DEAL)
    assert game.action_from_text("play 5-12 own") == 310 == game.action_from_text("play 12-5 own")
    assert game.action_from_text("play 5-12 mexican") == 314
    assert game.action_from_text("play 1-6 p2", seat=3) == 93
    assert game.action_to_text(93, seat=3) == "play 1-6 p2"
    assert game.action_from_text("play 5-12 p0") == 310  # p<actor> is its own train
    assert [game.action_to_text(a) for a in (455, 456, 457)] == ["draw", "pass", "stop"]
    assert game.action_from_text("  DRAW ") == 455


def test_notation_round_trips_every_action_for_every_seat():
    for n in (2, 5, 8):
        game = MexicanTrainGame(MexicanTrainConfig(num_players=n), np.random.default_rng(n))
        for seat in range(n):
            for a in range(game.num_actions):
                assert game.action_from_text(game.action_to_text(a, seat), seat) == a


@pytest.mark.parametrize("text", ["play", "play 5-12", "play 5-12 p4", "play 5-13 own", "play 5 own", "go",
                                  "play 5-12 east", "play 5-12 p-1", "stop now"])
def test_notation_refuses_unreadable_text(text):
    with pytest.raises(ValueError):
        make(ROUND_DEAL).action_from_text(text)


def test_notation_type_errors():
    game = make(ROUND_DEAL)
    with pytest.raises(TypeError):
        game.action_from_text(310)
    for bad in (True, -1, 458, 1.0):
        with pytest.raises(ValueError):
            game.action_to_text(bad)
    with pytest.raises(ValueError):
        game.action_to_text(0, seat=4)


def test_render_text_shows_trains_markers_doubles_and_hides_hands():
    game = make(ROUND_DEAL)
    play(game, 310, 455, 456, 420, 375, 275)
    text = game.render_text(seat=0)
    assert "engine 12-12" in text and "seat 1 [marker]" in text and "open doubles: 5-5 on seat 0" in text
    assert "3-5" in text and "0-2" not in text and "3 tiles" in text
    assert "0-2" in game.render_text()


# ----- scripted deals --------------------------------------------------------------------------------
@pytest.mark.parametrize(("deal", "words"), [
    ([1, 2], "deal must map"),
    ({"hands": [[1]] * 4, "stock": []}, "unknown deal keys"),
    ({"hands": [[1]] * 3}, "must list 4 hands"),
    ({"hands": [[1], [1], [2], [3]]}, "dealt twice"),
    ({"hands": [["12-12"], [1], [2], [3]]}, "set-aside engine"),
    ({"hands": [[1], [], [2], [3]]}, "at least one tile"),
    ({"hands": [[1], ["12-12"], [2], [3]], "preset": "cardinal"}, "besides the engine"),
    ({"hands": [[1], [2], [3], ["x"]]}, "cannot read tile"),
    ({"hands": [[1], [2], [3], [91]]}, "not a tile"),
    ({"hands": [[1], [2], [3], [True]]}, "not a tile"),
    ({"hands": [[1], [2], [3], [4]], "first_player": 4}, "first_player"),
    ({"hands": [[1], [2], [3], [4]], "trains": [[]] * 4}, "5 trains"),
    ({"hands": [[1], [2], [3], [4]], "trains": [["1-2"], [], [], [], []]}, "does not fit"),
    ({"hands": [[1], [2], [3], [4]], "marked": [7]}, "marked"),
    ({"hands": [[1], [2], [3], [4]], "boneyard": 5}, "list of tiles"),
])
def test_bad_deals(deal, words):
    preset = "standard"
    if isinstance(deal, dict):
        deal = dict(deal)
        preset = deal.pop("preset", preset)
    with pytest.raises(ValueError, match=words):
        MexicanTrainGame(MexicanTrainConfig(preset=preset), np.random.default_rng(0), deal=deal)


def test_generator_required():
    with pytest.raises(TypeError):
        MexicanTrainGame(MexicanTrainConfig(), 0)


def test_seeds():
    cfg = MexicanTrainConfig()
    a, b = (MexicanTrainGame(cfg, np.random.default_rng(11)) for _ in range(2))
    assert a.hands == b.hands and a.boneyard == b.boneyard and a.current_player == b.current_player
    deals = {tuple(MexicanTrainGame(cfg, np.random.default_rng(s)).hands) for s in range(6)}
    assert len(deals) == 6


# ----- saves -----------------------------------------------------------------------------------------
def test_save_round_trip_mid_round_and_mid_match():
    game = make(ROUND_DEAL, rounds=3)
    play(game, 310, 455, 456, 420, 375, 275)
    loaded = MexicanTrainGame.from_json(game.to_json())
    assert loaded.to_json() == game.to_json() and loaded.view(0) == game.view(0)
    assert loaded.legal_mask() == game.legal_mask()
    rng = np.random.default_rng(4)
    while game.round_index < 2:
        game.apply(int(rng.choice(game.legal_actions())))
    play(game, game.auto_move())
    loaded = MexicanTrainGame.from_json(game.to_json())
    assert loaded.to_json() == game.to_json() and loaded.results == game.results
    for g in (game, loaded):
        while not g.is_terminal:
            g.apply(g.auto_move())
    assert loaded.scores == game.scores and loaded.to_json() == game.to_json()
    assert MexicanTrainGame.from_json(game.to_json()).is_terminal


def _bad_saves(text: str):
    data = json.loads(text)
    yield "not json", "{"
    yield "list", "[]"
    yield "format", json.dumps({**data, "format": "domino-env/line"})
    yield "version", json.dumps({**data, "version": 2})
    yield "no version", json.dumps({k: v for k, v in data.items() if k not in ("format", "version")})
    yield "rng", json.dumps({**data, "rng": {"bit_generator": "os.system"}})
    yield "config", json.dumps({**data, "config": {**data["config"], "num_players": 9}})
    yield "illegal action", json.dumps({**data, "actions": [data["actions"][0], 456, 456]})
    yield "actions", json.dumps({**data, "actions": 3})
    yield "scores", json.dumps({**data, "scores": [1, 0, 0, 0]})
    yield "results", json.dumps({**data, "results": [{"kind": "domino"}]})
    yield "round index", json.dumps({**data, "round_index": 13})
    yield "deal", json.dumps({**data, "deal": {**data["deal"], "first_player": None}})
    yield "deal tiles", json.dumps({**data, "deal": {**data["deal"], "hands": [[0]] * 4}})
    yield "bytes", b"\xff"
    yield "number", 3


def test_saves_refuse_malformed_input():
    game = make(ROUND_DEAL)
    play(game, 310, 455)
    text = game.to_json()
    assert json.loads(text)["format"] == SAVE_FORMAT and json.loads(text)["version"] == 1
    for name, bad in _bad_saves(text):
        with pytest.raises(ValueError):
            MexicanTrainGame.from_json(bad)
        assert name


def test_clone_is_independent():
    game = make(ROUND_DEAL)
    copy = game.clone()
    play(copy, 310, 455)
    assert game.current_player == 0 and game.boneyard[0] == idx("3-4") and game.trains[0] == []
    play(game, 310, 455)
    assert copy.to_json() == game.to_json()


# ----- section 5: views -------------------------------------------------------------------------------
def test_view_fields_and_open_hands():
    game = make(ROUND_DEAL)
    view = game.view(1)
    assert isinstance(view, MexicanTrainView) and view.hands is None and view.legal_mask == 0
    assert view.hand == game.hands[1] and view.hand_sizes == (6, 3, 4, 3) and view.boneyard_size == 6
    assert game.view(0).legal_mask == game.legal_mask()
    with pytest.raises(AttributeError):
        view.hand = 0  # immutable
    assert make(ROUND_DEAL, open_hands=True).view(1).hands == tuple(game.hands)


def test_views_equal_for_deals_differing_only_in_what_a_seat_cannot_know():
    # Seats 1-3 and the boneyard swap tiles; seat 0's hand and every count are the same.
    other = {
        "hands": [ROUND_DEAL["hands"][0], ["6-6", "0-0", "1-6"], ["3-4", "12-8", "0-2", "2-9"],
                  ["1-3", "4-8", "0-3"]],
        "boneyard": ["12-9", "9-9", "11-4", "12-7", "0-4", "1-1"],
        "first_player": 0,
    }
    a, b = make(ROUND_DEAL), make(other)
    assert a.view(0) == b.view(0)
    play(a, 310)
    play(b, 310)
    assert a.view(0) == b.view(0)
    for game in (a, b):
        play(game, game.draw_action if game.legal_mask() >> game.draw_action & 1 else game.auto_move())
    assert a.view(0) == b.view(0)  # a draw shows the count, never the tile


def test_score_tables():
    assert SCORE_PIPS[:, idx("0-0")].tolist() == [0, 50, 50]
    assert SCORE_PIPS[:, idx("0-4")].tolist() == [4, 4, 29]
    assert SCORE_PIPS[:, idx("12-11")].tolist() == [23, 23, 23]
