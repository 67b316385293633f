"""Three-player 42 and Texas 88 at the terminal: a scripted hand of each through the session (the
bids of the variant, the lone bidder's marks; the kitty and the two hidden discards of Texas 88), a
game of each through ``domino-play``'s stdin with the scripted bots, bad tables explained."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from domino_env.frontends.terminal import Session, Setup, build_setup
from domino_env.rules.texas42 import Texas42Config, Texas42Game, variant

SCRIPT = Path(sys.executable).parent / "domino-play"  # the console script beside this interpreter
THREE_PLAYER_DEAL = [
    ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-5", "4-4"],
    ["5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2", "4-1", "4-0"],
    ["3-3", "3-2", "3-1", "3-0", "2-2", "2-1", "2-0", "1-1", "0-0"],
]


class LowestLegal:
    """A predictable bot: the lowest legal action id (pass when bidding, the lowest tile in play)."""

    def act(self, view, rng):
        return (view.legal_mask & -view.legal_mask).bit_length() - 1


def scripted(lines):
    """A LineReader answering from ``lines``; EOF once they run out."""
    answers = list(lines)

    def read(timeout):
        if not answers:
            raise EOFError
        return answers.pop(0)

    return read


def session_text(game: Texas42Game, lines: list[str]) -> str:
    """The session's output with you on seat 0 and ``LowestLegal`` on the others."""
    n = game.num_players
    names = ("seat 0 (you)", *(f"seat {s} (lowest)" for s in range(1, n)))
    setup = Setup(game, (None,) + (LowestLegal(),) * (n - 1), names, 0.0, np.random.default_rng(0))
    out = io.StringIO()
    Session(setup, scripted(lines), out).run()
    return out.getvalue()


def test_three_player_42_bid_trump_and_play_alone_against_the_other_two():
    game = Texas42Game(Texas42Config.make(num_players=3, episode="hand"), np.random.default_rng(0),
                       deal={"hands": THREE_PLAYER_DEAL, "shaker": 2})
    text = session_text(game, ["bid 44", "bid 43", "trump 6"] + ["1"] * 9)
    assert text.startswith("Three-player 42 (standard), each for themselves: the bid winner plays alone "
                           "against the other two; 9 tiles each, bids of 30 to 43 points")
    assert "cannot read move 'bid 44'" in text and "  15. bid 43\n  16. bid 1m" in text  # pass, 30..43, marks
    assert "seat 0 (you): bid 43" in text and "seat 0 (you): trump 6" in text
    assert "seat 1: 9 tiles" in text and "5-4" not in text.split("Your move")[0]  # other hands hidden
    assert re.search(r"Hand over: seat 0 \(you\), bid 43, trump 6: made \(points taken: seat 0 \(you\) "
                     r"\d+, the other two \d+\)\. Seat 0 \(you\) scores 1 mark\(s\)\. "
                     r"Marks: seat 0 1, seat 1 0, seat 2 0\.", text), text[-600:]
    assert text.rstrip().endswith("The hand is over.")


def test_texas88_bid_kitty_two_hidden_discards_trump_and_play():
    tiles = variant(6, texas88=True).names
    hands = [list(tiles[9 * seat : 9 * seat + 9]) for seat in range(6)]  # seat 0: 0-0 ... 2-1
    deal = {"hands": hands, "kitty": list(tiles[54:]), "shaker": 0}  # the kitty: 6-5' and 6-6'
    game = Texas42Game(Texas42Config.make(preset="texas88", episode="hand"), np.random.default_rng(0),
                       deal=deal)
    script = ["bid 88", "bid 60", "discard 5-0", "discard 6-6'", "1", "trump 0"] + ["1"] * 9
    text = session_text(game, script)
    assert text.startswith("Texas 88 (texas88), teams: seats 0+2+4 against 1+3+5; 9 tiles each, bids of "
                           "60 to 86 points or of marks (1 mark is 88 points); the bid winner takes the "
                           "kitty of 2 tiles and discards 2; one hand.")
    assert "kitty: 2 tiles" in text and "cannot read move 'bid 88'" in text and "  17. bid 2m" in text
    assert "seat 0: 0-0 1-0 2-0 3-0 4-0 5-0 6-0 1-1 2-1 6-5' 6-6'" in text  # the kitty taken
    assert "'discard 5-0' is not legal now" in text  # a count tile stays in the hand
    assert text.count("seat 0 (you): discard\n") == 2 and "discards: 6-6' 0-0" in text
    assert "seat 0 (you): trump 0" in text and "seat 0 (you): play" in text
    assert re.search(r"Hand over: seat 0 \(you\), bid 60, trump 0: (made|set) \(points taken: team 0 \d+, "
                     r"team 1 \d+\)\. Team [01] \(seats [01]\+[23]\+[45]\) scores 1 mark\(s\)\.", text)
    assert text.rstrip().endswith("The hand is over.")


@pytest.mark.parametrize(
    ("args", "intro", "sides"),
    [
        (["--players", "3", "--target", "2"], "Three-player 42 (standard), each for themselves",
         "Seats: seat 0 (you), seat 1 (heuristic), seat 2 (heuristic)."),
        (["--preset", "texas88", "--target", "2",
          "--bots", "heuristic,random,search:budget=2,random,heuristic"],
         "Texas 88 (texas88), teams: seats 0+2+4 against 1+3+5",
         "Seats: seat 0 (you), seat 1 (heuristic), seat 2 (random), seat 3 (search), seat 4 (random), "
         "seat 5 (heuristic)."),
    ],
    ids=["three-player", "texas88"],
)
def test_a_game_through_stdin_against_the_scripted_bots(args, intro, sides):
    result = subprocess.run([sys.executable, str(SCRIPT), "--game", "texas42", "--seed", "4", *args],
                            input="1\n" * 2000, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith(intro) and sides in text
    assert "Hand over:" in text and "You left" not in text
    assert re.search(r"seat 0 \(you\): (pass|bid \S+)\n", text)  # your bid, read from the prompt
    assert (": discard\n" in text) == ("texas88" in args)  # Texas 88's discards, announced
    assert not re.search(r": discard \S", text), "a discard's tile was announced"
    assert text.rstrip().splitlines()[-1].startswith("Game over:")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 6}, "not --players 6"),
        ({"preset": "texas88", "players": 4}, "not --players 4"),
        ({"players": 4, "options": {"num_players": 3}}, "--players 4 and -o num_players=3 disagree"),
        ({"players": 3, "teams": True}, "drop --teams"),
        ({"players": 3, "options": {"plunge": True}}, "three-player 42 does not allow plunge"),
        ({"preset": "texas88", "options": {"nello": "low"}}, "Texas 88 (docs/rules.md 3.8) does not allow"),
    ],
)
def test_bad_variant_tables_are_explained(kwargs, message):
    with pytest.raises(ValueError) as err:
        build_setup("texas42", **kwargs)
    assert message in str(err.value)


def test_the_variants_from_the_command_line_options():
    three = build_setup("texas42", options={"num_players": 3}, bots=["random"], one_round=True)
    assert three.game.config.num_players == 3 and three.game.config.episode == "hand"
    assert three.names == ("seat 0 (you)", "seat 1 (random)", "seat 2 (random)")
    eighty_eight = build_setup("texas42", preset="texas88", humans=[0, 3], target=3)
    assert eighty_eight.game.config.variant.texas88 and eighty_eight.game.config.target_marks == 3
    assert [a is None for a in eighty_eight.agents] == [True, False, False, True, False, False]
