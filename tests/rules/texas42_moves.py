"""Move helpers shared by the Texas 42 rule tests: moves are written in RULES.md 3.9 notation."""

from __future__ import annotations

from domino_env.rules.texas42 import Texas42Game


def play(game: Texas42Game, *moves: str) -> Texas42Game:
    for move in moves:
        game.apply(game.action_from_text(move))
    return game


def legal_texts(game: Texas42Game) -> set[str]:
    return {game.action_to_text(a) for a in game.legal_actions()}
