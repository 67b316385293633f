"""The Mexican Train search's greedy rollouts on the batched engine give the reference rollouts' values.

``MexicanTrainRollouts.values_many`` loads every (world, candidate) row of many decisions into one
``VectorMexicanTrainGame`` and plays them with the batched greedy (``search.mexican_train_rollouts``);
the reference plays each on a clone of the world, one greedy move at a time
(``MexicanTrainSearchAgent.clone_values``). On the same worlds the two must agree exactly, for player
counts and rule sets the batched engine plays, whether a decision is rolled out alone or beside others.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.bots.mexican_train import GreedyMexicanTrainAgent, MexicanTrainSearchAgent, sample_world
from domino_env.games import MEXICAN_TRAIN
from domino_env.rules.mexican_train import MexicanTrainConfig, MexicanTrainGame, MexicanTrainView
from domino_env.search.line_solver import OBJECTIVES
from domino_env.search.mexican_train_rollouts import MexicanTrainRollouts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_views import decision_views as shared_views  # noqa: E402

WORLDS = 3
OPTION_SETS = {
    "4p": dict(num_players=4),
    "2p-cardinal": dict(num_players=2, preset="cardinal"),
    "6p-match-round-9": dict(num_players=6, episode="match", first_round=9),
    "3p-holder-run": dict(num_players=3, engine_source="holder", opening="run", own_train_first=False),
    "5p-stand": dict(num_players=5, unsatisfiable_double="stand", blank_scoring="double_blank_50"),
}


def decision_views(config: MexicanTrainConfig, games: int, per_game: int) -> list[MexicanTrainView]:
    """Views of real choices spread over rounds played mostly by greedy."""
    return shared_views(lambda rng: MexicanTrainGame(config, rng), MexicanTrainSearchAgent(),
                        GreedyMexicanTrainAgent(), games, per_game, take=0.3, greedy_share=0.7)


class ReferenceSearch(MexicanTrainSearchAgent):
    """The search with every rollout played move by move on clones of its worlds."""

    def rollouts_of(self, config: MexicanTrainConfig) -> None:
        return None


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("options", OPTION_SETS.values(), ids=OPTION_SETS.keys())
def test_batched_rollouts_give_the_reference_values(options: dict, objective: str) -> None:
    config = MEXICAN_TRAIN.config(**options)
    search, rollouts = MexicanTrainSearchAgent(objective=objective), MexicanTrainRollouts(config)
    views = decision_views(config, games=3, per_game=8)
    assert len(views) >= 12
    rng = np.random.default_rng(2)
    decisions = [(v, [sample_world(v, rng) for _ in range(WORLDS)], search.candidates(v)) for v in views]
    together = rollouts.values_many(decisions, objective)  # every decision's rows on one engine
    for (view, worlds, candidates), batched in zip(decisions, together, strict=True):
        reference = search.clone_values(view, candidates, worlds, np.random.default_rng(0))
        assert batched.shape == (WORLDS, len(candidates))
        np.testing.assert_array_equal(batched, reference)
        alone = rollouts.values_many([(view, worlds, candidates)], objective)[0]
        np.testing.assert_array_equal(alone, reference)
    distinct = 5 if objective == "margin" else 2  # pairwise wins take 2n - 1 values at most
    assert len({v for batched in together for v in batched.ravel()}) > distinct  # the values tell moves apart


def test_the_search_plays_the_reference_searchs_moves() -> None:
    """Whole decisions (worlds, values and the rule that picks a move) on four-player positions, one at
    a time and many at once; and rules the batched engine does not play fall back to the clones."""
    search, reference = MexicanTrainSearchAgent(budget=12), ReferenceSearch(budget=12)
    views = decision_views(MEXICAN_TRAIN.config(num_players=4), games=3, per_game=8)
    moves = [search.act(view, np.random.default_rng(k)) for k, view in enumerate(views)]
    assert moves == [reference.act(view, np.random.default_rng(k)) for k, view in enumerate(views)]
    assert moves == search.act_batch(views, [np.random.default_rng(k) for k in range(len(views))])
    greedy = GreedyMexicanTrainAgent()
    assert sum(m != greedy.act(v, None) for m, v in zip(moves, views, strict=True)) > 0  # its own choices
    any_bonus = MEXICAN_TRAIN.config(num_players=3, double_bonus="any")
    assert search.rollouts_of(any_bonus) is None
    view = decision_views(any_bonus, games=1, per_game=1)[0]
    assert search.act(view, np.random.default_rng(0)) == reference.act(view, np.random.default_rng(0))
