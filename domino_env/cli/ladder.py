"""The named tasks: score an agent, merge leaderboards, regenerate the ladder of baselines.

    domino-ladder --list
    domino-ladder --task BlockTeams4p --agent greedy --agent mine=runs/x/last.pt \
        --agent mypkg.agents:make_agent --workers 2 --out results/mine.json
    domino-ladder --merge results/*.json --out leaderboard.json
    domino-ladder --ladder --deals 200 --partner-deals 100 --workers 2

An agent is a registered bot (``name`` or ``name:key=value,...``, e.g. ``search:budget=32`` or
``trained``), a checkpoint file (``.pt``) or user code ``package.module:factory`` (the factory
returns an object with ``act(view, rng)`` or a callable ``policy(observation, mask)``); any of them
may be prefixed ``label=``. See docs/leaderboard.md for the tasks, the protocol and the ladder.
Bad arguments stop the command before any game with one ``error:`` line, exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from domino_env.evaluation import AgentError, AgentSpec, EvaluationResult, evaluate
from domino_env.evaluation.ladder import (
    leaderboard_markdown,
    load_rows,
    merge_rows,
    resolve_agent,
    score_agent,
)
from domino_env.evaluation.partners import PartnerResult, partner_crossplay
from domino_env.evaluation.reports import save_ratings_figure
from domino_env.evaluation.tasks import (
    INTERVALS,
    METRIC,
    SEAT_ROTATION,
    TASKS,
    VERSUS,
    Task,
    baseline_path,
    get_task,
)
from domino_env.games import get_game

LADDER_START, LADDER_END = "<!-- ladder:start (domino-ladder --ladder) -->", "<!-- ladder:end -->"


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


# ----- the ladder ---------------------------------------------------------------------------------
def ladder_section(task: Task, result: EvaluationResult, image: str, partners: PartnerResult | None,
                   elapsed: float, excluded: list[str]) -> str:
    unit = get_game(task.game).score_unit
    left_out = f" Left out of this ladder: {', '.join(excluded)}." if excluded else ""
    if task.search_budgets is None:
        left_out += " No `search` on this task's ladder: too slow at its protocol (evaluation.tasks)."
    lines = [f"### {task.name}", "",
             f"{task.title}. {result.num_deals} duplicate deals of seed {task.seed} (the full protocol has "
             f"{task.num_deals}); {elapsed:.0f} s.{left_out}", "", result.to_markdown(),
             f"![{task.name}]({image})", ""]
    if partners is not None:
        lines += ["Partner cross-play:", "", partners.to_markdown(unit)]
    return "\n".join(lines)


def baseline_table() -> str:
    """The shipped trained baselines: how long each trained and its recorded evaluation."""
    lines = ["| task | training (config, engine steps, seconds) | margin | win share | beats random | beats "
             "scripted | deals |", "|---|---|---|---|---|---|---|"]
    for name in TASKS:
        path = baseline_path(name).with_suffix(".json")
        if not path.is_file():
            lines.append(f"| {name} | no trained baseline shipped | | | | | |")
            continue
        record = json.loads(path.read_text())
        train, row = record["training"], record["evaluation"]
        m, w = row["summary"]["margin"], row["summary"]["win_rate"]
        versus = [f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]" for v in row["versus"].values()]
        made = f"`{record['config_file']}`, {train['engine_steps']:,}, {train['seconds']:.0f}"
        if "transferred_from" in record:  # another task's baseline, played unchanged on these rules
            made += f" (the {record['transferred_from']} baseline)"
        cells = [made, f"{m[0]:+.2f} [{m[1]:+.2f}, {m[2]:+.2f}]", f"{w[0]:.3f} [{w[1]:.3f}, {w[2]:.3f}]",
                 *versus, str(row["num_deals"])]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def run_ladder(tasks: list[Task], deals: int | None, partner_deals: int, workers: int, doc: Path,
               images: Path, exclude: Sequence[str] = ()) -> None:
    """Play each task's ladder; write its section (``docs/ladder/<task>.md`` and ``.json``, beside
    ``doc``) and picture, then rebuild the ladder block of ``doc`` from every task's section."""
    sections_dir = doc.parent / "ladder"
    images.mkdir(parents=True, exist_ok=True)
    sections_dir.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        started = time.perf_counter()
        n = deals or task.num_deals
        agents = [s for s in task.baselines() if AgentSpec.parse(s).label not in exclude]
        excluded = [AgentSpec.parse(s).label for s in task.baselines() if s not in agents]
        print(f"{task.name}: {agents} on {n} deals", flush=True)
        result = evaluate(task.setup, agents, n, seed=task.seed, workers=workers, progress=True,
                          lockstep=True)
        partners = None
        if task.partnership:
            labels = [s for s in agents if "search" not in s]
            partners = partner_crossplay(task.setup, labels, get_game(task.game).default_bot, partner_deals,
                                         seed=task.seed, workers=workers, progress=True)
        elapsed = time.perf_counter() - started
        image = images / f"ladder_{task.name}.png"
        save_ratings_figure(result, task.name, image)
        relative = os.path.relpath(image, doc.parent)
        section = ladder_section(task, result, relative, partners, elapsed, excluded)
        (sections_dir / f"{task.name}.md").write_text(section)
        (sections_dir / f"{task.name}.json").write_text(json.dumps({
            "task": task.name, "num_deals": n, "seed": task.seed,
            "agents": [asdict(a) for a in result.agents],
            "summary": result.summary, "crossplay_ci": result.crossplay_ci, "ratings": result.ratings,
            "elapsed_s": round(elapsed, 1), "workers": workers,
            "partners": partners.to_dict() if partners else None}, indent=1))
        print(section, flush=True)
    write_ladder_doc(doc)
    print(f"wrote {doc}, {sections_dir}/ and {images}/ladder_*.png")


