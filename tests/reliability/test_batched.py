"""Batched engines (``VectorLineGame``, ``VectorTexas42Game``) under bad input: every case raises a
``ValueError`` that names what was wrong, and a refused call leaves the games as they were.

Bad inputs tried:

- ``reset(deals=...)``: every hand the same tile (``np.zeros``), a tile dealt twice, a negative id,
  an id past the last tile, float ids (even whole-valued ones), bool and string arrays, the wrong
  shape; a custom ``dealer`` returning floats or repeated tiles (both engines).
- ``reset(shakers=...)`` (Texas 42): a seat past the last, a negative seat, floats, the wrong shape.
- ``step(actions)``: a float array (``legal + 0.7``, which a cast would truncate to ``legal``),
  whole-valued floats, strings, bools, objects, a plain list of floats, the wrong shape, an id out
  of range, an illegal id; a list of Python ints and unsigned integers are accepted.
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.vector import VectorLineGame, VectorTexas42Game, sample_legal

ENGINES = [VectorLineGame, VectorTexas42Game]
NUM_TILES = 28  # both engines' default set (double-six)


def _deals(num_envs: int) -> np.ndarray:
    return np.stack([np.random.default_rng(g).permutation(NUM_TILES) for g in range(num_envs)])


def _state(vec: VectorLineGame | VectorTexas42Game) -> list[bytes]:
    return [vec.hands.tobytes(), vec.seat.tobytes()]


def _bad_deals() -> list[tuple[str, object]]:
    good = _deals(2)
    twice = good.copy()
    twice[1, 0] = twice[1, 1]
    negative = good.copy()
    negative[0, np.flatnonzero(negative[0] == 0)[0]] = -NUM_TILES  # -28 == 0 modulo 28
    past = good.copy()
    past[1, np.flatnonzero(past[1] == 0)[0]] = 99
    return [
        ("zeros", np.zeros((2, NUM_TILES), np.int64)),
        ("float zeros", np.zeros((2, NUM_TILES))),
        ("twice", twice),
        ("negative", negative),
        ("past the last", past),
        ("whole floats", good.astype(np.float64)),
        ("fractional floats", good + 0.25),
        ("bools", good.astype(bool)),
        ("strings", good.astype(str)),
        ("one row", good[:1]),
        ("too short", good[:, :-1]),
    ]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
@pytest.mark.parametrize(("case", "deals"), _bad_deals(), ids=[c for c, _ in _bad_deals()])
def test_reset_refuses_deals_that_are_not_integer_permutations(engine, case: str, deals: object) -> None:
    vec = engine(2, seed=0)
    vec.reset(deals=_deals(2))
    before = _state(vec)
    with pytest.raises(ValueError, match="deals must"):
        vec.reset(deals=deals)
    assert _state(vec) == before, f"{case}: a refused reset changed the games"


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
def test_reset_accepts_integer_permutations_of_any_integer_dtype(engine) -> None:
    for deals in (_deals(2), _deals(2).astype(np.uint8), _deals(2).tolist()):
        engine(2, seed=0).reset(deals=deals)


def test_deal_errors_name_the_bad_row() -> None:
    deals = _deals(3)
    deals[2, 5] = 99
    with pytest.raises(ValueError, match=r"permutations of the tile ids 0\.\.27 .*row 2 is \["):
        VectorLineGame(3, seed=0).reset(deals=deals)
    with pytest.raises(ValueError, match="integer array, got dtype float64"):
        VectorLineGame(3, seed=0).reset(deals=deals + 0.5)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
def test_a_dealer_returning_bad_deals_is_refused(engine) -> None:
    vec = engine(2, seed=0, dealer=lambda games: _deals(games.size).astype(np.float64))
    with pytest.raises(ValueError, match="deals must be an integer array"):
        vec.reset()
    vec = engine(2, seed=0, dealer=lambda games: np.zeros((games.size, NUM_TILES), np.int64))
    with pytest.raises(ValueError, match="deals must be permutations"):
        vec.reset()


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
def test_a_dealer_is_checked_on_every_later_deal_too(engine) -> None:
    calls = []

    def dealer(games: np.ndarray) -> np.ndarray:  # good deals for the first episodes, then one tile
        calls.append(games.size)
        return _deals(games.size) if len(calls) == 1 else np.zeros((games.size, NUM_TILES), np.int64)

    vec = engine(4, seed=0, dealer=dealer)
    batch, rng = vec.reset(), np.random.default_rng(0)
    with pytest.raises(ValueError, match="deals must be permutations"):
        for _ in range(200):
            batch = vec.step(sample_legal(batch.mask, rng))


@pytest.mark.parametrize("shakers", [[0, 4], [-1, 0], np.array([0.0, 1.0]), [0], [True, False]])
def test_texas42_reset_refuses_bad_shakers(shakers: object) -> None:
    vec = VectorTexas42Game(2, seed=0)
    with pytest.raises(ValueError, match="shakers must"):
        vec.reset(deals=_deals(2), shakers=shakers)
    batch = vec.reset(deals=_deals(2), shakers=[3, 1])
    assert batch.seat.tolist() == [0, 2]


def _bad_actions(legal: np.ndarray) -> list[tuple[str, object]]:
    return [
        ("legal + 0.7", legal + 0.7),
        ("whole floats", legal.astype(np.float64)),
        ("float list", [float(a) for a in legal]),
        ("strings", legal.astype(str)),
        ("bools", legal.astype(bool)),
        ("objects", legal.astype(object)),
        ("too short", legal[:-1]),
        ("2-D", legal[None, :]),
        ("out of range", np.full_like(legal, 10_000)),
        ("negative", np.full_like(legal, -1)),
    ]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.__name__)
def test_step_refuses_anything_but_legal_integer_actions(engine) -> None:
    vec = engine(3, seed=0)
    batch = vec.reset()
    legal = batch.mask.argmax(axis=1)
    before = _state(vec)
    for case, actions in _bad_actions(legal):
        with pytest.raises(ValueError, match="actions must|illegal action"):
            vec.step(actions)
        assert _state(vec) == before, f"{case}: a refused step changed the games"
    with pytest.raises(ValueError, match=r"actions must be an integer array, got dtype float64"):
        vec.step(legal + 0.7)
    batch = vec.step(legal.tolist())  # Python ints are integers
    vec.step(batch.mask.argmax(axis=1).astype(np.uint16))  # so is any integer dtype
