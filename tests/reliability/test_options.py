"""Game and environment options under bad input. Every refusal is a
``ValueError`` naming the option, raised when the config or environment is built.

Bad inputs tried:
- Texas 42 on/off options (``forced_bid``, ``plunge``, ``sevens``, ``stop_when_decided``,
  ``open_hands``): ``"yes"``, ``"no"``, ``1``, ``0``, ``numpy.bool_(True)``, ``None`` (``None``
  is allowed for ``forced_bid`` only: "the preset's").
- ``illegal_penalty`` of both environments: NaN, ``-1``, ``-0.5``, ``inf``, ``True``, ``"1"``,
  ``None``.
- ``target_score`` outside match episodes (``episode="round"``; the batched engine and the
  evaluation harness alike): ``0``, ``-5``, ``1.5``, ``"100"``, ``True``.
- targets past their cap: ``target_score`` ``MAX_TARGET_SCORE + 1`` and ``10**12``;
  ``target_marks`` ``MAX_TARGET_MARKS + 1`` and ``10**12``.
- numpy integers as integer options (``num_players``, ``target_score``, ``target_marks``) are
  accepted and stored as ``int``, so the save stays JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest

from domino_env import dominoes_v0, texas42_v0
from domino_env.evaluation import GameSetup
from domino_env.rules.line import MAX_TARGET_SCORE, LineConfig, LineGame
from domino_env.rules.texas42 import MAX_TARGET_MARKS, Texas42Config, Texas42Game
from domino_env.vector import VectorLineGame

NOT_BOOLS = ["yes", "no", 1, 0, np.bool_(True)]


@pytest.mark.parametrize("bad", NOT_BOOLS, ids=repr)
@pytest.mark.parametrize("option", ["forced_bid", "plunge", "sevens", "stop_when_decided", "open_hands"])
def test_texas42_on_off_options_must_be_bools(option: str, bad: object) -> None:
    with pytest.raises(ValueError, match=f"{option} must be True"):
        Texas42Config.make(**{option: bad})
    with pytest.raises(ValueError, match=f"{option} must be True"):
        texas42_v0.raw_env(**{option: bad})


def test_forced_bid_none_takes_the_presets_rule() -> None:
    assert Texas42Config.make(forced_bid=None).all_pass == "reshake"
    assert Texas42Config.make(forced_bid=True).all_pass == "forced"


@pytest.mark.parametrize("bad", [float("nan"), -1, -0.5, float("inf"), True, "1", None], ids=repr)
@pytest.mark.parametrize("make_env", [dominoes_v0.raw_env, texas42_v0.raw_env], ids=["dominoes", "texas42"])
def test_illegal_penalty_must_be_finite_and_not_negative(make_env, bad: object) -> None:
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number >= 0"):
        make_env(illegal_action="penalize", illegal_penalty=bad)


def test_illegal_penalty_zero_and_numpy_floats_are_fine() -> None:
    assert dominoes_v0.raw_env(illegal_penalty=0).illegal_penalty == 0.0
    assert texas42_v0.raw_env(illegal_penalty=np.float32(0.5)).illegal_penalty == 0.5


@pytest.mark.parametrize("bad", [0, -5, 1.5, "100", True, MAX_TARGET_SCORE + 1, 10**12], ids=repr)
def test_a_bad_target_score_is_refused_in_every_episode(bad: object) -> None:
    for episode in ("round", "match"):
        with pytest.raises(ValueError, match="target_score must be an integer"):
            dominoes_v0.raw_env(episode=episode, target_score=bad)
        with pytest.raises(ValueError, match="target_score must be an integer"):
            VectorLineGame(1, episode=episode, target_score=bad)
    with pytest.raises(ValueError, match="target_score must be an integer"):
        GameSetup("dominoes", {"target_score": bad}, match=False)


def test_one_round_play_still_drops_a_good_target() -> None:
    assert dominoes_v0.raw_env(episode="round", target_score=50).config.target_score is None
    capped = dominoes_v0.raw_env(episode="match", target_score=MAX_TARGET_SCORE)
    assert capped.config.target_score == MAX_TARGET_SCORE


@pytest.mark.parametrize("bad", [MAX_TARGET_MARKS + 1, 10**12], ids=repr)
def test_target_marks_are_capped(bad: int) -> None:
    with pytest.raises(ValueError, match=f"target_marks must be an integer 1..{MAX_TARGET_MARKS}"):
        Texas42Config.make(episode="game", target_marks=bad)
    assert Texas42Config.make(episode="game", target_marks=MAX_TARGET_MARKS).target_marks == MAX_TARGET_MARKS


def test_numpy_integer_options_are_stored_as_ints() -> None:
    line = LineConfig(num_players=np.int64(3), target_score=np.int32(40))
    texas = Texas42Config.make(num_players=np.int8(3), episode="game", target_marks=np.uint8(5))
    for config in (line, texas):
        assert not any(isinstance(v, np.generic) for v in asdict(config).values())
    rng = np.random.default_rng(0)
    for game in (LineGame(line, rng), Texas42Game(texas, rng)):
        assert json.loads(game.to_json())["config"] == asdict(game.config)
