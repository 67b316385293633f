"""The Fives search's greedy rollouts on the batched engine give the reference rollouts' margins.

``FivesSearchAgent.values`` plays every (world, candidate) row on ``VectorFivesGame`` with the batched
greedy (``search.fives_rollouts``); the reference plays each on an engine clone of the world, one view
greedy move at a time (``FivesSearchAgent.evaluate``). On the same sampled worlds (the same generator
state) the two must agree exactly, for every rule set of the batched greedy's test, in matches so that
later hands (a new leader, no forced lead) are searched too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.bots.fives import FivesSearchAgent, GreedyFivesAgent
from domino_env.rules.fives import FivesConfig, FivesGame

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots"))
from test_batched_fives_greedy import SHAPES  # noqa: E402  (the batched greedy's rule sets)

WORLDS = 4


class ReferenceSearch(FivesSearchAgent):
    """The search with its rollouts played move by move on engine clones of each world, the worlds
    drawn from the generator as the batched path draws them."""

    values = FivesSearchAgent.clone_values


@pytest.mark.parametrize("options", SHAPES.values(), ids=SHAPES.keys())
def test_batched_rollouts_give_the_reference_margins(options: dict) -> None:
    config = FivesConfig(**options)
    search, greedy = FivesSearchAgent(), GreedyFivesAgent()
    rng = np.random.default_rng(1)
    checked, later_hands, draws = 0, 0, 0
    for deal in range(4):
        game = FivesGame(config, np.random.default_rng(deal))
        while not game.is_terminal and checked < 15 * (deal + 1):
            view = game.view(game.current_player)
            candidates = search.candidates(view)
            if len(candidates) > 1 and rng.random() < 0.25:  # positions spread over the match's hands
                seed = 1000 * deal + checked
                batched = search.values(view, candidates, WORLDS, np.random.default_rng(seed))
                reference = ReferenceSearch().values(view, candidates, WORLDS, np.random.default_rng(seed))
                np.testing.assert_array_equal(batched, reference)
                checked += 1
                later_hands += view.hand_index > 0
                draws += any(a == game.draw_action for _s, a, _p, _e in view.history)
            move = greedy.act(view, rng) if rng.random() < 0.5 else int(rng.choice(game.legal_actions()))
            game.apply(move)
    assert checked >= 30 and later_hands > 0  # real choices, in first and later hands
    if config.is_all_fives and config.num_players < 4:
        assert draws > 0  # worlds whose replayed history draws from their stock


def test_the_search_plays_the_reference_searchs_moves() -> None:
    """Whole decisions (worlds, values and the rule that picks a move) on All Fives 2p positions."""
    search, reference, greedy = FivesSearchAgent(budget=24), ReferenceSearch(budget=24), GreedyFivesAgent()
    game = FivesGame(FivesConfig(num_players=2), np.random.default_rng(5))
    decided, departures = 0, 0
    while decided < 40:
        view = game.view(game.current_player)
        if len(search.candidates(view)) > 1:
            move = search.act(view, np.random.default_rng(decided))
            assert move == reference.act(view, np.random.default_rng(decided))
            departures += move != greedy.act(view, None)
            decided += 1
        game.apply(greedy.act(view, None))
    assert departures > 0  # the search's own choices were compared, not only greedy's
