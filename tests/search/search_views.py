"""Views of real search decisions for the rollout tests: positions of games played half by greedy and
half at random, kept where the search has two candidates or more."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def decision_views(new_game: Callable[[np.random.Generator], Any], search: Any, greedy: Any, games: int,
                   per_game: int, take: float = 0.25, greedy_share: float = 0.5) -> list[Any]:
    """Up to ``per_game`` views of each of ``games`` games (dealt from seeds 0, 1, ...), each real
    choice kept with probability ``take``; each move is greedy's with probability ``greedy_share``,
    else a random legal one."""
    rng, views = np.random.default_rng(1), []
    for deal in range(games):
        game, taken = new_game(np.random.default_rng(deal)), 0
        while not game.is_terminal and taken < per_game:
            view = game.view(game.current_player)
            if len(search.candidates(view)) > 1 and rng.random() < take:
                views.append(view)
                taken += 1
            by_greedy = rng.random() < greedy_share
            game.apply(greedy.act(view, rng) if by_greedy else int(rng.choice(game.legal_actions())))
    return views
