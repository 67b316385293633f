"""Bots: the agent contract (a legal int, reproducible from the generator) in every variant, the
greedy tips on scripted positions, determinized worlds, the exact endgame solvers against plain minimax."""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

import numpy as np
import pytest

from domino_env.bots import Agent, RandomAgent, available_bots, make_bot
from domino_env.bots.line import GreedyLineAgent, about_to_block, line_voids, solvable
from domino_env.bots.texas42 import alphabeta, team_value
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import PLAY_PHASE, Texas42Config, Texas42Game, bid_value
from domino_env.rules.tiles import DOUBLE_SIX, iter_bits
from domino_env.search.determinize import sample_world
from domino_env.search.line_solver import LineSolver, margin

LINE_VARIANTS = [
    {"variant": "block"},
    {"variant": "draw", "num_players": 3},
    {"variant": "draw", "num_players": 2, "preset": "boardpan"},
    {"variant": "block", "num_players": 4, "teams": True},
    {"variant": "draw", "num_players": 4, "teams": True, "preset": "boardpan"},
    {"variant": "block", "num_players": 3, "max_pips": 9},
]
TEXAS_VARIANTS = [
    {},
    {"nello": "high", "sevens": True, "plunge": True, "forced_bid": True},
    {"num_players": 3},  # docs/rules.md 3.7
    {"preset": "texas88"},  # docs/rules.md 3.8: the kitty, the discards, two copies of every tile
]
FAST = {"search": {"budget": 8}}


def scripted_bots(game: str) -> list[Agent]:
    """Every registered bot of ``game`` but the trained policies (``checkpoint``, ``rllib``: they need a
    file), user code (it needs a factory) and the trained baselines (they play only the benchmark tasks'
    rules: tests/tasks), search on a small budget: a new bot is held to the contract below
    without touching this file."""
    names = [name for name in available_bots(game) if name not in ("checkpoint", "rllib", "user", "trained")]
    return [make_bot(game, name, **FAST.get(name, {})) for name in names]


def checked_act(agent: Agent, game: LineGame | Texas42Game, rng: np.random.Generator) -> int:
    """``agent``'s move at ``game``'s position, held to the agent contract before anything is applied
    (``apply`` checks legality only): a Python ``int`` (a numpy integer or a bool is read differently
    by the two engines), one of ``game.legal_actions()``, and the same move again from the same
    generator state (the generator is an agent's only source of randomness)."""
    view = game.view(game.current_player)
    replay = copy.deepcopy(rng)
    action = agent.act(view, rng)
    name = type(agent).__name__
    assert type(action) is int, f"{name} returned {action!r} of type {type(action).__name__}, not int"
    legal = game.legal_actions()
    assert action in legal, f"{name} chose {action}, not legal; legal: {legal}"
    again = agent.act(view, replay)
    assert again == action, f"{name} chose {action}, then {again} from the same generator state"
    return action


def play_checked(game: LineGame | Texas42Game, agents: list[Agent], seed: int) -> int:
    """Play ``game`` to the end, every move through ``checked_act``; seat ``s`` is played by
    ``agents[(s + seed) % len(agents)]``, so over the seeds every bot plays every seat. Returns the
    number of moves checked."""
    rng, moves = np.random.default_rng(seed + 1000), 0
    while not game.is_terminal:
        agent = agents[(game.current_player + seed) % len(agents)]
        game.apply(checked_act(agent, game, rng))
        moves += 1
    return moves


@pytest.mark.parametrize("options", LINE_VARIANTS)
def test_line_bots_choose_a_legal_int_reproducibly(options: dict) -> None:
    config, agents = LineConfig(target_score=None, **options), scripted_bots("dominoes")
    games = [LineGame(config, np.random.default_rng(seed)) for seed in range(6)]
    moves = sum(play_checked(game, agents, seed) for seed, game in enumerate(games))
    assert moves >= 6 * config.num_players  # every seed played some moves, not an empty loop


@pytest.mark.parametrize("options", TEXAS_VARIANTS)
def test_texas42_bots_choose_a_legal_int_reproducibly(options: dict) -> None:
    config, agents = Texas42Config.make(**options), scripted_bots("texas42")
    games = [Texas42Game(config, np.random.default_rng(seed)) for seed in range(4)]
    moves = sum(play_checked(game, agents, seed) for seed, game in enumerate(games))
    assert moves >= 4 * config.num_players


