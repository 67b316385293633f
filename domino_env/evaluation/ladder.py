"""Score one agent on a benchmark task, and merge scores from many runs into one leaderboard.

``score_agent(task, spec)`` plays the task's protocol (``domino_env.evaluation.tasks``): the candidate and
the task's fixed opponents (``random`` and the game's scripted bot) on every lineup of the task's
duplicate deals. Its row keeps, besides the summary, every deal's pairwise comparisons between the
candidate and the opponents; since every row of a task plays the same deals against the same
opponents, ``merge_rows`` puts rows from different machines into one Bradley-Terry fit, the
opponents linking the candidates (Elo, random = 0, 95% intervals by bootstrap over deals).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.bots import available_bots
from domino_env.evaluation.harness import AgentError, AgentSpec, evaluate
from domino_env.evaluation.statistics import elo_ratings, pairwise_by_deal
from domino_env.evaluation.tasks import INTERVALS, METRIC, SEAT_ROTATION, VERSUS, Task, get_task

ROW_FORMAT = "domino-env leaderboard row"
ROW_VERSION = 1
_MODULE_FACTORY = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
_LABEL = re.compile(r"([\w.-]+)=(.+)")


def resolve_agent(text: str, game: str) -> AgentSpec:
    """An agent named on the command line, optionally ``label=...`` first:

    - a registered bot, ``name`` or ``name:key=value,...`` (``search:budget=32``, ``trained``);
    - a checkpoint file (``runs/x/last.pt``: any existing file, or a name ending in ``.pt``);
    - user code, ``package.module:factory`` (``domino_env.bots.base.UserAgent``).

    Anything else raises ``AgentError`` saying which forms exist and which bots the game has."""
    match = _LABEL.fullmatch(text)
    label, rest = (match.group(1), match.group(2)) if match and ":" not in match.group(1) else ("", text)
    bots = available_bots(game)
    name = rest.partition(":")[0]
    if name in bots:
        spec = AgentSpec.parse(rest)
        return AgentSpec(label or spec.label, spec.bot, spec.kwargs)
    if rest.endswith(".pt") or Path(rest).is_file():
        path = Path(rest)
        if not path.is_file():
            raise AgentError(f"agent {text!r}: no checkpoint file {str(path)!r}")
        return AgentSpec(label or path.stem, "checkpoint", {"path": str(path.resolve())})
    if _MODULE_FACTORY.fullmatch(rest):
        return AgentSpec(label or rest.rpartition(":")[2], "user", {"factory": rest})
    raise AgentError(f"agent {text!r} is neither a {game} bot ({', '.join(bots)}; options as "
                     "name:key=value), a checkpoint file (.pt) nor user code (package.module:factory)")


def score_agent(task: Task, spec: AgentSpec, num_deals: int | None = None, workers: int = 1,
                progress: bool = False) -> dict[str, Any]:
    """The leaderboard row of ``spec`` on ``task``'s protocol (``num_deals``: fewer deals than the
    task's, for a quick look; the row records how many)."""
    if spec.bot == "trained" and "task" not in spec.kwargs:  # name the task: a missing baseline fails now
        spec = AgentSpec(spec.label, spec.bot, {**spec.kwargs, "task": task.name})
    opponents = [AgentSpec.parse(o) for o in task.opponents]
    same = [o for o in opponents if o.label == spec.label]
    if same and (same[0].bot, same[0].kwargs) != (spec.bot, spec.kwargs):
        raise AgentError(f"agent label {spec.label!r} is an opponent's: give it another (label=...)")
    agents = opponents if same else [spec, *opponents]
    deals = num_deals or task.num_deals
    started = time.perf_counter()
    result = evaluate(task.setup, agents, deals, seed=task.seed, workers=workers, progress=progress,
                      lockstep=True)  # the same games as one at a time, the agents answering in batches
    me = [a.label for a in agents].index(spec.label)
    _, wins, games = pairwise_by_deal(result.records, len(agents))
    versus = {agents[j].label: result.crossplay_ci[me][j] for j in range(len(agents)) if j != me}
    if task.setup.num_sides > 2:  # head to head (``tasks.VERSUS``)
        for j, opponent in enumerate(agents):
            if j != me:
                duel = evaluate(task.setup, [spec, opponent], deals, seed=task.seed, workers=workers,
                                lockstep=True)
                versus[opponent.label] = duel.crossplay_ci[0][1]
    elapsed = time.perf_counter() - started
    return {
        "format": ROW_FORMAT, "version": ROW_VERSION, "task": task.name, "seed": task.seed,
        "num_deals": deals, "full_protocol": deals == task.num_deals, "workers": workers,
        "protocol": {"metric": METRIC, "seat_rotation": SEAT_ROTATION, "versus": VERSUS,
                     "intervals": INTERVALS},
        "elapsed_s": round(elapsed, 2),
        "agent": {"label": spec.label, "bot": spec.bot, "kwargs": spec.kwargs},
        "agents": [a.label for a in agents],
        "summary": result.summary[me],
        "versus": versus,
        "elo": result.ratings[me],
        "wins": wins.tolist(), "games": games.tolist(),
    }


