"""Both rules engines (``LineGame``, ``Texas42Game``) share one convention for the seat to act,
action ids and generators.

Bad inputs tried:
- ``apply``: ``True``, ``False``, ``numpy.bool_(True)``, ``1.0``, ``"0"``, ``None``, ``-1``,
  ``num_actions``; every one refused with an ``IllegalActionError`` naming the value and the id
  range, the state untouched. Numpy integers (``int8``, ``int64``, ``uint16``) are accepted.
- ``action_to_text``: ``-1``, ``num_actions``, ``True``, ``numpy.bool_(False)``, ``1.5``,
  ``"3"``, ``None``; a ``ValueError`` naming the range. Numpy integers are accepted.
- the generator: missing, ``None``, a seed ``0``, a legacy ``numpy.random.RandomState``; a
  ``TypeError`` from both engines.
- the seat to act: ``to_act`` no longer exists on the Texas 42 engine or view; ``current_player``
  is ``None`` once the episode is over, in the engine and in every view.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game

Engine = LineGame | Texas42Game
ENGINES: dict[str, Callable[[np.random.Generator], Engine]] = {
    "line": lambda rng: LineGame(LineConfig(target_score=None), rng),
    "texas42": lambda rng: Texas42Game(Texas42Config(), rng),
    "texas88": lambda rng: Texas42Game(Texas42Config.make("texas88"), rng),
}
NOT_IDS = [True, False, np.bool_(True), 1.0, "0", None]


@pytest.fixture(params=sorted(ENGINES))
def game(request: pytest.FixtureRequest) -> Engine:
    return ENGINES[request.param](np.random.default_rng(3))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16])
def test_apply_takes_numpy_integers_like_python_ints(game: Engine, dtype: type) -> None:
    twin = game.clone()
    for _ in range(6):
        action = game.legal_actions()[-1]
        game.apply(dtype(action))
        twin.apply(action)
        assert game.to_json() == twin.to_json()
        assert all(type(a) is int for a in game.legal_actions())


@pytest.mark.parametrize("bad", [*NOT_IDS, -1, "num_actions"])
def test_apply_refuses_what_is_not_an_action_id_and_changes_nothing(game: Engine, bad: object) -> None:
    if bad == "num_actions":
        bad = game.num_actions
    before = game.to_json()
    with pytest.raises(IllegalActionError, match=rf"{bad!r}.*0\.\.{game.num_actions - 1}"):
        game.apply(bad)
    assert game.to_json() == before


def test_true_is_not_the_legal_bid_30() -> None:
    """``True == 1`` and action 1 is ``bid 30``, legal at the first bid: ``apply(True)`` must not play it."""
    game = ENGINES["texas42"](np.random.default_rng(0))
    assert game.legal_mask() >> 1 & 1
    before = game.to_json()
    with pytest.raises(IllegalActionError, match="True"):
        game.apply(True)
    assert game.to_json() == before


@pytest.mark.parametrize("bad", [-1, "num_actions", True, np.bool_(False), 1.5, "3", None])
def test_action_to_text_refuses_what_is_not_an_action_id(game: Engine, bad: object) -> None:
    if bad == "num_actions":
        bad = game.num_actions
    with pytest.raises(ValueError, match=rf"0\.\.{game.num_actions - 1}.*got {bad!r}"):
        game.action_to_text(bad)


def test_action_to_text_takes_numpy_integers(game: Engine) -> None:
    for a in range(game.num_actions):
        assert game.action_to_text(np.int64(a)) == game.action_to_text(a)
        assert game.action_from_text(game.action_to_text(np.uint8(a))) == a


@pytest.mark.parametrize(
    "make", [lambda c: LineGame(c[0]), lambda c: Texas42Game(c[1])], ids=["line", "texas42"]
)
def test_the_generator_is_required(make: Callable) -> None:
    with pytest.raises(TypeError):
        make((LineConfig(), Texas42Config()))


@pytest.mark.parametrize("rng", [None, 0, np.random.RandomState(0)], ids=["None", "seed", "RandomState"])
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_the_generator_must_be_a_numpy_generator(engine: str, rng: object) -> None:
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        ENGINES[engine](rng)


def test_current_player_is_the_seat_to_act_and_none_once_over(game: Engine) -> None:
    assert not hasattr(game, "to_act") and "to_act" not in type(game.view(0))._fields
    while not game.is_terminal:
        seat = game.current_player
        assert type(seat) is int and game.view(seat).current_player == seat and game.view(seat).legal_mask
        game.apply(game.legal_actions()[-1])  # the highest id: a bid, never a 42 reshake
    assert game.current_player is None
    assert all(game.view(s).current_player is None for s in range(game.num_players))
