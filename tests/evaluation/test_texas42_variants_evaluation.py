"""The harness on three-player 42 and Texas 88: the command of the issue runs with every scripted
bot, and what still cannot play those rules (a policy trained on four-player 42, any agent whose
move raises ``ValueError``) stops the run with one ``AgentError`` naming the agent and the rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from domino_env.cli import evaluate as evaluate_cli
from domino_env.evaluation import AgentError, GameSetup, evaluate, play_game

VARIANTS = {"three players": {"num_players": 3}, "texas88": {"preset": "texas88"}}


@pytest.mark.parametrize("name", VARIANTS)
def test_every_scripted_bot_is_evaluated_on_the_variants(name: str) -> None:
    result = evaluate(GameSetup("texas42", VARIANTS[name]), ["random", "heuristic", "search:budget=2"], 1)
    assert [s["agent"] for s in result.summary] == ["random", "heuristic", "search:budget=2"]
    assert all(s["groups"] >= 1 for s in result.summary)


@pytest.mark.parametrize("option", ["num_players=3", "preset=texas88"])
def test_the_command_of_the_issue_runs(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``domino-evaluate --game texas42 --agents random heuristic --option num_players=3`` (a few
    deals), and its Texas 88 twin."""
    argv = ["--game", "texas42", "--agents", "random", "heuristic", "--option", option,
            "--deals", "3", "--workers", "1"]
    assert evaluate_cli.main(argv) == 0
    assert "| heuristic |" in capsys.readouterr().out


@pytest.mark.parametrize("option", ["num_players=3", "preset=texas88"])
def test_a_four_player_checkpoint_stops_the_command_with_one_line(
    option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped four-player 42 policy cannot read the variants' observations: one ``error:`` line
    naming it and the rules, exit 2, no traceback."""
    checkpoint = Path(evaluate_cli.__file__).resolve().parents[1] / "baselines" / "Texas42.pt"
    argv = ["--game", "texas42", "--agents", "random", f"checkpoint:path={checkpoint}", "--option", option,
            "--deals", "2", "--workers", "1"]
    with pytest.raises(SystemExit) as stop:
        evaluate_cli.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "cannot play texas42" in errors[0] and "other rules" in errors[0]


class _RefusesAtItsFirstMove:
    """Builds, then refuses the rules on reading a view (as a checkpoint of other rules does)."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        raise ValueError("trained on other rules")


class _Illegal:
    """Plays an action id no variant has."""

    def act(self, view: Any, rng: np.random.Generator) -> int:
        return 10_000


@pytest.mark.parametrize(("bot", "words"), [(_RefusesAtItsFirstMove, "trained on other rules"),
                                            (_Illegal, "illegal move")])
def test_an_agent_that_fails_in_a_game_is_named_in_one_error(bot: type, words: str) -> None:
    setup = GameSetup("texas42", {"preset": "texas88"})
    agents = [bot() for _ in range(6)]
    rngs = [np.random.default_rng(s) for s in range(6)]
    with pytest.raises(AgentError, match=f"agent 'x' cannot play texas42 with options .*texas88.*{words}"):
        play_game(setup, agents, np.random.default_rng(0), rngs, names=["x"] * 6)
    with pytest.raises(AgentError, match=f"the agent at seat \\d cannot play texas42.*{words}"):
        play_game(setup, agents, np.random.default_rng(0), rngs)
