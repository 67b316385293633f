"""Batched world sampling (``search.line_worlds``) and the batched line search built on it: worlds
consistent with the view and distributed as the exact sampler's, and the same move as the reference
search on the same worlds."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.base import make_bot
from domino_env.bots.line import GreedyLineAgent, LineSearchAgent
from domino_env.rules.line import LineConfig, LineGame, LineView, highest_double_holder
from domino_env.search.beliefs import sample_line_positions
from domino_env.search.decisions import Decision
from domino_env.search.determinize import sample_world
from domino_env.search.line_solver import LineSolver
from domino_env.search.line_worlds import passed_numbers_banned, sample_hands


def views(cfg: LineConfig, games: int, seed: int = 0) -> list[LineView]:
    """Every view of the seat to move in ``games`` greedy rounds."""
    greedy, out = GreedyLineAgent(), []
    for g in range(games):
        game = LineGame(cfg, np.random.default_rng([seed, g]))
        while not game.is_terminal:
            out.append(game.view(game.current))
            game.apply(greedy.act(out[-1], None))
    return out


@pytest.mark.parametrize("options", [{}, {"preset": "boardpan"}, {"num_players": 4, "teams": True},
                                     {"num_players": 3, "preset": "boardpan"}])
def test_sampled_hands_are_consistent_with_the_view(options: dict) -> None:
    cfg = LineConfig(variant="block", target_score=None, **options)
    ts, rng = cfg.tiles, np.random.default_rng(1)
    for view in views(cfg, 3):
        worlds = sample_hands(view, rng, 20)
        assert worlds is not None and len(worlds) == 20
        on_line = sum(1 << t for t, _s, _side in view.line)
        for hands in worlds:
            assert hands[view.seat] == view.hand
            assert [h.bit_count() for h in hands] == list(view.hand_sizes)
            assert sum(hands) == np.bitwise_or.reduce(hands) and sum(hands) & on_line == 0  # disjoint
            for seat, banned in enumerate(passed_numbers_banned(view)):
                assert hands[seat] & banned == 0
            played = [sum(1 << t for t, s, _side in view.line if s == seat) for seat in range(len(hands))]
            dealt = [h | p for h, p in zip(hands, played, strict=True)]
            if cfg.first_leader == "highest_double":
                assert highest_double_holder(ts, dealt) == view.leader


def tile_frequencies(worlds: list[tuple[int, ...]], seat: int, num_tiles: int) -> np.ndarray:
    return np.array([[h[seat] >> t & 1 for t in range(num_tiles)] for h in worlds]).mean(axis=0)


@pytest.mark.parametrize("moves", [0, 6])  # the opening (the leader rule binds) and after passes
def test_sampled_hands_are_distributed_as_the_exact_sampler(moves: int) -> None:
    """Per hidden tile, the share of worlds where the next seat holds it, batched against
    ``sample_consistent_deal`` (via ``sample_world``): within 0.05 over 3,000 worlds each."""
    cfg = LineConfig(variant="block", num_players=3, preset="boardpan", target_score=None)
    greedy, rng = GreedyLineAgent(), np.random.default_rng(5)
    top_double = cfg.tiles.num_tiles - 1  # 6-6
    for seed in range(40):  # the leader without 6-6 (the other seats lack it too), or someone passed
        game = LineGame(cfg, np.random.default_rng(seed))
        for _ in range(moves):
            game.apply(greedy.act(game.view(game.current), rng))
        view = game.view(game.current)
        if any(passed_numbers_banned(view)) if moves else not view.hand >> top_double & 1:
            break
    assert any(passed_numbers_banned(view)) if moves else not view.hand >> top_double & 1
    seat, t = (view.seat + 1) % 3, cfg.tiles.num_tiles
    batched = tile_frequencies(sample_hands(view, rng, 3000), seat, t)
    exact = tile_frequencies([tuple(sample_world(view, rng).hands) for _ in range(3000)], seat, t)
    assert np.abs(batched - exact).max() < 0.05
    assert not np.allclose(batched, batched.mean())  # the constraints do shape the worlds


def test_views_after_a_draw_are_left_to_the_exact_sampler() -> None:
    cfg = LineConfig(variant="draw", target_score=None)
    drew = next(v for v in views(cfg, 10) if any(v.draws))
    assert sample_hands(drew, np.random.default_rng(0), 5) is None


@pytest.mark.parametrize("options", [{}, {"num_players": 4, "teams": True}, {"num_players": 3}])
def test_placements_on_sampled_hands_equal_play_out_on_the_same_worlds(options: dict) -> None:
    """The batched path's values of every candidate equal the reference path's (engine clone,
    move, exact solve) on the same worlds."""
    cfg = LineConfig(variant="block", target_score=None, **options)
    agent, rng = LineSearchAgent(), np.random.default_rng(2)
    checked = 0
    for view in views(cfg, 2):
        (candidates, prior), side = agent.candidates(view), cfg.side_of(view.seat)
        if sum(view.hand_sizes) > 14 or len(candidates) == 1:  # as in ``act``: searched, solvable now
            continue
        worlds = [sample_world(view, rng) for _ in range(3)]
        decision = Decision(view, candidates, side, np.zeros((3, len(candidates))), prior)
        agent.placements(decision, [tuple(w.hands) for w in worlds])
        solved = agent.solver(view.config).margins(decision.endgames, [side] * len(decision.endgames))
        values = decision.values
        values[tuple(np.array(decision.cells).T)] = solved
        for w, world in enumerate(worlds):
            for i, a in enumerate(candidates):
                game = world.clone()
                game.apply(a)
                outcome = agent.play_out(game, side, rng)
                if isinstance(outcome, tuple):
                    outcome = LineSolver(cfg).margin_of(outcome, side)
                assert values[w, i] == outcome
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("options", [{"variant": "block", "num_players": 4, "teams": True},
                                     {"variant": "draw", "num_players": 3}])
def test_batched_search_plays_the_reference_move_on_the_same_worlds(options: dict, monkeypatch) -> None:
    """With world sampling one at a time (as the reference draws them), the batched search's only
    change is the compiled solver: every move equals ``batched=false``'s with the same generator."""
    monkeypatch.setattr("domino_env.bots.line.sample_hands", lambda view, rng, count: None)
    cfg = LineConfig(target_score=None, **options)
    batched, reference = make_bot("dominoes", "search", budget=12), make_bot("dominoes", "search", budget=12,
                                                                               batched=False)
    positions = views(cfg, 2, seed=3)
    for k, view in enumerate(positions):
        assert batched.act(view, np.random.default_rng(k)) == reference.act(view, np.random.default_rng(k))
    assert len(positions) > 20


