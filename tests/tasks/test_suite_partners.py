"""Partner cross-play on a tiny run: the table's shape, symmetry and summaries."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.evaluation import GameSetup
from domino_env.evaluation.partners import partner_crossplay
from domino_env.evaluation.tasks import get_task


def test_partner_table_on_a_tiny_run() -> None:
    task = get_task("BlockTeams4p")
    result = partner_crossplay(task.setup, ["random", "greedy"], "greedy", 6, seed=task.seed)
    margin = np.array([[cell[0] for cell in row] for row in result.margin])
    np.testing.assert_allclose(margin, margin.T)  # the pair's value, whoever sits on which seat
    # Two copies of the opponent's own bot against it on duplicate deals: every deal is played from
    # both teams' seats, so the deterministic greedy team's margin cancels exactly.
    assert result.margin[1][1][0] == 0
    for a in range(2):
        assert result.self_play[a][0] == pytest.approx(margin[a, a])
        assert result.cross_play[a][0] == pytest.approx(margin[a, 1 - a])
        assert result.gap[a][0] == pytest.approx(margin[a, a] - margin[a, 1 - a])
        low, high = result.win[a][1 - a][1:]
        assert low <= result.win[a][1 - a][0] <= high
    text = result.to_markdown("points per round")
    assert "against two `greedy`" in text and "| random |" in text


def test_partner_crossplay_needs_a_partnership_game() -> None:
    with pytest.raises(ValueError, match="partnership game"):
        partner_crossplay(GameSetup("dominoes", {"num_players": 4}), ["random", "greedy"], "greedy", 1)
    with pytest.raises(ValueError, match="distinct labels"):
        partner_crossplay(get_task("BlockTeams4p").setup, ["greedy"], "greedy", 1)
