"""The one agent interface and the bot registry.

Every agent, scripted or trained, is an object with ``act(view, rng) -> int``: ``view`` is what the
acting seat may know (``engine.view(seat)``, docs/rules.md 4) and ``rng`` the only source of randomness,
so a game played by agents is reproducible from its seeds and no agent can peek at hidden tiles.
``make_bot(game, name, **kwargs)`` builds any registered agent by name. A game's bots register in
the modules its record names (``domino_env.games``: ``bot_modules``); bots that play every game
(``random`` here, ``checkpoint`` from the trainer) register for ``ANY_GAME`` and receive the game's
name. Packages outside ``domino_env`` add bots through the ``domino_env.bots`` entry-point group
(a module imported on the first lookup): that is how ``training`` provides ``checkpoint`` without
``domino_env`` importing it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from functools import cache, partial
from importlib.metadata import entry_points
from os import PathLike
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from domino_env.encoders.base import get_encoder
from domino_env.games import get_game
from domino_env.rules.tiles import iter_bits

ANY_GAME = "*"
"""``register_bot(ANY_GAME, name)``: a bot for every game; its factory gets the game name first."""
ENTRY_POINT_GROUP = "domino_env.bots"


@runtime_checkable
class Agent(Protocol):
    """Plays one seat: a legal action id for ``view`` (whose ``legal_mask`` is non-zero).

    An agent that plays only some configs of its game may also have ``refuses(config) -> str | None``
    (why it cannot play the rules config, or ``None``): the evaluation harness asks it before any game.
    One that answers many games faster together may have ``act_batch(views, rngs) -> actions``,
    each the move ``act`` would play (``act_batch`` below).
    """

    def act(self, view: Any, rng: np.random.Generator) -> int: ...


def act_batch(agent: Agent, views: Sequence[Any], rngs: Sequence[np.random.Generator]) -> list[int]:
    """``agent``'s move in each of many games at once (the lockstep evaluation): its own
    ``act_batch(views, rngs)`` where it has one (a network's one forward pass, the batched search),
    else ``act`` game by game. Either way game ``i`` gets ``views[i]`` and ``rngs[i]`` alone, so the
    moves are those ``act`` would play."""
    batched = getattr(agent, "act_batch", None)
    if batched is not None:
        return [int(a) for a in batched(views, rngs)]
    return [int(agent.act(view, rng)) for view, rng in zip(views, rngs, strict=True)]


class RandomAgent:
    """Uniformly random legal move: the floor every other agent must beat."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        legal = list(iter_bits(view.legal_mask))
        return legal[int(rng.integers(len(legal)))]

    @staticmethod
    def probabilities(view: Any) -> dict[int, float]:
        """What ``act`` draws from, every legal action alike: exact exploitability
        (``evaluation.exploitability.agent_policy``) reads it instead of sampling moves."""
        legal = list(iter_bits(view.legal_mask))
        return {a: 1.0 / len(legal) for a in legal}


_REGISTRY: dict[tuple[str, str], Callable[..., Agent]] = {}


def register_bot(game: str, name: str) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    """Decorator: make the factory available as ``make_bot(game, name, **kwargs)``."""
    if game != ANY_GAME:
        get_game(game)  # a typo fails here, not at the first lookup

    def add(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        _REGISTRY[game, name] = factory
        return factory

    return add


@cache
def _load_plugins() -> None:
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        importlib.import_module(entry.value)


def _factories(game: str) -> dict[str, Callable[..., Agent]]:
    """``name -> factory(**kwargs)`` of every bot of ``game`` (unknown games raise ``ValueError``)."""
    get_game(game).load_bots()
    _load_plugins()
    found = {n: partial(f, game) for (g, n), f in _REGISTRY.items() if g == ANY_GAME}
    found.update({n: f for (g, n), f in _REGISTRY.items() if g == game})
    return found


def available_bots(game: str) -> list[str]:
    return sorted(_factories(game))


def make_bot(game: str, name: str, **kwargs: Any) -> Agent:
    """A fresh agent for ``game`` by registered ``name`` (e.g. ``"greedy"``, ``"search"``)."""
    factories = _factories(game)
    if name not in factories:
        raise ValueError(f"unknown {game} bot {name!r}; available: {sorted(factories)}")
    return factories[name](**kwargs)


register_bot(ANY_GAME, "random")(lambda game: RandomAgent())


@runtime_checkable
class SearchGuide(Agent, Protocol):
    """A trained network as the search bots use it (``domino_env_training.checkpoint_bot.CheckpointAgent``):
    its move, its logits and its critic's expected margin, each from one seat's view only."""

    def logits(self, view: Any) -> np.ndarray: ...

    def value(self, view: Any) -> float: ...

    def values_refusal(self) -> str | None: ...


def load_network(game: str, path: str) -> SearchGuide:
    """The trained checkpoint at ``path`` as a search guide for ``game``, loaded through the
    ``checkpoint`` bot so that ``domino_env`` imports neither the trainer nor torch."""
    if not isinstance(path, str | PathLike) or not Path(path).is_file():
        raise ValueError(f"network must be the path of a checkpoint file, got {path!r}")
    if "checkpoint" not in _factories(game):
        raise ValueError("network= needs the trainer's 'checkpoint' bot, which the installed package "
                         "registers (pip install -e .)")
    return make_bot(game, "checkpoint", path=str(path))


class UserAgent:
    """User code as an agent: ``make_bot(game, "user", factory="package.module:name", **options)``.

    ``factory(**options)`` returns either an object with ``act(view, rng) -> int`` (played as is) or
    a callable ``policy(observation, mask) -> int`` over the PettingZoo env's observation: this
    agent then encodes its seat's view with the game's ``encoder`` (the env's ``default``) and
    passes the float32 vector and the int8 legal mask. Importing and calling the factory happen
    here, so a bad spec fails when the agent is built, before any game."""

    def __init__(self, game: str, factory: str, encoder: str = "default", **options: Any):
        module, sep, attribute = str(factory).partition(":")
        if not (sep and module and attribute):
            raise ValueError(f"user agent factory {factory!r} must be 'package.module:callable'")
        try:
            made = getattr(importlib.import_module(module), attribute)
        except ImportError as err:
            raise ValueError(f"user agent factory {factory!r}: cannot import {module!r} ({err})") from None
        except AttributeError:
            raise ValueError(f"user agent factory {factory!r}: {module!r} has no {attribute!r}") from None
        if not callable(made):
            raise ValueError(f"user agent factory {factory!r} is not callable")
        product = made(**options)
        if callable(getattr(product, "act", None)):
            self.act = product.act
        elif callable(product):
            self.policy, self.encoder = product, get_encoder(game, encoder)
        else:
            raise ValueError(f"user agent factory {factory!r} returned {type(product).__name__}: expected an "
                             "object with act(view, rng) or a callable policy(observation, mask)")

    def act(self, view: Any, rng: np.random.Generator) -> int:
        observation, mask = self.encoder.encode_with_mask(view, view.config.num_actions)
        return int(self.policy(observation, mask))


register_bot(ANY_GAME, "user")(UserAgent)
