"""The batched All Fives / Fives and Threes ``greedy`` plays exactly as the view-based bot.

Positions come from reference games (``rules.fives``), half the moves greedy's and half random so
that passes, draws, spinners and late arms vary; each is encoded with the compact encoder (what the
batched engine hands out, ``tests/vector/test_fives_vector_vs_reference.py``) and the batched bot
must answer the bot's own move.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.batched import batched_bots, make_batched_bot
from domino_env.bots.fives import GreedyFivesAgent, proven_absent, suit_tiles
from domino_env.encoders.fives_compact import encode_compact, known_voids
from domino_env.rules.fives import FivesConfig, FivesGame

SHAPES = {
    "all fives 2p": {"num_players": 2},
    "all fives 3p": {"num_players": 3},
    "all fives 4p teams": {"num_players": 4, "teams": True},
    "all fives 4p alone, classic": {"num_players": 4, "preset": "classic"},
    "all fives, no spinner, may draw": {"num_players": 2, "draw_policy": "may_draw", "spinner": "none",
                                        "lead_rule": "highest_double", "double_count": "one_half",
                                        "draw_reserve": 2, "score_unit": "fives"},
    "all fives, open hands": {"num_players": 2, "open_hands": True},
    "fives and threes 2p": {"variant": "fives_and_threes", "num_players": 2},
    "fives and threes 4p teams": {"variant": "fives_and_threes", "num_players": 4, "teams": True},
}


def _positions(config: FivesConfig, deals: int, rng: np.random.Generator):
    """(view, greedy's move) along hands where every other move is random."""
    bot = GreedyFivesAgent()
    for deal in range(deals):
        game = FivesGame(config, np.random.default_rng(deal))
        while not game.is_terminal:
            view = game.view(game.current_player)
            move = bot.act(view, rng)
            yield view, move
            game.apply(move if rng.random() < 0.5 else int(rng.choice(game.legal_actions())))


@pytest.mark.parametrize("options", SHAPES.values(), ids=SHAPES.keys())
def test_batched_greedy_plays_the_greedy_bots_move(options: dict) -> None:
    config = FivesConfig(target_score=None, **options)
    rng = np.random.default_rng(0)
    positions = list(_positions(config, 25, rng))
    obs = np.stack([encode_compact(v) for v, _ in positions])
    mask = np.array([[v.legal_mask >> a & 1 for a in range(config.num_actions)] for v, _ in positions], bool)
    batched = make_batched_bot("fives", "greedy", options)
    assert batched(obs, mask, rng).tolist() == [a for _, a in positions]
    choices = mask[:, : config.num_actions - 2].sum(1)
    assert len(positions) > 200 and (choices > 1).sum() > 100  # real choices, not forced moves


def test_batched_greedy_is_listed() -> None:
    assert "greedy" in batched_bots("fives")


def test_proven_absent_is_the_union_of_the_lacked_numbers() -> None:
    """A seat that passed at two different ends lacks every tile of either number: the union of the
    two suits (a tile such as 3-5 holds both), equal to the encoder's independent void replay."""
    config = FivesConfig(target_score=None, num_players=3)
    rng = np.random.default_rng(2)
    two_numbers = 0
    for deal in range(40):
        game = FivesGame(config, np.random.default_rng(deal))
        while not game.is_terminal:
            view = game.view(game.current_player)
            voids = known_voids(view)
            for seat in range(config.num_players):
                numbers = [v for v in range(7) if voids[seat] >> v & 1]
                assert proven_absent(view, seat) == suit_tiles(numbers)
                two_numbers += len(numbers) >= 2
            game.apply(int(rng.choice(game.legal_actions())))
    assert two_numbers > 50
