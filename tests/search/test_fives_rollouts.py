"""The Fives search's greedy rollouts on the batched engine give the reference rollouts' outcomes
(margins, and pairwise wins).

``FivesRollouts.outcomes_many`` plays every (world, candidate) row of many decisions on one
``VectorFivesGame`` with the batched greedy (``search.fives_rollouts``); the reference plays each on an
engine clone of the world, one greedy move at a time (``FivesSearchAgent.clone_values``). On the same
deals the two must agree exactly, for every rule set of the batched greedy's test, in matches so that
later hands (a new leader, no forced lead) are searched too, and whether a decision is rolled out
alone or beside decisions of other games at other points of their hands.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.bots.fives import FivesSearchAgent, GreedyFivesAgent
from domino_env.rules.fives import END_STRIDE, NUM_TILES, FivesConfig, FivesGame, FivesView
from domino_env.search.fives_beliefs import sample_fives_deal
from domino_env.search.fives_rollouts import FivesRollouts
from domino_env.search.line_solver import OBJECTIVES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bots"))
from search_views import decision_views  # noqa: E402
from test_batched_fives_greedy import SHAPES  # noqa: E402  (the batched greedy's rule sets)

WORLDS = 4


def fives_views(config: FivesConfig, games: int, per_game: int) -> list[FivesView]:
    """Views of real choices spread over the matches' hands."""
    return decision_views(lambda rng: FivesGame(config, rng), FivesSearchAgent(), GreedyFivesAgent(), games,
                          per_game)


class ReferenceSearch(FivesSearchAgent):
    """The search with its greedy rollouts played move by move on engine clones of each world."""

    def roll_out(self, decisions) -> None:
        for d in decisions:
            d.values = self.clone_values(d.view, d.candidates, d.worlds, np.random.default_rng(0))


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("options", SHAPES.values(), ids=SHAPES.keys())
def test_batched_rollouts_give_the_reference_outcomes(options: dict, objective: str) -> None:
    config = FivesConfig(**options)
    search, rollouts = FivesSearchAgent(objective=objective), FivesRollouts(config)
    views = fives_views(config, games=4, per_game=12)
    assert len(views) >= 30 and any(v.hand_index > 0 for v in views)  # first and later hands
    if config.is_all_fives and config.num_players < 4:  # worlds whose replayed history draws from their stock
        draw = END_STRIDE[config.variant] * NUM_TILES
        assert any(a == draw for v in views for _s, a, _p, _e in v.history)
    rng = np.random.default_rng(2)
    decisions = [(v, [sample_fives_deal(v, rng) for _ in range(WORLDS)], search.candidates(v)) for v in views]
    together = rollouts.outcomes_many(decisions, objective)  # every decision's rows on one engine
    for (view, deals, candidates), batched in zip(decisions, together, strict=True):
        reference = search.clone_values(view, candidates, deals, np.random.default_rng(0))
        np.testing.assert_array_equal(batched, reference)
        alone = rollouts.outcomes(view, deals, candidates, objective)
        np.testing.assert_array_equal(alone, reference)


def test_the_search_plays_the_reference_searchs_moves() -> None:
    """Whole decisions (worlds, values and the rule that picks a move) on All Fives 2p positions,
    one at a time and many at once."""
    search, reference, greedy = FivesSearchAgent(budget=24), ReferenceSearch(budget=24), GreedyFivesAgent()
    views = fives_views(FivesConfig(num_players=2), games=5, per_game=10)
    moves = [search.act(view, np.random.default_rng(k)) for k, view in enumerate(views)]
    assert moves == [reference.act(view, np.random.default_rng(k)) for k, view in enumerate(views)]
    assert moves == search.act_batch(views, [np.random.default_rng(k) for k in range(len(views))])
    assert sum(m != greedy.act(v, None) for m, v in zip(moves, views, strict=True)) > 0  # its own choices
