"""The searches' rollout objectives (``line_solver.side_outcomes``): the margin, and the pairwise
comparisons won that the harness's cross-play share counts, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.fives import FivesSearchAgent
from domino_env.bots.mexican_train import MexicanTrainSearchAgent
from domino_env.search.line_solver import OBJECTIVES, margin, side_outcomes

POINTS = np.array([[10, 4, 7], [3, 3, 9], [5, 5, 5]])


def test_margin_is_the_scalar_margin_row_by_row() -> None:
    for side in range(3):
        expected = [margin(tuple(row), side) for row in POINTS]
        np.testing.assert_array_equal(side_outcomes(POINTS, side, "margin"), expected)


def test_wins_count_pairwise_comparisons_less_one_half() -> None:
    # side 0: beats both in row 0, ties one and loses one in row 1, ties both in row 2
    np.testing.assert_array_equal(side_outcomes(POINTS, 0, "wins"), [0.5, -0.25, 0.0])
    # side 2: loses to 10, beats 4; beats both; ties both
    np.testing.assert_array_equal(side_outcomes(POINTS, 2, "wins"), [0.0, 0.5, 0.0])
    # two sides: a win by 1 point counts as much as a win by 50, where the margin tells them apart
    two = np.array([[11, 10], [60, 10], [10, 10], [0, 1]])
    np.testing.assert_array_equal(side_outcomes(two, 0, "wins"), [0.5, 0.5, 0.0, -0.5])
    np.testing.assert_array_equal(side_outcomes(two, 0, "margin"), [1, 50, 0, -1])


@pytest.mark.parametrize("search", [FivesSearchAgent, MexicanTrainSearchAgent])
def test_an_unknown_objective_is_refused_naming_the_choices(search) -> None:
    with pytest.raises(ValueError, match="objective") as refused:
        search(objective="points")
    assert all(name in str(refused.value) for name in OBJECTIVES)
