"""The batched Mexican Train ``greedy`` plays exactly as the view-based bot.

Positions come from reference rounds (``rules.mexican_train``), half the moves greedy's and half
random so that opening runs, markers, open doubles and late rounds vary; each is encoded with the
compact encoder (what the batched engine hands out, ``tests/vector``'s differential test) and the
batched bot must answer the bot's own move.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.batched import batched_bots, make_batched_bot
from domino_env.bots.mexican_train import GreedyMexicanTrainAgent
from domino_env.encoders.base import get_encoder
from domino_env.rules.mexican_train import MexicanTrainConfig, MexicanTrainGame

SHAPES = {
    "4 players": {"num_players": 4},
    "2 players": {"num_players": 2},
    "4 players, opening runs": {"num_players": 4, "opening": "run"},
    "6 players, cardinal": {"num_players": 6, "preset": "cardinal"},
    "8 players": {"num_players": 8},
}


@pytest.mark.parametrize("options", SHAPES.values(), ids=SHAPES.keys())
def test_batched_greedy_plays_the_greedy_bots_move(options: dict) -> None:
    config = MexicanTrainConfig.make(episode="round", **options)
    encoder = get_encoder("mexican_train", "compact")
    bot, rng = GreedyMexicanTrainAgent(), np.random.default_rng(0)
    views, moves = [], []
    for deal in range(6):
        game = MexicanTrainGame(config, np.random.default_rng(deal))
        while not game.is_terminal:
            view = game.view(game.current_player)
            views.append(view)
            moves.append(bot.act(view, rng))
            game.apply(moves[-1] if rng.random() < 0.5 else int(rng.choice(game.legal_actions())))
    pairs = [encoder.encode_with_mask(v, config.num_actions) for v in views]
    obs, mask = np.stack([o for o, _ in pairs]), np.stack([m for _, m in pairs]).astype(bool)
    batched = make_batched_bot("mexican_train", "greedy", options | {"episode": "round"})
    assert batched(obs, mask, rng).tolist() == moves
    assert sum(any(v.marked) for v in views) > 20
    assert sum(v.in_run for v in views) > 5 or config.opening != "run"
    assert (mask.sum(1) > 1).sum() > 100  # real choices, not forced moves


def test_batched_greedy_is_listed() -> None:
    assert "greedy" in batched_bots("mexican_train")
