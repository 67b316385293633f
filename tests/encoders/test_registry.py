"""The encoder registry: one game name per game, and each game record's ``encoder_modules`` lists
every encoder module of the game."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import domino_env.encoders
from domino_env.encoders import base
from domino_env.encoders.base import available_encoders, get_encoder
from domino_env.games import available_games, get_game

ENCODER_MODULES = {game: get_game(game).encoder_modules for game in available_games()}


def test_every_registered_encoder_lives_in_a_module_its_game_lists() -> None:
    """An encoder module missing from its game's ``encoder_modules`` would register only when something else
    happened to import it, so ``get_encoder`` would find it or not depending on import order."""
    for info in pkgutil.iter_modules(domino_env.encoders.__path__, "domino_env.encoders."):
        importlib.import_module(info.name)
    for (game, name), cls in base._REGISTRY.items():
        assert cls.__module__ in ENCODER_MODULES.get(game, ()), (
            f"encoder {game}/{name} is defined in {cls.__module__}, which ENCODER_MODULES[{game!r}] omits"
        )
    for game, modules in ENCODER_MODULES.items():
        registered = {cls.__module__ for (g, _name), cls in base._REGISTRY.items() if g == game}
        assert registered == set(modules), f"{game}: listed modules that register nothing"


def test_each_game_has_its_encoders_under_its_one_name() -> None:
    for game in ENCODER_MODULES:
        assert available_encoders(game) == ["compact", "default", "history"]
        assert all(get_encoder(game, name).game == game for name in available_encoders(game))


@pytest.mark.parametrize("game", ["line", "chess", ""])
def test_an_unknown_game_is_refused_with_the_known_games(game: str) -> None:
    with pytest.raises(ValueError, match=r"unknown game .*known games: " + re.escape(str(available_games()))):
        get_encoder(game, "default")


def test_an_unknown_encoder_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown dominoes observation encoder 'dense'; available: \["):
        get_encoder("dominoes", "dense")