def write_ladder_doc(doc: Path) -> None:
    """Rebuild the ladder block of ``doc`` from the shipped baselines' records and every task's section
    (``docs/ladder/<task>.md`` beside ``doc``), without playing: what a newly shipped baseline changes."""
    sections_dir = doc.parent / "ladder"
    sections = [(sections_dir / f"{name}.md").read_text() for name in TASKS
                if (sections_dir / f"{name}.md").is_file()]
    protocol = f"Protocol: {METRIC}; {SEAT_ROTATION}; {VERSUS}; intervals {INTERVALS}."
    trained = ("Trained baselines (`domino_env/baselines/<task>.json`: evaluation on the task's first deals "
               "against its opponents, 95% intervals):")
    generated = "\n".join([LADDER_START, "", trained, "", baseline_table(), protocol, "", *sections,
                           LADDER_END])
    text = doc.read_text() if doc.is_file() else f"# Leaderboard\n\n{LADDER_START}\n{LADDER_END}\n"
    head, _, rest = text.partition(LADDER_START)
    doc.write_text(head + generated + rest.partition(LADDER_END)[2])


# ----- the command --------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--task", choices=list(TASKS), help="score --agent on this task")
    mode.add_argument("--merge", nargs="+", type=Path, metavar="RESULTS", help="merge results files")
    mode.add_argument("--ladder", action="store_true", help="play the baselines and write the ladder doc")
    mode.add_argument("--list", action="store_true", help="list the tasks and their protocol")
    parser.add_argument("--agent", action="append", default=[], help="agent to score (repeatable)")
    parser.add_argument("--deals", type=_positive, help="deals (default: the task's full protocol)")
    parser.add_argument("--workers", type=_positive, default=2)
    parser.add_argument("--out", type=Path,
                        help="JSON file for the rows (--task) or the leaderboard (--merge)")
    parser.add_argument("--tasks", nargs="+", choices=list(TASKS), help="--ladder: only these tasks")
    parser.add_argument("--partner-deals", type=_positive, default=100,
                        help="--ladder: partner cross-play deals")
    parser.add_argument("--exclude", nargs="+", default=[], metavar="LABEL",
                        help="--ladder: leave these baselines out (the section says so)")
    parser.add_argument("--doc", type=Path, default=Path("docs/leaderboard.md"))
    parser.add_argument("--images", type=Path, default=Path("docs/img"))
    args = parser.parse_args(argv)

    if args.list:
        for task in TASKS.values():
            print(f"{task.name:26} {task.title}; {task.num_deals} deals, seed {task.seed}; "
                  f"opponents {', '.join(task.opponents)}; PettingZoo/Gymnasium id {task.pettingzoo_id}")
        return 0
    if args.ladder:
        run_ladder([get_task(t) for t in args.tasks or TASKS], args.deals, args.partner_deals, args.workers,
                   args.doc, args.images, args.exclude)
        return 0
    if args.merge:
        try:
            board = merge_rows(load_rows(args.merge))
        except ValueError as err:
            parser.error(f"argument --merge: {err}")
        print(leaderboard_markdown(board))
        if args.out:
            args.out.write_text(json.dumps(board, indent=1))
        return 0
    task = get_task(args.task)
    if not args.agent:
        parser.error("argument --agent: --task needs at least one --agent")
    try:
        specs = [resolve_agent(text, task.game) for text in args.agent]
    except AgentError as err:
        parser.error(f"argument --agent: {err}")
    rows: list[dict[str, Any]] = []
    for spec in specs:
        try:
            rows.append(score_agent(task, spec, args.deals, args.workers, progress=True))
        except AgentError as err:
            parser.error(f"argument --agent: {err}")
        summary, elo = rows[-1]["summary"], rows[-1]["elo"]
        m, w = summary["margin"], summary["win_rate"]
        print(f"{task.name} | {spec.label} | margin {m[0]:+.2f} [{m[1]:+.2f}, {m[2]:+.2f}] | win share "
              f"{w[0]:.3f} [{w[1]:.3f}, {w[2]:.3f}] | Elo {elo['elo']:+.0f} [{elo['low']:+.0f}, "
              f"{elo['high']:+.0f}] | {rows[-1]['num_deals']} deals, {rows[-1]['elapsed_s']:.0f} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows[0] if len(rows) == 1 else rows))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
