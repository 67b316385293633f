"""domino-ladder: agent specs of every kind, leaderboard rows, merging rows from many runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from domino_env.bots import make_bot
from domino_env.cli import ladder as benchmark
from domino_env.evaluation import AgentError, AgentSpec, GameSetup, evaluate
from domino_env.evaluation.ladder import load_rows, merge_rows, resolve_agent, score_agent
from domino_env.evaluation.tasks import baseline_path, get_task

HERE = Path(__file__).resolve().parent


@pytest.fixture
def user_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))  # user_agents.py, importable as a plain module


def test_agent_specs_of_every_kind(user_code: None, tmp_path: Path) -> None:
    assert resolve_agent("greedy", "dominoes") == AgentSpec("greedy", "greedy", {})
    assert resolve_agent("fast=search:budget=2", "dominoes") == AgentSpec("fast", "search", {"budget": 2})
    checkpoint = baseline_path("Block2p")
    spec = resolve_agent(f"mine={checkpoint}", "dominoes")
    assert spec == AgentSpec("mine", "checkpoint", {"path": str(checkpoint.resolve())})
    assert resolve_agent("user_agents:make_policy", "dominoes") == AgentSpec(
        "make_policy", "user", {"factory": "user_agents:make_policy"})
    with pytest.raises(AgentError, match="neither a dominoes bot .*greedy.*checkpoint file.*package.module"):
        resolve_agent("grredy", "dominoes")
    with pytest.raises(AgentError, match="no checkpoint file"):
        resolve_agent(str(tmp_path / "missing.pt"), "dominoes")


def test_user_code_plays_as_an_object_or_an_observation_policy(user_code: None) -> None:
    agents = [AgentSpec("object", "user", {"factory": "user_agents:make_object_agent"}),
              AgentSpec("policy", "user", {"factory": "user_agents:make_policy", "offset": 1}),
              AgentSpec("random", "random")]
    # The engine raises on an illegal move, so finishing every game is the check.
    result = evaluate(GameSetup("texas42"), agents, 2, seed=0)
    assert len(result.records) == 2 * 6
    with pytest.raises(ValueError, match="returned int: expected an object with act"):
        make_bot("dominoes", "user", factory="user_agents:make_nothing")
    with pytest.raises(ValueError, match="has no 'absent'"):
        make_bot("dominoes", "user", factory="user_agents:absent")
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        make_bot("dominoes", "user", factory="no_such_module:f")
    with pytest.raises(ValueError, match="must be 'package.module:callable'"):
        make_bot("dominoes", "user", factory="user_agents")


def test_rows_merge_into_one_leaderboard(user_code: None, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "machine_a.json", tmp_path / "machine_b.json"
    assert benchmark.main(["--task", "Draw2p", "--agent", "greedy", "--agent", "user_agents:make_policy",
                           "--deals", "3", "--workers", "1", "--out", str(first)]) == 0
    assert benchmark.main(["--task", "Draw2p", "--agent", "lowest=user_agents:make_object_agent",
                           "--deals", "3", "--workers", "1", "--out", str(second)]) == 0
    rows = load_rows([first, second])
    assert [row["agent"]["label"] for row in rows] == ["greedy", "make_policy", "lowest"]
    assert all(row["num_deals"] == 3 and not row["full_protocol"] for row in rows)
    board = tmp_path / "board.json"
    assert benchmark.main(["--merge", str(first), str(second), "--out", str(board)]) == 0
    merged = json.loads(board.read_text())["leaderboard"]
    assert sorted(entry["agent"] for entry in merged) == ["greedy", "lowest", "make_policy", "random"]
    elos = [entry["elo"]["elo"] for entry in merged]
    assert elos == sorted(elos, reverse=True)
    assert next(e for e in merged if e["agent"] == "random")["elo"]["elo"] == 0
    out = capsys.readouterr().out
    assert "| greedy |" in out and "| lowest |" in out
    # The merged fit, with one candidate, equals that candidate's own row.
    alone = merge_rows([rows[1]])
    own = next(e for e in alone["leaderboard"] if e["agent"] == "make_policy")["elo"]
    assert own == pytest.approx(rows[1]["elo"])


def test_merge_refuses_rows_that_do_not_fit(tmp_path: Path) -> None:
    task = get_task("Draw2p")
    row = score_agent(task, AgentSpec("greedy", "greedy"), num_deals=2)
    with pytest.raises(ValueError, match="different tasks or protocols"):
        merge_rows([row, {**row, "num_deals": 3}])
    with pytest.raises(ValueError, match="two different agents are labelled 'greedy'"):
        merge_rows([row, {**row, "agent": {"label": "greedy", "bot": "search", "kwargs": {}}}])
    junk = tmp_path / "junk.json"
    junk.write_text('{"rows": []}')
    with pytest.raises(ValueError, match="not a leaderboard row"):
        load_rows([junk])


def test_bad_agent_stops_the_command_with_one_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        benchmark.main(["--task", "Block2p", "--agent", "not_a_bot", "--deals", "1"])
    assert stop.value.code == 2
    assert "error: argument --agent: agent 'not_a_bot' is neither a dominoes bot" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        benchmark.main(["--task", "Block2p", "--agent", "random=greedy", "--deals", "1"])
    assert "is an opponent's" in capsys.readouterr().err


def test_ladder_writes_its_section_picture_and_doc(tmp_path: Path) -> None:
    doc = tmp_path / "docs" / "leaderboard.md"
    doc.parent.mkdir()
    doc.write_text(f"# Kept\n\nhand-written\n\n{benchmark.LADDER_START}\nold\n{benchmark.LADDER_END}\ntail\n")
    task = dataclasses.replace(get_task("Block2p"), search_budgets=(1, 2))  # the cheapest search
    benchmark.run_ladder([task], 1, 1, 1, doc, tmp_path / "docs" / "img")
    text = doc.read_text()
    assert text.startswith("# Kept\n\nhand-written\n") and text.endswith("tail\n") and "\nold\n" not in text
    assert "### Block2p" in text and "1 duplicate deals" in text
    assert "![Block2p](img/ladder_Block2p.png)" in text
    recorded = json.loads(baseline_path("Block2p").with_suffix(".json").read_text())
    assert f"| Block2p | `{recorded['config_file']}`" in text  # the baseline table, from its record
    assert (tmp_path / "docs" / "img" / "ladder_Block2p.png").stat().st_size > 10_000
    saved = json.loads((tmp_path / "docs" / "ladder" / "Block2p.json").read_text())
    assert [a["label"] for a in saved["agents"]] == [AgentSpec.parse(s).label for s in task.baselines()]


def test_a_task_without_search_says_so_in_its_ladder_section(tmp_path: Path) -> None:
    doc = tmp_path / "leaderboard.md"
    doc.write_text(f"{benchmark.LADDER_START}\n{benchmark.LADDER_END}\n")
    task = dataclasses.replace(get_task("Block2p"), search_budgets=None)
    benchmark.run_ladder([task], 1, 1, 1, doc, tmp_path / "img")
    saved = json.loads((tmp_path / "ladder" / "Block2p.json").read_text())
    assert [a["label"] for a in saved["agents"]] == ["random", "greedy", "trained"]
    assert "No `search` on this task's ladder" in doc.read_text()


def test_trained_names_its_task_so_a_missing_baseline_fails_before_any_game(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import domino_env_training.checkpoint_bot

    monkeypatch.setattr(domino_env_training.checkpoint_bot, "baseline_path",
                        lambda task: tmp_path / f"{task}.pt")
    with pytest.raises(AgentError, match="no trained baseline is shipped for task 'Draw2p'"):
        score_agent(get_task("Draw2p"), resolve_agent("trained", "dominoes"), num_deals=1)


def test_a_checkpoint_file_is_scored(tmp_path: Path) -> None:
    out = tmp_path / "row.json"
    assert benchmark.main(["--task", "Block2p", "--agent", f"mine={baseline_path('Block2p')}", "--deals", "2",
                           "--workers", "1", "--out", str(out)]) == 0
    row = json.loads(out.read_text())
    assert row["agent"] == {"label": "mine", "bot": "checkpoint",
                            "kwargs": {"path": str(baseline_path("Block2p").resolve())}}
    assert set(row["versus"]) == {"random", "greedy"} and row["summary"]["groups"] == 2 * 2


def test_three_sided_tasks_score_each_opponent_head_to_head() -> None:
    """In a game of three sides the row's share against an opponent comes from the candidate and that
    opponent alone at the table (``tasks.VERSUS``); in a game of two sides, from the one table."""
    three = get_task("Texas42ThreePlayer")
    search = AgentSpec("s1", "search", {"budget": 1})
    row = score_agent(three, search, num_deals=4)
    duel = evaluate(three.setup, [search, AgentSpec.parse("heuristic")], 4, seed=three.seed)
    assert list(row["versus"]["heuristic"]) == list(duel.crossplay_ci[0][1])
    assert "alone at the table" in row["protocol"]["versus"]
    two = get_task("Block2p")
    candidate = AgentSpec("s1", "search", {"budget": 1})
    row = score_agent(two, candidate, num_deals=3)
    table = evaluate(two.setup, [candidate, *map(AgentSpec.parse, two.opponents)], 3, seed=two.seed)
    assert list(row["versus"]["random"]) == list(table.crossplay_ci[0][1])
