"""Command lines under bad input: ``domino-evaluate`` and ``domino-play``.

Every bad argument must stop the command before any game with one ``error:`` line naming the
argument (argparse's exit status 2), and nothing may hang: commands that start worker processes
run in a subprocess with a timeout.

Bad inputs tried:

- ``domino-evaluate --agents`` with a bot that cannot be built, under the default two workers:
  an unknown name (``nobot``), the other game's bot (``heuristic`` in dominoes), a bad keyword
  value (``search:budget=abc``), a malformed option (``search:budget``)
- ``domino-evaluate --agents``: one agent; two agents with the same label
- ``domino-evaluate --game texas42`` with three-player 42 or Texas 88 and a policy trained on
  four-player 42 (``checkpoint``, ``trained``): stopped at its first move with one line
- ``evaluate()`` with a bot the parent builds but the workers cannot (the run stops with the
  workers' error)
- ``domino-evaluate --deals 0``, ``--deals x``, ``--workers 0``, ``--seed -1``
- ``domino-evaluate --option``: an unknown key (dominoes and texas42), a key given twice, a bad value
- ``domino-evaluate --out``: a folder under a file, a path that is a file
- ``domino-play``: Ctrl-C (SIGINT) at the move prompt
"""

from __future__ import annotations

import importlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domino_env.evaluation.tasks import baseline_path

COMMANDS = Path(sys.executable).parent  # the console scripts installed beside this interpreter
TIMEOUT = 120  # seconds: a hang fails the test instead of stalling CI


evaluate_script = importlib.import_module("domino_env.cli.evaluate")


def usage_error(capsys, argv: list[str]) -> str:
    """The one ``error:`` line that ``evaluate.py`` prints for ``argv`` (exit status 2)."""
    with pytest.raises(SystemExit) as exit_info:
        evaluate_script.main(argv)
    assert exit_info.value.code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1
    return errors[0]


# ----- evaluate.py: agents ------------------------------------------------------------------------
@pytest.mark.parametrize(("agent", "game", "message"), [
    ("nobot", "dominoes", "unknown dominoes bot 'nobot'; available: ["),
    ("heuristic", "dominoes", "unknown dominoes bot 'heuristic'"),
    ("search:budget=abc", "dominoes", "cannot build dominoes bot 'search' with options {'budget': 'abc'}"),
    ("search:budget=0", "texas42", "budget must be at least 1"),
    ("search:budget", "dominoes", "must be key=value"),
])
def test_an_agent_that_cannot_be_built_stops_before_the_workers(agent, game, message):
    result = subprocess.run(
        [sys.executable, str(COMMANDS / "domino-evaluate"), "--game", game, "--agents", "random", agent,
         "--deals", "2"],  # the default two workers
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1].startswith("domino-evaluate: error: argument --agents: ")
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("options", "bot", "message"), [
    (["--option", "num_players=3"], f"checkpoint:path={baseline_path('Texas42')}", "reads 380 inputs"),
    (["--option", "forced_bid=true"], "trained", "no benchmark task plays these rules"),
])
def test_a_bot_that_cannot_play_the_rules_stops_with_one_line(capsys, options, bot, message):
    """Three-player 42 with a policy trained on four-player 42, and `trained` on rules no task
    plays: one error line naming the agent and the rules, no traceback."""
    line = usage_error(capsys, ["--game", "texas42", *options, "--agents", "random", bot, "--deals", "1",
                                "--workers", "1"])
    assert f"argument --agents: agent {bot!r} cannot play texas42" in line and message in line


def test_a_worker_that_fails_stops_the_run_with_its_error():
    # The parent's check is switched off; the spawned workers import the module afresh and fail.
    code = (
        "import domino_env.evaluation.harness as ev\n"
        "ev.build_agents = lambda setup, specs: []\n"
        "try:\n"
        "    ev.evaluate(ev.GameSetup('dominoes'), ['random', 'nobot'], 4, workers=2)\n"
        "except ev.AgentError as err:\n"
        "    print('stopped:', err)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert "stopped: agent 'nobot': cannot build dominoes bot 'nobot'" in result.stdout


@pytest.mark.parametrize(("agents", "message"), [
    (["random"], "argument --agents: evaluation needs at least two agents, got ['random']"),
    (["random", "random"], "argument --agents: agent labels must differ"),
])
def test_too_few_agents_or_repeated_labels(capsys, agents, message):
    assert message in usage_error(capsys, ["--agents", *agents, "--deals", "1", "--workers", "1"])


# ----- evaluate.py: numbers, options, output --------------------------------------------------------
@pytest.mark.parametrize(("argv", "message"), [
    (["--deals", "0"], "argument --deals: must be a positive integer, got 0"),
    (["--deals", "x"], "argument --deals: must be a positive integer, got 'x'"),
    (["--workers", "0"], "argument --workers: must be a positive integer, got 0"),
    (["--seed", "-1"], "argument --seed: must be a non-negative integer, got -1"),
    (["--option", "foo=1"], "argument --option: unknown line-game option(s) ['foo']; known: ['draw_policy'"),
    (["--game", "texas42", "--option", "foo=1"], "argument --option: unknown Texas 42 option(s) ['foo']"),
    (["--option", "num_players=3", "--option", "num_players=4"],
     "argument --option: each key once, got ['num_players'] more than once"),
    (["--option", "num_players=9"], "argument --option: num_players must be 2, 3 or 4, got 9"),
])
def test_bad_numbers_and_options_are_usage_errors(capsys, argv, message):
    argv = ["--agents", "random", "greedy", "--deals", "1", "--workers", "1", *argv]
    assert message in usage_error(capsys, argv)


def test_an_unwritable_out_folder_is_refused_before_any_game(capsys, tmp_path):
    a_file = tmp_path / "results"
    a_file.write_text("")
    argv = ["--agents", "random", "greedy", "--deals", "1", "--workers", "1", "--out"]
    assert f"argument --out: '{a_file / 'sub'}' is not a folder it can write: Not a directory" \
        in usage_error(capsys, [*argv, str(a_file / "sub")])
    assert "is not a folder it can write: File exists" in usage_error(capsys, [*argv, str(a_file)])
    assert capsys.readouterr().out == ""  # no game was played


# ----- play.py ------------------------------------------------------------------------------------
def test_ctrl_c_at_the_play_prompt_exits_without_a_traceback():
    proc = subprocess.Popen(
        [sys.executable, str(COMMANDS / "domino-play"), "--seed", "1", "--one-round"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # even if the runner ignores it
    )
    try:
        shown, deadline = b"", time.monotonic() + TIMEOUT
        while b"move (number or notation" not in shown:  # the prompt has no newline: read raw bytes
            assert time.monotonic() < deadline and proc.poll() is None, shown.decode()
            if select.select([proc.stdout], [], [], 1.0)[0]:
                shown += os.read(proc.stdout.fileno(), 4096)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err.decode()
    assert "Traceback" not in err.decode() and "KeyboardInterrupt" not in err.decode()
    assert out.decode().rstrip().endswith("Interrupted: you left the game.")
