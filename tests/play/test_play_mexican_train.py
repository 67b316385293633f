"""Mexican Train at the terminal: a scripted round through the session, a match through stdin, bad
table options explained."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.frontends.terminal import Session, Setup, build_setup
from domino_env.rules.mexican_train import MexicanTrainConfig, MexicanTrainGame

SCRIPT = Path(sys.executable).parent / "domino-play"


def scripted(lines):
    """A LineReader answering from ``lines``; EOF once they run out."""
    answers = list(lines)

    def read(timeout):
        if not answers:
            raise EOFError
        return answers.pop(0)

    return read


class LowestLegal:
    """A predictable bot: the lowest legal action id."""

    def act(self, view, rng):
        return (view.legal_mask & -view.legal_mask).bit_length() - 1


def test_a_scripted_round_through_the_session():
    """Seat 1 (a bot) cannot play on 12, draws 4-4 (no fit) and passes; I play 3-12 and go out."""
    deal = {"hands": [["3-12"], ["5-6", "1-4"]], "boneyard": ["4-4", "2-2"], "first_player": 1}
    config = MexicanTrainConfig(num_players=2, episode="round")
    game = MexicanTrainGame(config, np.random.default_rng(0), deal=deal)
    names = ("seat 0 (you)", "seat 1 (lowest)")
    setup = Setup(game, (None, LowestLegal()), names, 0.0, np.random.default_rng(0))
    out = io.StringIO()
    Session(setup, scripted(["play 3-12 mexican", "play 3-12 own"]), out).run()
    text = out.getvalue()
    assert "seat 1 (lowest): draw" in text and "seat 1 (lowest): pass" in text
    assert "'play 3-12 mexican' is not legal now" in text and "seat 0 (you): play 3-12 own" in text
    assert "seat 0 (you) went out. Points: seat 0 (you) 0, seat 1 (lowest) 24" in text
    assert text.rstrip().endswith("The round is over: seat 0 (you) won with 0 points (the fewest).")


def test_a_short_match_through_stdin():
    args = ["--game", "mexican_train", "--players", "3", "--seed", "2", "--bots", "random", "-o", "rounds=2"]
    result = subprocess.run([sys.executable, str(SCRIPT), *args], input="1\n" * 400, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "Mexican Train (standard), 3 players, 15 tiles each; 2 rounds" in text
    assert "Round 1 over (engine 12-12)" in text and "Round 2 over (engine 11-11)" in text
    assert "The match is over:" in text


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"teams": True}, "no teams"),
    ({"target": 100}, "rounds=N"),
    ({"players": 9}, "2 to 8 players"),
])
def test_bad_tables_are_explained(kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_setup("mexican_train", **kwargs)
