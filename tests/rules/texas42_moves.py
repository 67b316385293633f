"""Deals and move helpers shared by the Texas 42 rule tests: moves are written in docs/rules.md 3.9
notation."""

from __future__ import annotations

from domino_env.rules.texas42 import Texas42Game


def play(game: Texas42Game, *moves: str) -> Texas42Game:
    for move in moves:
        game.apply(game.action_from_text(move))
    return game


def legal_texts(game: Texas42Game) -> set[str]:
    return {game.action_to_text(a) for a in game.legal_actions()}


# Deal X: seat 1's only five is 5-3; seat 2 holds 5-5 and the other fives.
DEAL_X = [
    ["5-4", "6-6", "6-5", "6-4", "6-2", "6-1", "6-0"],
    ["5-3", "4-4", "4-3", "4-2", "4-1", "4-0", "2-2"],
    ["5-5", "5-2", "5-1", "5-0", "3-3", "3-2", "6-3"],
    ["3-1", "3-0", "2-1", "2-0", "1-1", "1-0", "0-0"],
]
# Deal P: seat 1 holds exactly four doubles (Plunge); seat 0 none.
DEAL_P = [
    ["6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-4"],
    ["6-6", "5-5", "4-4", "3-3", "5-3", "5-2", "5-1"],
    ["5-0", "4-3", "4-2", "4-1", "4-0", "3-2", "3-1"],
    ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"],
]