def load_rows(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Rows from results files (one row, or a list of rows, per file); a file that is not one
    raises ``ValueError`` naming it."""
    rows = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise ValueError(f"{path}: not a readable results file ({err})") from None
        for row in data if isinstance(data, list) else [data]:
            stamp = (row.get("format"), row.get("version")) if isinstance(row, dict) else None
            if stamp != (ROW_FORMAT, ROW_VERSION):
                raise ValueError(f"{path}: not a leaderboard row of version {ROW_VERSION} "
                                 "(domino-ladder --task ... --out writes them)")
            rows.append(row)
    return rows


def merge_rows(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One leaderboard of ``rows`` of one task, protocol and opponents: every agent's Elo from one
    fit of all their comparisons, best first, its bootstrap seeded by the task's seed (so a lone row
    merges to its own ratings). An agent scored twice (same label and spec) counts
    once; the same label with another spec is refused."""
    if not rows:
        raise ValueError("no rows to merge")
    first = rows[0]
    key = ("task", "seed", "num_deals")
    for row in rows[1:]:
        if any(row[k] != first[k] for k in key):
            raise ValueError("rows of different tasks or protocols cannot merge: "
                             f"{ {k: first[k] for k in key} } vs { {k: row[k] for k in key} }")
    opponents = list(get_task(first["task"]).opponents)
    labels = [AgentSpec.parse(o).label for o in opponents]
    kept: dict[str, dict[str, Any]] = {}
    for row in rows:
        label = row["agent"]["label"]
        if label in kept and kept[label]["agent"] != row["agent"]:
            raise ValueError(f"two different agents are labelled {label!r}: {kept[label]['agent']} and "
                             f"{row['agent']}")
        kept.setdefault(label, row)
    everyone = labels + [label for label in kept if label not in labels]
    index = {label: i for i, label in enumerate(everyone)}
    wins = np.zeros((first["num_deals"], len(everyone), len(everyone)))
    games = np.zeros_like(wins)
    pairs_done: set[tuple[int, int]] = set()
    for row in kept.values():
        row_wins, row_games = np.asarray(row["wins"]), np.asarray(row["games"])
        place = [index[label] for label in row["agents"]]
        for a, b in zip(*np.triu_indices(len(place), 1), strict=True):
            pair = (min(place[a], place[b]), max(place[a], place[b]))
            if pair in pairs_done:  # opponent against opponent: the same games in every row
                continue
            pairs_done.add(pair)
            wins[:, place[a], place[b]] = row_wins[:, a, b]
            wins[:, place[b], place[a]] = row_wins[:, b, a]
            games[:, place[a], place[b]] = games[:, place[b], place[a]] = row_games[:, a, b]
    ratings = elo_ratings(wins, everyone, first["seed"])
    table = []
    for label, rating in zip(everyone, ratings, strict=True):
        row = kept.get(label)
        table.append({"agent": label, "elo": rating, "summary": row["summary"] if row else None,
                      "versus": row["versus"] if row else None,
                      "spec": row["agent"] if row else {"label": label}})
    table.sort(key=lambda r: -r["elo"]["elo"])
    return {"task": first["task"], "seed": first["seed"], "num_deals": first["num_deals"],
            "opponents": labels, "leaderboard": table}


def leaderboard_markdown(board: dict[str, Any]) -> str:
    """The merged leaderboard as a Markdown table (agents without their own row are the opponents:
    their Elo only)."""
    task = get_task(board["task"])
    ref = board["opponents"][-1]
    lines = [f"{task.name}: {task.title}; {board['num_deals']} duplicate deals, seed {board['seed']}", "",
             f"| agent | Elo (random = 0) | margin | win share | beats {ref} |", "|---|---|---|---|---|"]
    for entry in board["leaderboard"]:
        e = entry["elo"]
        cells = [f"{e['elo']:+.0f} [{e['low']:+.0f}, {e['high']:+.0f}]"]
        if entry["summary"]:
            m, w = entry["summary"]["margin"], entry["summary"]["win_rate"]
            v = entry["versus"].get(ref)
            cells += [f"{m[0]:+.2f} [{m[1]:+.2f}, {m[2]:+.2f}]", f"{w[0]:.3f} [{w[1]:.3f}, {w[2]:.3f}]",
                      "-" if v is None else f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]"]
        else:
            cells += ["(opponent)", "", ""]
        lines.append(f"| {entry['agent']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
