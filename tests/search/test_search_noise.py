"""``scripts/search_noise.py``: a departure's gain and standard error are those of the worlds' values,
and the script runs end to end on a small game."""

from __future__ import annotations

import numpy as np
import pytest
from script_loader import load_script

from domino_env.search.decisions import Decision


def decision(values: list[list[float]]) -> Decision:
    array = np.array(values, dtype=float)
    return Decision(None, list(range(array.shape[1])), 0, array, np.zeros(array.shape[1]))


def test_departures_measure_the_best_means_gain_over_the_first_candidate() -> None:
    found = load_script("search_noise").departures([
        decision([[0, 1, 5], [0, 3, 1], [0, 2, 0]]),  # means 0, 2, 2: the first best mean is candidate 1
        decision([[4, 1], [2, 3]]),  # the first candidate is best: no departure
    ])
    assert found["worlds"].tolist() == [3, 2]
    assert found["gains"].tolist() == [2.0]
    assert found["errors"] == pytest.approx([np.std([1, 3, 2], ddof=1) / np.sqrt(3)])


def test_runs_on_a_small_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert load_script("search_noise").main([
        "--game", "fives", "--option", "num_players=2", "--option", "episode=hand",
        "--search", "search:budget=8", "--games", "1", "--share", "1", "--seed", "3",
    ]) == 0
    out = capsys.readouterr().out
    assert "worlds a move" in out and "departures from the first candidate" in out