def test_batched_option_is_checked() -> None:
    with pytest.raises(ValueError, match="batched must be true or false"):
        make_bot("dominoes", "search", batched="no")


@pytest.mark.parametrize("options", [
    {"variant": "block", "num_players": 4, "teams": True}, {"variant": "block", "num_players": 3},
    {"variant": "block", "preset": "boardpan", "num_players": 4}, {"variant": "draw"},
    {"variant": "draw", "num_players": 3, "preset": "boardpan"},
    {"variant": "draw", "num_players": 4, "teams": True, "preset": "boardpan"},
    {"variant": "draw", "draw_policy": "any", "num_players": 3}])
def test_compiled_greedy_rollouts_equal_the_reference_rollouts_on_the_same_worlds(options: dict) -> None:
    """Rows played by the compiled greedy (draws from each world's stock in Draw) end in the margins
    and endgames of ``rollouts`` (engine clones, the view greedy, ``play_out``) on the same worlds."""
    cfg = LineConfig(target_score=None, **options)
    agent, rng = LineSearchAgent(), np.random.default_rng(4)
    checked = 0
    for view in views(cfg, 2, seed=1):
        (candidates, prior), side = agent.candidates(view), cfg.side_of(view.seat)
        if (view.drawable == 0 and sum(view.hand_sizes) <= 14) or len(candidates) == 1:  # as ``act``
            continue
        worlds = [sample_world(view, rng) for _ in range(3)]
        hands = [tuple(w.hands) for w in worlds]
        stocks = [tuple(w.stock[:w.drawable]) for w in worlds] if cfg.variant == "draw" else None
        decision = Decision(view, candidates, side, np.zeros((3, len(candidates))), prior, worlds=hands,
                            stocks=stocks)
        other = Decision(view, candidates[::-1], side, np.zeros((2, len(candidates))), prior[::-1],
                         worlds=hands[:2], stocks=stocks and stocks[:2])
        # rows of another decision in the same batch change nothing
        agent.rollouts_of(cfg).run([other, decision], 14)
        values, found = decision.values, dict(zip(decision.cells, decision.endgames, strict=True))
        for w, world in enumerate(worlds):
            for i, a in enumerate(candidates):
                game = world.clone()
                game.apply(a)
                outcome = agent.play_out(game, side, rng)
                assert found.get((w, i), values[w, i]) == outcome
                checked += 1
    assert checked >= 20


@pytest.mark.parametrize("options", [{"variant": "block", "num_players": 4, "teams": True},
                                     {"variant": "block"}, {"variant": "draw", "num_players": 3}])
def test_search_act_batch_plays_act_on_every_view(options: dict) -> None:
    """Many decisions at once (one batched rollout, one solve) give each view ``act``'s move."""
    cfg = LineConfig(target_score=None, **options)
    agent = make_bot("dominoes", "search", budget=20)
    positions = views(cfg, 2, seed=7)
    moves = agent.act_batch(positions, [np.random.default_rng(k) for k in range(len(positions))])
    assert moves == [agent.act(v, np.random.default_rng(k)) for k, v in enumerate(positions)]


@pytest.mark.parametrize("options", [{"variant": "draw", "num_players": 3, "preset": "boardpan"},
                                     {"variant": "draw", "num_players": 2, "preset": "pagat"},
                                     {"variant": "block", "max_pips": 9}])
def test_sampled_positions_are_the_replayed_worlds(options: dict) -> None:
    """``sample_line_positions`` (what the search samples after a draw) gives, for the same generator,
    exactly the hands and the stock left of the worlds ``sample_world`` deals and replays."""
    cfg = LineConfig(target_score=None, **options)
    after_draws = 0
    for i, view in enumerate(views(cfg, 4)):
        rng = np.random.default_rng(i)
        worlds = [sample_world(view, rng) for _ in range(2)]
        positions = sample_line_positions(view, np.random.default_rng(i), 2)
        for world, (hands, stock) in zip(worlds, positions, strict=True):
            assert hands == list(world.hands)
            assert stock == list(world.stock) or cfg.variant == "block"
        after_draws += any(view.draws)
    assert after_draws > 10 or cfg.variant == "block"
