"""Saved games (``to_json`` / ``from_json``) of both engines under bad input. Every refusal is a
``ValueError``.

Bad inputs tried:
- versions: a save without ``"version"`` (an unversioned Texas 42 save, ``{"game": "texas42"}``
  included), version ``0``, ``2``, ``99``, ``"1"``, ``True``, ``None``; another engine's save;
  ``{}``, ``[]``, ``"null"``; non-text ``None``, ``5``.
- the generator: ``"rng": {"bit_generator": name}`` for ``"seed"``, ``"default_rng"``,
  ``"RandomState"``, ``"get_state"``, ``"__class__"`` (none may be called: numpy's global
  generator stays as it was), a bit generator that is not a dict, a PCG64 state that is not one.
- nesting: ``"[" * 100000 + "]" * 100000``, the same inside an object, a valid save whose
  ``last_result`` (Texas 42) or a round result's ``kind`` (line) is nested a few hundred deep.
- scores: Texas 42 marks at or past the target (``[7, 0]``, ``[50, 0]`` in a game to 7), marks
  or scored hands before the deal of a one-hand episode; a line save of one-round play that
  lists finished rounds, round results whose fields are not seats, counts or kinds.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest

from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game

Engine = LineGame | Texas42Game


def line_save() -> dict:
    game = LineGame(LineConfig(target_score=30), np.random.default_rng(5))
    for _ in range(4):
        game.apply(game.legal_actions()[0])
    return json.loads(game.to_json())


def texas42_save(**options) -> dict:
    game = Texas42Game(Texas42Config.make(**options), np.random.default_rng(5))
    for _ in range(6):
        game.apply(game.legal_actions()[-1])
    return json.loads(game.to_json())


SAVES: dict[str, tuple[type, Callable[[], dict]]] = {
    "line": (LineGame, line_save),
    "texas42": (Texas42Game, texas42_save),
}


@pytest.fixture(params=sorted(SAVES))
def engine_and_save(request: pytest.FixtureRequest) -> tuple[type, dict]:
    engine, make = SAVES[request.param]
    return engine, make()


def refused(engine: type, data: object, match: str = "") -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(ValueError, match=match):
        engine.from_json(text)


def test_saves_name_their_format_and_version_and_round_trip(engine_and_save: tuple[type, dict]) -> None:
    engine, data = engine_and_save
    assert data["format"] in ("domino-env/line", "domino-env/texas42") and data["version"] == 1
    assert engine.from_json(json.dumps(data)).to_json() == json.dumps(data)


@pytest.mark.parametrize("version", ["missing", 0, 2, 99, "1", True, None])
def test_other_versions_are_refused_naming_the_supported_one(
    engine_and_save: tuple[type, dict], version: object
) -> None:
    engine, data = engine_and_save
    if version == "missing":
        del data["version"]
    else:
        data["version"] = version
    refused(engine, data, match=r"reads domino-env/\w+ version 1")


def test_an_unversioned_texas42_save_is_refused_as_older() -> None:
    data = texas42_save()
    del data["format"], data["version"]
    data["game"] = "texas42"  # what saves looked like before they were versioned
    refused(Texas42Game, data, match="before saves were versioned.*version 1")


def test_one_engine_refuses_the_other_engines_save() -> None:
    refused(Texas42Game, line_save(), match="not a domino-env/texas42 save")
    refused(LineGame, texas42_save(), match="not a domino-env/line save")


@pytest.mark.parametrize("text", ["{}", "[]", "null", None, 5, '{"format": "domino-env/line"'])
@pytest.mark.parametrize("engine", [LineGame, Texas42Game])
def test_what_is_not_a_save_is_refused(engine: type, text: object) -> None:
    with pytest.raises(ValueError):
        engine.from_json(text)


@pytest.mark.parametrize("name", ["seed", "default_rng", "RandomState", "get_state", "__class__"])
def test_a_save_cannot_call_numpy_functions_through_its_generator_name(
    engine_and_save: tuple[type, dict], name: str
) -> None:
    engine, data = engine_and_save
    data["rng"] = {"bit_generator": name}
    np.random.seed(1234)
    expected = np.random.random()
    np.random.seed(1234)
    refused(engine, data, match="bit generators")
    assert np.random.random() == expected  # numpy's global generator was not reseeded


@pytest.mark.parametrize("state", [[], "PCG64", {"bit_generator": "PCG64", "state": "x"}])
def test_a_broken_generator_state_is_refused(engine_and_save: tuple[type, dict], state: object) -> None:
    engine, data = engine_and_save
    data["rng"] = state
    refused(engine, data, match="rng")


@pytest.mark.parametrize("engine", [LineGame, Texas42Game])
def test_deep_nesting_is_a_value_error_not_a_recursion_error(engine: type) -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"):
        with pytest.raises(ValueError, match="nested too deeply"):
            engine.from_json(text)


def nested(depth: int) -> object:
    value: object = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_deeply_nested_texas42_last_result_is_refused() -> None:
    game = Texas42Game(Texas42Config.make(episode="game"), np.random.default_rng(2))
    while game.hands_scored == 0:  # the first hand scored: a fresh deal that carries its result
        game.apply(game.legal_actions()[-1])  # the highest bid: no all-pass reshakes
    data = json.loads(game.to_json())
    assert data["moves"] == [] and data["last_result"] is not None
    Texas42Game.from_json(json.dumps(data))
    for broken in (nested(400), {**data["last_result"], "marks": nested(400)}, {"made": True}, [1]):
        refused(Texas42Game, {**data, "last_result": broken}, match="last_result")


def test_line_round_results_are_checked_field_by_field() -> None:
    game = LineGame(LineConfig(target_score=60), np.random.default_rng(0))
    while not game.results:
        game.apply(game.legal_actions()[0])
    data = json.loads(game.to_json())
    LineGame.from_json(json.dumps(data))
    result = data["results"][0]
    for field, bad in (("kind", nested(400)), ("kind", "won"), ("leader", 9), ("winners", [[0]]),
                       ("pips", [1]), ("leader", True)):
        refused(LineGame, {**data, "results": [{**result, field: bad}]}, match="round result")


def test_a_one_round_line_save_with_finished_rounds_is_refused() -> None:
    game = LineGame(LineConfig(target_score=60), np.random.default_rng(0))
    while not game.results:
        game.apply(game.legal_actions()[0])
    data = json.loads(game.to_json())
    data["config"]["target_score"] = None
    refused(LineGame, data, match="one-round")


@pytest.mark.parametrize("marks", [[7, 0], [0, 7], [50, 0]])
def test_texas42_marks_at_or_past_the_target_are_refused(marks: list[int]) -> None:
    data = texas42_save(episode="game", target_marks=7)
    data["marks"], data["hands_scored"], data["deals"] = marks, 1, 2
    refused(Texas42Game, data, match="target")


def test_texas42_one_hand_episode_has_nothing_before_its_deal() -> None:
    data = texas42_save(episode="hand")
    for marks, scored, deals in (([1, 0], 0, 1), ([0, 0], 1, 2)):
        data["marks"], data["hands_scored"], data["deals"] = marks, scored, deals
        refused(Texas42Game, data, match="one-hand episode")
