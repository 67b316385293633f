"""The one agent interface and the bot registry.

Every agent, scripted or trained, is an object with ``act(view, rng) -> int``: ``view`` is what the
acting seat may know (``engine.view(seat)``, RULES.md 4) and ``rng`` the only source of randomness,
so a game played by agents is reproducible from its seeds and no agent can peek at hidden tiles.
``make_bot(game, name, **kwargs)`` builds any registered agent by name; the registrations live in
the game modules (``bots.line``, ``bots.texas42``) and ``bots.checkpoint``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from domino_env.tiles import iter_bits

GAMES = ("dominoes", "texas42")
_GAME_ALIASES = {"line": "dominoes", "dominoes": "dominoes", "texas42": "texas42"}
_MODULES = ("domino_env.bots.line", "domino_env.bots.texas42", "domino_env.bots.checkpoint")


@runtime_checkable
class Agent(Protocol):
    """Plays one seat: a legal action id for ``view`` (whose ``legal_mask`` is non-zero)."""

    def act(self, view: Any, rng: np.random.Generator) -> int: ...


class RandomAgent:
    """Uniformly random legal move: the floor every other agent must beat."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        legal = list(iter_bits(view.legal_mask))
        return legal[int(rng.integers(len(legal)))]


_REGISTRY: dict[tuple[str, str], Callable[..., Agent]] = {}


def register_bot(game: str, name: str) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    """Decorator: make the factory available as ``make_bot(game, name, **kwargs)``."""

    def add(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        _REGISTRY[canonical_game(game), name] = factory
        return factory

    return add


def canonical_game(game: str) -> str:
    """``"dominoes"`` (alias ``"line"``) or ``"texas42"``; anything else raises ``ValueError``."""
    if game not in _GAME_ALIASES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    return _GAME_ALIASES[game]


def _load_all() -> None:
    for module in _MODULES:
        importlib.import_module(module)


def available_bots(game: str) -> list[str]:
    _load_all()
    game = canonical_game(game)
    return sorted(name for g, name in _REGISTRY if g == game)


def make_bot(game: str, name: str, **kwargs: Any) -> Agent:
    """A fresh agent for ``game`` by registered ``name`` (e.g. ``"greedy"``, ``"search"``)."""
    _load_all()
    game = canonical_game(game)
    if (game, name) not in _REGISTRY:
        raise ValueError(f"unknown {game} bot {name!r}; available: {available_bots(game)}")
    return _REGISTRY[game, name](**kwargs)


register_bot("dominoes", "random")(RandomAgent)
register_bot("texas42", "random")(RandomAgent)
