"""The batched Texas 42 heuristic plays three-player 42 and Texas 88 exactly as the view-based bot.

Positions come from reference games (``rules.texas42``), half the moves the bot's and half random so
that auctions, discards and tricks vary; every position is encoded with the compact encoder (what the
batched engine hands out) and the batched heuristic must answer the bot's own move.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots import make_bot
from domino_env.bots.batched import make_batched_bot
from domino_env.encoders.texas42_compact import encode_compact
from domino_env.rules.texas42 import DECLARE, DISCARD_PHASE, Texas42Config, Texas42Game

VARIANTS = {
    "three players": {"num_players": 3},
    "three players, every contract": {"num_players": 3, "nello": "own_suit", "sevens": True,
                                      "all_pass": "forced"},
    "texas88": {"preset": "texas88"},
}


@pytest.mark.parametrize("options", VARIANTS.values(), ids=VARIANTS.keys())
def test_batched_heuristic_plays_the_heuristic_bots_move(options: dict) -> None:
    config = Texas42Config.make(**options)
    batched = make_batched_bot("texas42", "heuristic", options)
    bot = make_bot("texas42", "heuristic")
    rng = np.random.default_rng(0)
    positions, phases = [], set()
    for deal in range(30):
        game = Texas42Game(config, np.random.default_rng(deal))
        while not game.is_terminal:
            view = game.view(game.current_player)
            positions.append((view, bot.act(view, rng)))
            phases.add(view.phase)
            legal = game.legal_actions()
            if view.phase == DECLARE:  # every contract in turn
                game.apply(legal[deal % len(legal)])
            else:
                game.apply(positions[-1][1] if rng.random() < 0.5 else int(rng.choice(legal)))
    obs = np.stack([encode_compact(v) for v, _ in positions])
    mask = np.array([[v.legal_mask >> a & 1 for a in range(config.num_actions)] for v, _ in positions], bool)
    assert batched(obs, mask, rng).tolist() == [a for _, a in positions]
    assert len(positions) > 300
    assert DISCARD_PHASE in phases or not config.variant.kitty_size
