"""Texas 42's compiled search loops equal the Python reference on random positions of every form
(42, N42PA, three-player 42, Texas 88, Nello and Sevens with follow-me's own-suit doubles): the
endgame value (``alphabeta``), the heuristic's move, the rollout to the endgame and the playout to
the end of the hand; and the search agent plays the reference's moves with the same generator."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from domino_env.bots import texas42 as texas42_bots
from domino_env.bots.texas42 import HeuristicTexas42Agent, Texas42SearchAgent, alphabeta
from domino_env.rules.texas42 import BID, PLAY_PHASE, Texas42Config, Texas42Game
from domino_env.search import texas42_solver_compiled as compiled
from domino_env.search.determinize import sample_world
from domino_env.search.texas42_solver_compiled import Texas42Solver

FORMS = {
    "standard": Texas42Config.make("standard"),
    "n42pa": Texas42Config.make("n42pa"),
    "three_players": Texas42Config.make("standard", num_players=3),
    "texas88": Texas42Config.make("texas88"),
    "nello_sevens": Texas42Config.make("standard", nello="low", sevens=True, follow_me_doubles="own_suit"),
}
HEURISTIC = HeuristicTexas42Agent()


def play_positions(config: Texas42Config, games: int, max_tiles: int = 99) -> list[Texas42Game]:
    """Every play-phase position with at most ``max_tiles`` tiles in hands of ``games`` hands played
    by the heuristic and by random moves (one in four), so odd positions come up too."""
    rng, found = np.random.default_rng(11), []
    for seed in range(games):
        game = Texas42Game(config, np.random.default_rng([seed, 5]))
        while not game.is_terminal:
            if game.phase == PLAY_PHASE and sum(map(int.bit_count, game.hands)) <= max_tiles:
                found.append(game.clone())
            legal = game.legal_actions()
            action = (legal[int(rng.integers(len(legal)))] if rng.random() < 0.25
                      else HEURISTIC.act(game.view(game.current_player), rng))
            game.apply(action)
    return found


@pytest.mark.parametrize("form", FORMS)
def test_endgame_value_equals_alphabeta(form: str) -> None:
    positions = play_positions(FORMS[form], 24, max_tiles=12)[::2]
    assert len(positions) >= 15
    solver = Texas42Solver()
    for game in positions:
        for seat in range(game.num_players):
            assert solver.value(game, seat) == alphabeta(game.clone(), seat)


@pytest.mark.parametrize("form", FORMS)
def test_heuristic_move_equals_the_bot(form: str) -> None:
    positions = play_positions(FORMS[form], 12)
    assert len(positions) >= 100
    for game in positions:
        state, rules, table = Texas42Solver()._pack(game, game.current)
        hands, current, trick_tiles, trick_seats, trick_len, led = state[:6]
        legal = compiled._legal(hands[current], trick_len, led, rules)
        tile = compiled._heuristic_tile(hands, current, legal, trick_tiles, trick_seats,
                                        sum(game.tricks_won), trick_len, rules, table)
        view = game.view(game.current)
        assert legal << game.variant.play == view.legal_mask
        assert game.variant.play + tile == HEURISTIC.act(view, np.random.default_rng(0))


@pytest.mark.parametrize("form", FORMS)
def test_rollout_and_playout_equal_the_python_loops(form: str) -> None:
    reference, solver = Texas42SearchAgent(batched=False), Texas42Solver()
    positions = play_positions(FORMS[form], 12)[::4]
    assert len(positions) >= 25
    for game in positions:
        seat = game.current
        exact = reference._exact_at(game)
        expected = reference.evaluate(game.clone(), seat, np.random.default_rng(0))
        assert solver.rollout_value(game, seat, exact) == expected
        to_the_end = dataclasses.replace(game.config, stop_when_decided=False)
        open_game = game.clone()
        open_game.config = to_the_end
        points = solver.playout_points(open_game, seat)
        reference._playout(open_game, np.random.default_rng(0))
        assert points == open_game.last_result["points_taken"][seat]


def test_positions_outside_the_play_phase_are_refused() -> None:
    game = Texas42Game(FORMS["standard"], np.random.default_rng(0))
    assert game.phase == BID
    with pytest.raises(ValueError, match="play-phase positions"):
        Texas42Solver().value(game, 0)


@pytest.mark.parametrize("form", FORMS)
def test_search_plays_the_reference_moves(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bids, trump calls, discards and plays: ``batched`` (compiled) and ``batched=false`` agree on
    the same worlds (drawn here one at a time, as the reference draws them; the batched sampler's
    own test is tests/search/test_texas42_worlds.py)."""
    monkeypatch.setattr(texas42_bots, "sample_worlds", lambda view, rng, count, **options: [
        sample_world(view, rng, **options) for _ in range(count)])
    batched, reference = Texas42SearchAgent(budget=4), Texas42SearchAgent(budget=4, batched=False)
    game = Texas42Game(FORMS[form], np.random.default_rng(3))
    while not game.is_terminal:
        view = game.view(game.current_player)
        move = reference.act(view, np.random.default_rng(len(game.history)))
        assert batched.act(view, np.random.default_rng(len(game.history))) == move
        game.apply(move)
