"""The terminal front end plays All Fives and Fives and Threes (the registry's ``play_`` fields)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from domino_env.frontends.terminal import Session, build_setup

SCRIPT = Path(sys.executable).parent / "domino-play"  # the console script beside this interpreter


def always_first(timeout):
    return "1"


@pytest.mark.parametrize(
    ("game", "kwargs", "intro"),
    [
        ("all_fives", {"target": 30, "bots": ["random"]}, "All Fives (standard), 2 players; a play scores"),
        ("all_fives", {"players": 3, "preset": "classic", "one_round": True,
                       "options": {"draw_policy": "may_draw", "lead_rule": "highest_double"}},
         "All Fives (classic), 3 players"),
        ("fives_and_threes", {"teams": True, "target": 20},
         "Fives and Threes (standard), 4 players, teams: seats 0+2 against 1+3"),
    ],
)
def test_a_match_or_hand_plays_to_its_end_through_the_session(game, kwargs, intro):
    setup = build_setup(game, seed=5, **kwargs)
    out = io.StringIO()
    Session(setup, always_first, out).run()
    text = out.getvalue()
    assert text.startswith(intro)
    assert "Hand 1 over:" in text and "Scores:" in text
    last = text.rstrip().splitlines()[-1]
    assert last.startswith(("Match over:", "The hand is over:", "Over: a tie")), last
    assert setup.game.is_terminal


def test_bad_fives_tables_are_explained():
    with pytest.raises(ValueError, match="team game needs all four seats"):
        build_setup("all_fives", players=3, teams=True)
    with pytest.raises(ValueError, match="preset must be one of"):
        build_setup("fives_and_threes", preset="pagat")


def test_domino_play_runs_fives_and_threes_through_stdin():
    result = subprocess.run([sys.executable, str(SCRIPT), "--game", "fives_and_threes", "--seed", "3",
                             "--bots", "random", "--target", "15"], input="1\n" * 2000, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().splitlines()[-1].startswith(("Match over", "Over: a tie"))
