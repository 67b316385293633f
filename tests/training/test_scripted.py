"""The batched scripted opponents against the view-based bots they stand in for."""

import numpy as np
import pytest
import torch

from domino_env.bots import make_bot
from domino_env.encoders.line_compact import encode_compact
from domino_env.rules.line import LineConfig, LineGame
from training.config import GameConfig
from training.scripted import BatchedLineGreedy, make_scripted, random_actions

OPTIONS = {
    "block 2p": {"variant": "block", "num_players": 2, "preset": "pagat"},
    "block 4p teams": {"variant": "block", "num_players": 4, "teams": True, "preset": "pagat"},
    "draw 3p": {"variant": "draw", "num_players": 3, "preset": "pagat"},
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_batched_greedy_plays_the_greedy_bots_move(options):
    """Same move as ``bots.line`` greedy on every position of 15 rounds (half the moves random, so
    positions vary); in these rules the compact voids equal the bot's voids (training.scripted)."""
    batched = BatchedLineGreedy({**options, "target_score": None})
    bot = make_bot("dominoes", "greedy")
    rng = np.random.default_rng(0)
    positions = []
    for deal in range(15):
        game = LineGame(LineConfig(**options, target_score=None), np.random.default_rng(deal))
        while not game.is_terminal:
            view = game.view(game.current_player)
            positions.append((view, bot.act(view, rng)))
            legal = [a for a in range(game.num_actions) if view.legal_mask >> a & 1]
            game.apply(positions[-1][1] if rng.random() < 0.5 else int(rng.choice(legal)))
    num_actions = game.num_actions
    obs = torch.as_tensor(np.stack([encode_compact(v) for v, _ in positions]))
    mask = torch.tensor([[v.legal_mask >> a & 1 for a in range(num_actions)] for v, _ in positions]).bool()
    actions = batched(obs, mask, torch.Generator())
    assert actions.tolist() == [a for _, a in positions]
    assert len(positions) > 150


def test_random_opponent_is_uniform_over_legal_actions():
    mask = torch.zeros(4000, 6, dtype=torch.bool)
    mask[:, [1, 4]] = True
    actions = random_actions(torch.zeros(4000, 3), mask, torch.Generator().manual_seed(0))
    assert set(actions.tolist()) == {1, 4} and abs((actions == 1).float().mean().item() - 0.5) < 0.03


def test_no_batched_heuristic_for_texas42():
    with pytest.raises(ValueError, match="no batched scripted opponent 'heuristic' for texas42"):
        make_scripted("heuristic", GameConfig(name="texas42"))
