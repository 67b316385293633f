"""Batched Texas 42 worlds (``search.texas42_worlds``) and the engine's redeal behind them
(``Texas42Game.with_hands``): every world shows the searching seat exactly its view, respects the
proven voids, and the worlds are distributed as the exact sampler's."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from domino_env.bots.texas42 import HeuristicTexas42Agent
from domino_env.rules.texas42 import PLAY_PHASE, Texas42Config, Texas42Game, Texas42View
from domino_env.search.beliefs import texas42_unknowns
from domino_env.search.determinize import sample_world
from domino_env.search.texas42_worlds import sample_worlds

HEURISTIC = HeuristicTexas42Agent()


def views_with_voids(config: Texas42Config, wanted: int) -> list[Texas42View]:
    """Play-phase views of the seat to move where some seat is proven void in a suit."""
    rng, found = np.random.default_rng(4), []
    for seed in range(200):
        game = Texas42Game(config, np.random.default_rng([seed, 9]))
        while not game.is_terminal and len(found) < wanted:
            view = game.view(game.current_player)
            if game.phase == PLAY_PHASE and any(texas42_unknowns(view).banned):
                found.append(view)
            game.apply(HEURISTIC.act(view, rng))
        if len(found) >= wanted:
            break
    return found


def public(view: Texas42View) -> Texas42View:
    """The view without its config (a world plays one hand whatever the episode)."""
    return view._replace(config=None)


@pytest.mark.parametrize("options", [{}, {"num_players": 3}, {"sevens": True, "nello": "high"}],
                         ids=["standard", "three_players", "sevens"])
def test_worlds_are_consistent_with_the_view(options: dict) -> None:
    config = Texas42Config.make("standard", episode="game", **options)
    rng = np.random.default_rng(0)
    views = views_with_voids(config, 12)
    assert len(views) == 12
    varied = 0
    for view in views:
        banned = texas42_unknowns(view).banned
        worlds = sample_worlds(view, rng, 16)
        assert len(worlds) == 16
        varied += len({tuple(w.hands) for w in worlds}) > 1  # voids may leave one deal possible
        for world in worlds:
            assert world.config.episode == "hand"
            assert public(world.view(view.seat)) == public(view)
            assert all(hand & ban == 0 for hand, ban in zip(world.hands, banned, strict=True))
            assert sum(world.dealt) == world.variant.full_mask
    assert varied >= len(views) // 2


def test_worlds_are_distributed_as_the_exact_sampler() -> None:
    """Per hidden tile, the share of worlds where a seat proven void in a suit holds it: within 0.05
    of the exact sampler's over 3,000 worlds each."""
    config = Texas42Config.make("standard")
    view = next(v for v in views_with_voids(config, 30) if sum(v.hand_sizes) >= 16
                and any(b for s, b in enumerate(texas42_unknowns(v).banned) if s != v.seat))
    seat = next(s for s, b in enumerate(texas42_unknowns(view).banned) if b and s != view.seat)
    rng = np.random.default_rng(6)

    def shares(worlds: list[Texas42Game]) -> np.ndarray:
        return np.array([[w.hands[seat] >> t & 1 for t in range(28)] for w in worlds]).mean(axis=0)

    batched = shares(sample_worlds(view, rng, 3000))
    exact = shares([sample_world(view, rng) for _ in range(3000)])
    assert np.abs(batched - exact).max() < 0.05
    hidden = texas42_unknowns(view).hidden
    in_play = [t for t in range(28) if hidden >> t & 1]
    assert batched[in_play].min() < 0.05 < 0.3 < batched[in_play].max()  # the voids shape the worlds


def test_texas88_and_plunge_views_take_the_exact_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    from domino_env.search import texas42_worlds

    calls = []
    monkeypatch.setattr(texas42_worlds, "sample_world", lambda view, rng, **o: calls.append(1) or "world")
    view = Texas42Game(Texas42Config.make("texas88"), np.random.default_rng(0)).view(1)
    assert sample_worlds(view, np.random.default_rng(0), 5) == ["world"] * 5 and len(calls) == 5


def test_with_hands_redeals_and_refuses_what_is_not_a_redeal() -> None:
    game = Texas42Game(Texas42Config.make("standard"), np.random.default_rng(2))
    rng = np.random.default_rng(3)
    while game.phase != PLAY_PHASE or not game.trick:
        game.apply(HEURISTIC.act(game.view(game.current_player), rng))
    swapped = [game.hands[1], game.hands[0], *game.hands[2:]]  # seats 0 and 1 hold the same count
    if swapped[0].bit_count() == game.hands[0].bit_count():
        redealt = game.with_hands(swapped)
        assert redealt.hands == swapped and redealt.trick == game.trick and redealt.history == game.history
        assert redealt.dealt[0] == swapped[0] | game.played_by[0]
    before = game.to_json()
    two_of_one = [game.hands[0] | game.hands[1], 0, *game.hands[2:]]
    stolen = [game.hands[0] ^ (game.hands[0] & -game.hands[0]), *game.hands[1:]]
    for bad in (two_of_one, stolen, game.hands[:3], [*game.hands[:3], -1], [*game.hands[:3], "x"]):
        with pytest.raises(ValueError, match="is not a redeal"):
            game.with_hands(bad)
    assert game.to_json() == before
    with pytest.raises(ValueError, match="kitty"):
        Texas42Game(Texas42Config.make("texas88"), np.random.default_rng(0)).with_hands([0] * 6)


def test_a_world_is_an_independent_engine() -> None:
    view = views_with_voids(Texas42Config.make("standard"), 1)[0]
    first, second = sample_worlds(view, np.random.default_rng(1), 2)
    legal = second.legal_actions()
    second.apply(legal[0])
    assert first.history != second.history and first.hands is not second.hands
    assert dataclasses.replace(first.config) == second.config
