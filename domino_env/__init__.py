"""domino-env: rules engines, PettingZoo environments, bots, batched engines and evaluation for
dominoes (the line games Block and Draw, Texas 42 and its variants, All Fives and Fives and Threes,
Mexican Train).

The names below are the package's front door, imported on first use (``import domino_env`` stays
cheap): environments (``dominoes_v0``, ``texas42_v0``, ``fives_v0``, ``mexican_train_v0``), the game
registry, bots, encoders, the batched engines and the evaluation harness. docs/architecture.md maps the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_PUBLIC = {
    # environments (PettingZoo classic-style entry modules)
    "dominoes_v0": "domino_env.dominoes_v0",
    "texas42_v0": "domino_env.texas42_v0",
    "fives_v0": "domino_env.fives_v0",
    "mexican_train_v0": "domino_env.mexican_train_v0",
    # the game registry
    "Game": "domino_env.games:Game",
    "available_games": "domino_env.games:available_games",
    "get_game": "domino_env.games:get_game",
    "register_game": "domino_env.games:register_game",
    # bots and observation encoders
    "Agent": "domino_env.bots:Agent",
    "available_bots": "domino_env.bots:available_bots",
    "make_bot": "domino_env.bots:make_bot",
    "available_encoders": "domino_env.encoders.base:available_encoders",
    "get_encoder": "domino_env.encoders.base:get_encoder",
    # batched engines
    "VectorLineGame": "domino_env.vector:VectorLineGame",
    "VectorTexas42Game": "domino_env.vector:VectorTexas42Game",
    # evaluation
    "AgentSpec": "domino_env.evaluation:AgentSpec",
    "GameSetup": "domino_env.evaluation:GameSetup",
    "evaluate": "domino_env.evaluation:evaluate",
}
__all__ = [  # the names of _PUBLIC (tests/test_imports.py checks they agree)
    "__version__", "dominoes_v0", "texas42_v0", "fives_v0", "mexican_train_v0", "Game", "available_games",
    "get_game", "register_game", "Agent", "available_bots", "make_bot", "available_encoders", "get_encoder",
    "VectorLineGame", "VectorTexas42Game", "AgentSpec", "GameSetup", "evaluate",
]

if TYPE_CHECKING:
    from domino_env import dominoes_v0, fives_v0, mexican_train_v0, texas42_v0
    from domino_env.bots import Agent, available_bots, make_bot
    from domino_env.encoders.base import available_encoders, get_encoder
    from domino_env.evaluation import AgentSpec, GameSetup, evaluate
    from domino_env.games import Game, available_games, get_game, register_game
    from domino_env.vector import VectorLineGame, VectorTexas42Game


def __getattr__(name: str) -> Any:
    """PEP 562: load a public name's module the first time the name is asked for."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'domino_env' has no attribute {name!r}")
    module, _, attribute = _PUBLIC[name].partition(":")
    value = importlib.import_module(module)
    value = getattr(value, attribute) if attribute else value
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
