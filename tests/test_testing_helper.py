"""``domino_env.testing``, the public registry suite, can fail: a registered game with one thing
broken makes ``registry_test`` raise ``AssertionError`` naming the check that caught it; it reports
the checks that do not apply, refuses unknown names, and imports and runs without pytest or hypothesis.

The broken games are copies of the ``dominoes`` record registered in its place (a record is found by
its config type, so a copy cannot live beside the original); ``swap_record`` restores the registry.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from domino_env import games
from domino_env.encoders.state import state_slots, state_space
from domino_env.games import get_game, register_game
from domino_env.rules.line import LineGame
from domino_env.testing import check_illegal_moves, registry_test

BLOCK = {"variant": "block"}


@pytest.fixture
def swap_record(monkeypatch: pytest.MonkeyPatch):
    """``swap(record)``: register ``record`` in place of the registered game of its name, for one test."""
    monkeypatch.setattr(games, "_GAMES", dict(games._GAMES))  # the original dict comes back afterwards

    def swap(record: games.Game) -> games.Game:
        del games._GAMES[record.name]
        return register_game(record)

    yield swap
    # The full-information state's layout is cached per config and reads the record's num_tiles: forget
    # any layout a broken record may have computed.
    state_slots.cache_clear()
    state_space.cache_clear()


class RepairingLineGame(LineGame):
    """An engine that plays its first legal move instead of refusing an illegal one: the silent repair
    the house style forbids."""

    def apply(self, action: int, seat: int | None = None) -> None:
        if not self.legal_mask() >> int(action) & 1:
            action = self.legal_actions()[0]
        super().apply(action, seat)


def test_a_wrong_num_tiles_fails_the_record_check(swap_record) -> None:
    one_short = dataclasses.replace(get_game("dominoes"), num_tiles=lambda config: config.tiles.num_tiles - 1)
    swap_record(one_short)
    with pytest.raises(AssertionError, match="registry check 'record' failed for game 'dominoes'.*num_tiles"):
        registry_test("dominoes")


def test_an_engine_repairing_illegal_moves_fails_the_illegal_moves_check(swap_record) -> None:
    swap_record(dataclasses.replace(get_game("dominoes"), engine=RepairingLineGame))
    with pytest.raises(AssertionError, match="registry check 'illegal_moves' failed .* was accepted"):
        registry_test("dominoes", examples=[BLOCK])  # the record and PettingZoo checks pass first
    with pytest.raises(AssertionError, match="illegal action .* was accepted"):
        check_illegal_moves("dominoes", BLOCK)  # the check alone raises its own message


def test_registry_test_reports_the_checks_that_do_not_apply() -> None:
    doubles = {"double_bonus": "any"}  # no batched engine keeps several open doubles
    assert registry_test("mexican_train", examples=[doubles], checks=["record", "batched_engine"]) == [
        f"batched_engine ({doubles}): no batched engine plays mexican_train {doubles}"
    ]
    assert registry_test("dominoes", examples=[BLOCK], checks=["record", "batched_engine"]) == []


def test_unknown_names_raise_value_error() -> None:
    with pytest.raises(ValueError, match="unknown game 'nope'"):
        registry_test("nope")
    with pytest.raises(ValueError, match=r"unknown check\(s\) \['nope'\]"):
        registry_test("dominoes", checks=["record", "nope"])


def test_the_helper_needs_neither_pytest_nor_hypothesis() -> None:
    code = (
        "import sys\n"
        "sys.modules['pytest'] = sys.modules['hypothesis'] = None  # importing either now fails\n"
        "from domino_env.testing import registry_test\n"
        f"assert registry_test('dominoes', examples=[{BLOCK!r}], checks=['record', 'save_load']) == []\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