class _IllegalBot:
    """Breaks the contract: the lowest action id that is not legal."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        return next(a for a in range(1 << 10) if not view.legal_mask >> a & 1)


class _NumpyIntBot:
    """Breaks the contract: a legal move, as a numpy integer."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        return np.int64(RandomAgent().act(view, rng))


class _HiddenStateBot:
    """Breaks the contract: alternates between its lowest and highest legal move on a counter of its
    own, so the same view and generator state give different moves."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, view: Any, rng: np.random.Generator) -> int:
        self.calls += 1
        legal = list(iter_bits(view.legal_mask))
        return legal[0] if self.calls % 2 else legal[-1]


@pytest.mark.parametrize("game", ["dominoes", "texas42"])
@pytest.mark.parametrize(
    ("broken", "words"),
    [(_IllegalBot, "not legal"), (_NumpyIntBot, "not int"), (_HiddenStateBot, "same generator state")],
)
def test_the_contract_check_catches_a_broken_bot(game: str, broken: type, words: str) -> None:
    """Each broken bot in turn in seat 0: ``checked_act`` stops it before ``apply`` sees the move."""
    config = LineConfig(target_score=None) if game == "dominoes" else Texas42Config()
    engine = LineGame if game == "dominoes" else Texas42Game
    for seed in range(3):
        agents = [broken(), *scripted_bots(game)][: config.num_players]
        with pytest.raises(AssertionError, match=words):
            play_checked(engine(config, np.random.default_rng(seed)), agents, seed=0)


def test_registry_names_and_errors() -> None:
    assert {"random", "greedy", "search", "checkpoint"} <= set(available_bots("dominoes"))
    with pytest.raises(ValueError, match="unknown game 'line'"):  # one name per game, no aliases
        available_bots("line")
    assert {"random", "heuristic", "search", "checkpoint"} <= set(available_bots("texas42"))
    assert isinstance(make_bot("texas42", "heuristic"), Agent)
    with pytest.raises(ValueError, match="available"):
        make_bot("dominoes", "heuristic")
    with pytest.raises(ValueError, match="unknown game"):
        make_bot("chess", "random")
    with pytest.raises(ValueError, match="budget"):
        make_bot("dominoes", "search", budget=0)
    with pytest.raises(ValueError, match="bidding"):
        make_bot("texas42", "search", bidding="guess")


def test_texas42_search_bids_cheapest_or_passes() -> None:
    """Simulated bidding either passes or bids the cheapest legal bid; heuristic bidding copies
    the heuristic's auction."""
    rng, heuristic = np.random.default_rng(0), make_bot("texas42", "heuristic")
    simulate = make_bot("texas42", "search", budget=4)
    copy = make_bot("texas42", "search", budget=4, bidding="heuristic")
    for seed in range(4):
        game = Texas42Game(Texas42Config(), np.random.default_rng(seed))
        view = game.view(game.current_player)
        cheapest = min((a for a in iter_bits(view.legal_mask) if a > 0), key=bid_value)
        assert simulate.act(view, rng) in (0, cheapest)
        assert copy.act(view, rng) == heuristic.act(view, rng)


# ----- greedy tips on scripted positions --------------------------------------------------------
def _position(hands: list[list[str]], moves: list[str], leader: int = 0, variant: str = "block",
              stock: tuple[str, ...] = ()) -> LineGame:
    cfg = LineConfig(variant=variant, target_score=None)
    deal = {"hands": hands, "leader": leader, **({"stock": list(stock)} if stock else {})}
    game = LineGame(cfg, np.random.default_rng(0), deal=deal)
    for move in moves:
        game.apply(game.action_from_text(move))
    return game


def _greedy_move(game: LineGame) -> str:
    seat = game.current_player
    return game.action_to_text(GreedyLineAgent().act(game.view(seat), np.random.default_rng(0)))


def test_greedy_dumps_the_heaviest_tile_first() -> None:
    game = _position([["6-5", "1-0", "2-2", "3-1"], ["4-4", "0-0", "3-3", "2-1"]], [])
    assert _greedy_move(game) == "play 6-5 left"


