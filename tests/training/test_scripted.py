"""The batched scripted opponents against the view-based bots they stand in for."""

import numpy as np
import pytest
import torch

from domino_env.bots import make_bot
from domino_env.bots.batched import BatchedLineGreedy
from domino_env.encoders.line_compact import encode_compact
from domino_env.encoders.texas42_compact import encode_compact as encode_texas42
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import DECLARE, NELLO, NUM_ACTIONS, SEVENS, Texas42Config, Texas42Game
from domino_env_training.config import GameConfig
from domino_env_training.scripted import make_scripted, random_actions

OPTIONS = {
    "block 2p": {"variant": "block", "num_players": 2, "preset": "pagat"},
    "block 4p teams": {"variant": "block", "num_players": 4, "teams": True, "preset": "pagat"},
    "draw 3p": {"variant": "draw", "num_players": 3, "preset": "pagat"},
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_batched_greedy_plays_the_greedy_bots_move(options):
    """Same move as ``bots.line`` greedy on every position of 15 rounds (half the moves random, so
    positions vary); in these rules the compact voids equal the bot's voids (domino_env_training.scripted)."""
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
    obs = np.stack([encode_compact(v) for v, _ in positions])
    mask = np.array([[v.legal_mask >> a & 1 for a in range(num_actions)] for v, _ in positions], bool)
    actions = batched(obs, mask, rng)
    assert actions.tolist() == [a for _, a in positions]
    assert len(positions) > 150


def test_random_opponent_is_uniform_over_legal_actions():
    mask = torch.zeros(4000, 6, dtype=torch.bool)
    mask[:, [1, 4]] = True
    actions = random_actions(torch.zeros(4000, 3), mask, torch.Generator().manual_seed(0))
    assert set(actions.tolist()) == {1, 4} and abs((actions == 1).float().mean().item() - 0.5) < 0.03


TEXAS42_OPTIONS = {
    "standard": {"preset": "standard"},
    "every contract": {"preset": "standard", "nello": "own_suit", "sevens": True, "plunge": True,
                       "all_pass": "forced", "follow_me_doubles": "own_suit"},
    "n42pa": {"preset": "n42pa"},
}


@pytest.mark.parametrize("options", TEXAS42_OPTIONS.values(), ids=TEXAS42_OPTIONS.keys())
def test_batched_heuristic_plays_the_heuristic_bots_move(options):
    """Same move as ``bots.texas42`` heuristic on every position of 60 hands, half the moves random so
    that auctions and tricks vary, and every legal contract declared in turn (Nello and Sevens too)."""
    batched = make_scripted("heuristic", GameConfig(name="texas42", options=options))
    bot = make_bot("texas42", "heuristic")
    rng = np.random.default_rng(0)
    config = Texas42Config(**options)
    positions, declarations = [], set()
    for deal in range(60):
        game = Texas42Game(config, np.random.default_rng(deal))
        while not game.is_terminal:
            view = game.view(game.current_player)
            positions.append((view, bot.act(view, rng)))
            declarations.add(view.declaration)
            legal = [a for a in range(NUM_ACTIONS) if view.legal_mask >> a & 1]
            if view.phase == DECLARE:  # every contract in turn
                game.apply(legal[deal % len(legal)])
            else:
                game.apply(positions[-1][1] if rng.random() < 0.5 else int(rng.choice(legal)))
    obs = torch.as_tensor(np.stack([encode_texas42(v) for v, _ in positions]))
    mask = torch.tensor([[v.legal_mask >> a & 1 for a in range(NUM_ACTIONS)] for v, _ in positions]).bool()
    actions = batched(obs, mask, torch.Generator())
    assert actions.tolist() == [a for _, a in positions]
    assert len(positions) > 800
    if config.nello and config.sevens:
        assert {NELLO, SEVENS} <= declarations


def test_unknown_scripted_opponent_is_refused():
    with pytest.raises(ValueError, match="no batched scripted opponent 'greedy' for texas42"):
        make_scripted("greedy", GameConfig(name="texas42"))
