"""Exact deals given to the engines and through ``reset(options={"deal": ...})``:
tile ids and seats are Python or numpy integers, never ``bool``, in both engines alike.

Bad inputs tried:
- Texas 42 (and Texas 88) tile ids and ``shaker`` as numpy integers (``int64``, ``int8``,
  ``uint8``): accepted, the same game as with Python ints (both were refused before).
- tile ids ``True``, ``False``, ``numpy.bool_(True)``, ``1.0``, ``numpy.float64(3)``, ``None``;
  a ``shaker`` of ``True``, ``numpy.bool_(False)``, ``1.0``, ``"1"``; both engines
  (line: the ``leader``) refuse them with a ``ValueError`` naming the value.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from domino_env import texas42_v0
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game

NUMPY_INTS = [np.int64, np.int8, np.uint8]
NOT_TILE_IDS = [True, False, np.bool_(True), 1.0, np.float64(3), None]
NOT_SEATS = [True, np.bool_(False), 1.0, "1"]


def texas_deal(config: Texas42Config, seed: int = 4) -> dict:
    """The deal ``seed`` would give, as tile ids (and Texas 88's kitty)."""
    game = Texas42Game(config, np.random.default_rng(seed))
    v = config.variant
    deal = {"hands": [[v.names.index(n) for n in v.tile_names(h)] for h in game.dealt], "shaker": 2}
    if v.kitty_size:
        deal["kitty"] = [v.names.index(n) for n in v.tile_names(game.kitty)]
    return deal


def as_numpy(deal: dict, dtype: type) -> dict:
    return {key: dtype(value) if key == "shaker" else [
        [dtype(t) for t in hand] for hand in value] if key == "hands" else [dtype(t) for t in value]
        for key, value in deal.items()}


@pytest.mark.parametrize("dtype", NUMPY_INTS)
@pytest.mark.parametrize("preset", ["standard", "texas88"])
def test_texas42_deals_take_numpy_tile_ids_and_shaker(preset: str, dtype: type) -> None:
    config = Texas42Config.make(preset)
    deal = texas_deal(config)
    plain = Texas42Game(config, np.random.default_rng(0), deal=deal)
    numpy = Texas42Game(config, np.random.default_rng(0), deal=as_numpy(deal, dtype))
    assert numpy.to_json() == plain.to_json() and type(numpy.shaker) is int


def test_the_env_reset_takes_a_numpy_deal() -> None:
    env = texas42_v0.raw_env()
    deal = texas_deal(env.config)
    env.reset(seed=0, options={"deal": as_numpy(deal, np.int64)})
    numpy = env.game.to_json()
    env.reset(seed=0, options={"deal": deal})
    assert env.game.to_json() == numpy


@pytest.mark.parametrize("bad", NOT_TILE_IDS, ids=repr)
def test_tile_ids_that_are_not_integers_are_refused(bad: object) -> None:
    config = Texas42Config()
    deal = texas_deal(config)
    deal["hands"][0][0] = bad
    with pytest.raises(ValueError, match=f"bad or repeated tile {re.escape(repr(bad))}"):
        Texas42Game(config, np.random.default_rng(0), deal=deal)
    with pytest.raises(ValueError, match=f"{re.escape(repr(bad))} is not a tile"):
        LineGame(LineConfig(), np.random.default_rng(0), deal={"hands": [[bad, 5], [7, 9]]})


@pytest.mark.parametrize("bad", NOT_SEATS, ids=repr)
def test_seats_that_are_not_integers_are_refused(bad: object) -> None:
    config = Texas42Config()
    shown = re.escape(repr(bad))
    with pytest.raises(ValueError, match=f"shaker must be a seat 0..3, got {shown}"):
        Texas42Game(config, np.random.default_rng(0), deal={**texas_deal(config), "shaker": bad})
    with pytest.raises(ValueError, match=rf"deal\['leader'\] must be a seat 0..1, got {shown}"):
        LineGame(LineConfig(), np.random.default_rng(0), deal={"hands": [[3, 5], [7, 9]], "leader": bad})