def test_greedy_keeps_the_ends_on_its_long_number() -> None:
    # Seat 1 opens 5-2 (ends 2 and 5). 6-2 and 5-3 weigh 8 each; after 6-2 the ends are 6 and 5
    # (seat 0 keeps two 6s and a 5), after 5-3 they are 2 and 3 (it holds neither).
    game = _position([["2-6", "5-3", "6-1", "6-0", "4-1"], ["5-2", "0-0", "1-1", "4-4", "3-3"]],
                     ["play 5-2 left"], leader=1)
    assert _greedy_move(game) == "play 6-2 left"


def test_greedy_prefers_a_double_to_an_equal_weight_single() -> None:
    game = _position([["3-3", "4-2", "0-0"], ["5-5", "1-0", "0-2"]], [])
    assert _greedy_move(game) == "play 3-3 left"


def test_greedy_plays_to_a_number_its_opponent_passed_on() -> None:
    # Seat 1 passes on ends 1 and 4. Later, at ends 1 and 3, seat 0 holds 1-2 and 3-0 (3 pips
    # each, one matching tile kept either way): 3-0 keeps the 1 open, which seat 1 cannot answer.
    game = _position([["4-1", "4-6", "1-2", "3-0", "5-5"], ["6-3", "2-2", "5-0"]],
                     ["play 4-1 left", "pass", "play 4-6 right", "play 6-3 right"])
    assert line_voids(game.view(0)) == {1: DOUBLE_SIX.suit_mask[1] | DOUBLE_SIX.suit_mask[4]}
    assert _greedy_move(game) == "play 3-0 right"
    scores = GreedyLineAgent().scores(game.view(0))
    gain = scores[game.action_from_text("play 3-0 right")] - scores[game.action_from_text("play 1-2 left")]
    assert gain == 4.0  # the opponent_void weight, nothing else differs


def test_greedy_turns_to_shedding_pips_when_block_is_near() -> None:
    # Seat 0 holds every 0 and opens 0-0; seat 1 passes. No unseen tile fits the ends: the round
    # is about to block, so the pip weight jumps from 1 to 10 per pip and 6-0 goes first.
    game = _position([["0-0", "6-0", "2-0", "3-0", "4-0", "5-0", "1-0"], ["1-1", "2-2", "1-2"]],
                     ["play 0-0 left", "pass"])
    assert about_to_block(game.view(0)) and not about_to_block(_position([["6-0"], ["1-1"]], []).view(0))
    assert _greedy_move(game) == "play 6-0 left"
    assert GreedyLineAgent().scores(game.view(0))[game.action_from_text("play 6-0 left")] == 60 + 7.5 + 4


def test_greedy_draws_only_when_it_cannot_play() -> None:
    stock = ("0-0", "1-1", "2-2", "5-5")
    game = _position([["6-6", "1-0"], ["2-3", "4-5"]], ["play 6-6 left"], variant="draw", stock=stock)
    assert _greedy_move(game) == "draw"
    game = _position([["6-6", "1-0"], ["2-6", "4-5"]], ["play 6-6 left"], variant="draw", stock=stock)
    assert _greedy_move(game) == "play 6-2 left"


# ----- determinized worlds and exact endgames -------------------------------------------------------
def test_sampled_worlds_match_the_view_and_never_the_hidden_hands() -> None:
    rng = np.random.default_rng(0)
    for seed in range(10):
        cfg = LineConfig(variant="draw", num_players=3, target_score=None)
        game = LineGame(cfg, np.random.default_rng(seed))
        agents = GreedyLineAgent()
        while not game.is_terminal:
            seat = game.current_player
            view = game.view(seat)
            world = sample_world(view, rng)
            assert world.hands[seat] == view.hand and world.current == seat
            assert [h.bit_count() for h in world.hands] == list(view.hand_sizes)
            assert (world.left, world.right) == (view.left_end, view.right_end)
            assert len(world.stock) == view.stock_size
            assert world.legal_mask() == view.legal_mask
            for other, void in line_voids(view).items():
                assert world.hands[other] & void == 0
            game.apply(agents.act(view, rng))


def test_texas42_worlds_replay_the_public_history() -> None:
    rng = np.random.default_rng(0)
    heuristic = make_bot("texas42", "heuristic")
    for seed in range(10):
        game = Texas42Game(Texas42Config(), np.random.default_rng(seed))
        while not game.is_terminal:
            seat = game.current_player
            view = game.view(seat)
            world = sample_world(view, rng)
            mine = world.view(seat)
            assert (mine.hand, mine.bids, mine.tricks, mine.trick, mine.legal_mask) == (
                view.hand, view.bids, view.tricks, view.trick, view.legal_mask)
            game.apply(heuristic.act(view, rng))


