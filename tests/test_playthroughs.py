"""Golden playthroughs: every seeded game under tests/playthroughs/ must replay line for line.

A file records behaviour only (renders, legal moves, observations, rewards, infos), so an engine
or encoder rewrite that keeps the rules passes, and any change of behaviour fails here naming the
first line that moved. If the change was intended, regenerate with
``.venv/bin/python scripts/make_playthroughs.py`` and review the diff before committing it.
"""

from __future__ import annotations

import pytest
from script_loader import load_script

make_playthroughs = load_script("make_playthroughs")


def first_difference(expected: str, actual: str) -> str | None:
    """``None`` when equal, else where and how the two texts first differ (1-based line)."""
    old, new = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return f"line {number} differs:\n  committed:  {a}\n  regenerated: {b}"
    if len(old) != len(new):
        shorter = "regenerated" if len(new) < len(old) else "committed"
        return f"the {shorter} text ends after line {min(len(old), len(new))} (of {max(len(old), len(new))})"
    return None


@pytest.mark.parametrize("spec", make_playthroughs.PLAYTHROUGHS, ids=lambda spec: spec.name)
def test_playthrough_replays_exactly(spec) -> None:
    assert spec.path.exists(), f"{spec.path} is missing: run scripts/make_playthroughs.py"
    difference = first_difference(spec.path.read_text(), make_playthroughs.play(spec))
    if difference is not None:
        pytest.fail(
            f"{spec.path.name}: {difference}\nIf this change of behaviour is intended, run "
            ".venv/bin/python scripts/make_playthroughs.py and review the diff."
        )


def test_every_committed_file_is_generated() -> None:
    """A stale file nobody regenerates would pass silently; there must be none."""
    committed = {path.name for path in make_playthroughs.DIRECTORY.glob("*.txt")}
    assert committed == {spec.path.name for spec in make_playthroughs.PLAYTHROUGHS}


def test_playthroughs_cover_the_rules_they_claim() -> None:
    """The seeds were picked so these moments happen; a rule change could silently lose them."""
    texts = {spec.name: spec.path.read_text() for spec in make_playthroughs.PLAYTHROUGHS}
    assert "(draw)" in texts["draw_3p_boardpan"] and "(pass)" in texts["draw_3p_boardpan"]
    assert texts["block_4p_teams_boardpan_match"].count("round_points") >= 2  # several rounds
    options = texts["texas42_nello_plunge_sevens_forced"]
    for move in ("(bid plunge", "(nello)", "(sevens)", "(sits out)"):
        assert move in options, move
    assert "(discard " in texts["texas88"] and "discards: 2 tiles" not in texts["texas88"]  # full render
    assert texts["texas42_three_players"].count("hand_marks") >= 2  # several hands to the target
    spinner_hand = texts["all_fives_4p_teams_hand_in_fives"]
    for move in (" north)", " south)", "(draw)", "(pass)"):
        assert move in spinner_hand, move
    assert texts["all_fives_2p_standard_match"].count('"hand_points"') >= 3  # the reset's and two hands
    assert " north)" not in texts["all_fives_3p_muggins_options"]  # no spinner: a plain line
    block_game = texts["fives_and_threes_2p_match"]
    assert "(pass)" in block_game and "(draw)" not in block_game
    for name in ("mexican_train_4p_round", "mexican_train_8p_cardinal_round"):
        for move in (" mexican)", "(draw)", "(pass)"):
            assert move in texts[name], (name, move)
    assert "(stop)" in texts["mexican_train_8p_cardinal_round"]  # the cardinal opening run


def test_first_difference_names_the_line() -> None:
    assert first_difference("a\nb\nc\n", "a\nb\nc\n") is None
    assert "line 2 differs" in first_difference("a\nb\nc\n", "a\nX\nc\n")
    assert "ends after line 2" in first_difference("a\nb\nc\n", "a\nb\n")
