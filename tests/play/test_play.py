"""The terminal front end, driven through its input: whole games, bad input, the timer, Texas 42."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from domino_env.frontends.terminal import FdLineReader, Session, Setup, build_setup
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game

SCRIPT = Path(sys.executable).parent / "domino-play"  # the console script beside this interpreter


class LowestLegal:
    """A predictable bot: the lowest legal action id (pass first when bidding, lowest tile in play)."""

    def act(self, view, rng):
        return (view.legal_mask & -view.legal_mask).bit_length() - 1


def scripted(lines):
    """A LineReader answering from ``lines`` (``None`` = the time runs out); records the timeouts."""
    answers, timeouts = list(lines), []

    def read(timeout):
        timeouts.append(timeout)
        if not answers:
            raise EOFError
        return answers.pop(0)

    read.timeouts = timeouts
    return read


def play_script(args, stdin_text, timeout=120):
    return subprocess.run([sys.executable, str(SCRIPT), *args], input=stdin_text, capture_output=True,
                          text=True, timeout=timeout)


def line_setup(hands, turn_seconds=0.0, **options):
    config = LineConfig(num_players=len(hands), target_score=None, **options)
    game = LineGame(config, np.random.default_rng(0), deal={"hands": hands, "leader": 0})
    agents = (None,) + (LowestLegal(),) * (len(hands) - 1)
    names = ("seat 0 (you)",) + tuple(f"seat {s} (lowest)" for s in range(1, len(hands)))
    return Setup(game, agents, names, turn_seconds, np.random.default_rng(0))


def test_a_whole_match_against_bots_ends_through_stdin():
    result = play_script(["--seed", "3", "--bots", "random", "--target", "40"], "1\n" * 3000)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Round 1 over" in out and "Match over: seat" in out
    assert out.rstrip().splitlines()[-1].startswith("Match over")
    assert "You left" not in out


def test_bad_input_re_prompts_until_a_legal_move():
    setup = line_setup([["6-6", "5-5"], ["6-1", "2-2"]])
    read = scripted(["xyz", "7", "play 1-6 left", "play 6-6 right", "help", "play 6-6 left", "quit"])
    out = io.StringIO()
    Session(setup, read, out).run()
    text = out.getvalue()
    assert "cannot read move 'xyz'" in text
    assert "7 is not on the list: choose 1 to 2." in text
    assert "'play 6-1 left' is not legal now" in text and "'play 6-6 right' is not legal now" in text
    assert "Type the number of a move" in text
    assert text.count("move (number or notation") == 7
    assert "seat 0 (you): play 6-6 left" in text and "You left the game." in text
    assert setup.game.line[0][0] == setup.game.tiles.parse("6-6")
    assert read.timeouts[0] is None  # no timer: wait as long as it takes


def test_the_timer_makes_the_automatic_move():
    # Seat 0 may play 6-6 or 5-5 to open; the automatic move is the heaviest tile (docs/rules.md 2.5).
    setup = line_setup([["6-6", "5-5"], ["1-2"]], turn_seconds=30.0)
    read = scripted([None, "quit"])
    out = io.StringIO()
    Session(setup, read, out).run()
    assert "Time is up: automatic move play 6-6 left." in out.getvalue()
    assert setup.game.line[0][0] == setup.game.tiles.parse("6-6")
    assert 29.0 < read.timeouts[0] <= 30.0 and "[30 s left]" in out.getvalue()


def test_the_timer_fires_in_the_real_program_with_silent_input():
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--seed", "1", "--one-round", "--turn-seconds", "0.2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    killer = threading.Timer(60, proc.kill)
    killer.start()
    try:
        out = proc.stdout.read()  # stdin stays open and silent: every turn runs out
    finally:
        killer.cancel()
        proc.stdin.close()
    assert proc.wait() == 0
    assert "Time is up: automatic move" in out and "The round is over." in out


def test_fd_reader_serves_buffered_lines_times_out_and_sees_eof():
    r, w = os.pipe()
    reader = FdLineReader(r)
    os.write(w, b"one\ntwo\nthr")
    assert reader(0.5) == "one"
    assert reader(0.0) == "two"  # already read into the buffer: select alone would miss it
    assert reader(0.05) is None  # half a line is not a line
    os.close(w)
    assert reader(0.5) == "thr"
    with pytest.raises(EOFError):
        reader(0.5)
    os.close(r)


def test_texas42_bid_trump_and_play_through_the_session():
    hands = [
        ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"], ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
        ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"], ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"],
    ]
    game = Texas42Game(Texas42Config.make(episode="hand"), np.random.default_rng(0),
                       deal={"hands": hands, "shaker": 3})
    names = ("seat 0 (you)", "seat 1 (lowest)", "seat 2 (lowest)", "seat 3 (lowest)")
    bots = (None, LowestLegal(), LowestLegal(), LowestLegal())
    setup = Setup(game, bots, names, 0.0, np.random.default_rng(0))
    out = io.StringIO()
    Session(setup, scripted(["bid 30", "trump 7", "trump 6"] + ["1"] * 7), out).run()
    text = out.getvalue()
    assert "seat 0 (you): bid 30" in text and "seat 1 (lowest): pass" in text
    assert "cannot read move 'trump 7'" in text and "seat 0 (you): trump 6" in text
    assert "seat 0 (you): play 6-0" in text  # "1": the first move listed, the lowest tile
    assert "seat 1: 7 tiles" in text and "5-5" not in text.split("Your move")[0]  # other hands hidden
    assert "Hand over: seat 0 (you), bid 30, trump 6: made" in text and "Marks: team 0 1, team 1 0." in text
    assert text.rstrip().endswith("The hand is over.")


def test_texas42_through_stdin_with_two_people_on_one_team():
    # Seed 3: seat 2 shakes, so seat 3 bids, then person 1 (seat 0), seat 1, person 2 (seat 2).
    args = ["--game", "texas42", "--one-round", "--seed", "3", "--you", "0,2", "--bots", "random"]
    result = play_script(args, "bid 2m\npass\ntrump doubles\n" + "1\n" * 100)
    assert result.returncode == 0, result.stderr
    assert "Seats: seat 0 (person 1), seat 1 (random), seat 2 (person 2), seat 3 (random)." in result.stdout
    assert "seat 0 (person 1): bid 2m" in result.stdout and "seat 2 (person 2): pass" in result.stdout
    assert "seat 0 (person 1): trump doubles" in result.stdout
    assert "Hand over:" in result.stdout and "The hand is over." in result.stdout


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"teams": True, "players": 3}, "a team game needs all four seats filled"),
        ({"game": "texas42", "players": 5}, "not --players 5"),
        ({"game": "texas42", "teams": True}, "drop --teams"),
        ({"game": "texas42", "turn_seconds": 60}, "no automatic move"),
        ({"players": 3, "bots": ["greedy", "random", "search"]}, "2 seats [1, 2] need bots"),
        ({"bots": ["nobody"]}, "unknown bot 'nobody'"),
        ({"humans": [0, 2]}, "distinct seats among 0..1"),
        ({"turn_seconds": -1}, "0 (off) or positive"),
        ({"bots": ["search:budget=0"]}, "cannot build bot 'search:budget=0'"),
        ({"bots": ["search:budget"]}, "options are KEY=VALUE"),
        ({"options": {"colour": "red"}}, "unknown line-game option(s) ['colour']; known: ['draw_policy'"),
        ({"options": {"variant": "draw"}}, "option variant is set by the game choice"),
        ({"game": "all_fives", "options": {"variant": "fives_and_threes"}}, "option variant is set by"),
        ({"game": "mexican_train", "options": {"num_players": 3}}, "option num_players is set by"),
    ],
)
def test_bad_setups_are_explained(kwargs, message):
    with pytest.raises(ValueError) as err:
        build_setup(kwargs.pop("game", "block"), **kwargs)
    assert message in str(err.value)


def test_setup_defaults_and_any_line_options():
    boardpan = build_setup("draw", preset="boardpan", teams=True, bots=["random", "greedy", "random"],
                           options={"target_score": 50})
    assert boardpan.turn_seconds == 60.0 and boardpan.game.config.target_score == 50
    assert boardpan.names == ("seat 0 (you)", "seat 1 (random)", "seat 2 (greedy)", "seat 3 (random)")
    pagat = build_setup("block", bots=["search:budget=7"], options={"max_pips": 9, "hand_size": 9})
    assert pagat.turn_seconds == 0.0 and pagat.game.config.tiles.num_tiles == 55
    assert pagat.agents[1].budget == 7 and pagat.names[1] == "seat 1 (search)"


def test_command_line_errors_exit_with_usage():
    result = play_script(["--teams", "--players", "2"], "")
    assert result.returncode == 2 and "a team game needs all four seats filled" in result.stderr