def _minimax(game, value, maximizing) -> float:
    """Plain minimax without pruning or memo: the reference for the solvers."""
    if game.is_terminal:
        return value(game)
    children = []
    for action in iter_bits(game.legal_mask()):
        child = game.clone()
        child.apply(action)
        children.append(_minimax(child, value, maximizing))
    return max(children) if maximizing(game) else min(children)


def _side_points(game: LineGame) -> tuple[int, ...]:
    points = game.results[-1].round_points
    return tuple(points[k] for k in range(game.config.num_sides))


def _max_n(game: LineGame) -> tuple[int, ...]:
    """Max-n on engine clones, no memo: the reference for ``LineSolver`` (scoring included)."""
    if game.is_terminal:
        return _side_points(game)
    side, best = game.config.side_of(game.current), None
    for action in iter_bits(game.legal_mask()):
        child = game.clone()
        child.apply(action)
        value = _max_n(child)
        if best is None or margin(value, side) > margin(best, side):
            best = value
    return best


@pytest.mark.parametrize("options", [
    {"variant": "block"},
    {"variant": "block", "preset": "boardpan"},
    {"variant": "block", "num_players": 3},
    {"variant": "block", "num_players": 4, "teams": True},
    {"variant": "draw", "num_players": 3},
])
def test_line_solver_matches_brute_force_on_endgames(options: dict) -> None:
    rng, greedy = np.random.default_rng(0), GreedyLineAgent()
    cfg = LineConfig(target_score=None, **options)
    solved = 0
    for seed in range(8):
        game = LineGame(cfg, np.random.default_rng(seed))
        while not game.is_terminal and not solvable(game, 7):
            game.apply(greedy.act(game.view(game.current), rng))
        if game.is_terminal:
            continue
        solver = LineSolver(cfg)
        assert solver.value(solver.position(game)) == _max_n(game)
        if cfg.num_sides == 2:
            first_side = lambda g: cfg.side_of(g.current) == 0  # noqa: E731
            expected = _minimax(game, lambda g: margin(_side_points(g), 0), first_side)
            assert margin(_max_n(game), 0) == expected
            assert LineSolver(cfg).margin_of(solver.position(game), 0) == expected
            assert solver.margin_of(solver.position(game), 1) == -expected
        solved += 1
    assert solved >= 4


def test_line_solver_scores_like_the_engine() -> None:
    rng = np.random.default_rng(1)
    for options in ({"variant": "block", "num_players": 4, "teams": True},
                    {"variant": "block", "preset": "boardpan"}):
        cfg = LineConfig(target_score=None, **options)
        for seed in range(20):
            game = LineGame(cfg, np.random.default_rng(seed))
            while not game.is_terminal:
                game.apply(make_bot("dominoes", "random").act(game.view(game.current), rng))
            winner = game.results[-1].winners[0] if game.results[-1].kind == "domino" else None
            assert LineSolver(cfg).round_points(tuple(game.hands), winner) == _side_points(game)


def in_hands(game: Texas42Game) -> int:
    return sum(map(int.bit_count, game.hands))


ENDGAMES = [({}, 8), ({"num_players": 3}, 6), ({"preset": "texas88"}, 12)]  # at most 8 tiles or 2 tricks


@pytest.mark.parametrize(("options", "tiles"), ENDGAMES)
def test_texas42_alphabeta_matches_minimax_on_endgames(options: dict, tiles: int) -> None:
    """Exact for every seat, its side maximizing (with three players the bidder against the two)."""
    rng, heuristic = np.random.default_rng(0), make_bot("texas42", "heuristic")
    solved = 0
    for seed in range(6):
        cfg = Texas42Config.make(stop_when_decided=False, **options)
        game = Texas42Game(cfg, np.random.default_rng(seed))
        while not game.is_terminal and (game.phase != PLAY_PHASE or in_hands(game) > tiles):
            game.apply(heuristic.act(game.view(game.current_player), rng))
        if game.is_terminal:
            continue
        for seat in range(cfg.num_players):
            ours = game.sides[seat]
            value = partial(team_value, seat=seat)
            expected = _minimax(game, value, lambda g, o=ours: g.sides[g.current_player] == o)
            assert alphabeta(game, seat) == pytest.approx(expected)
        solved += 1
    assert solved >= 3
