"""Benchmark: RLlib PPO self-play beside the project's own trainer on Block 2p, same wall-clock budget.

    nice -n 10 python scripts/speed_rllib.py --minutes 30 --eval-deals 500 --out runs/bench_rllib

Runs, one after another, each for ``--minutes`` of training: ``scripts/train_rllib.py`` with
``configs/rllib/block_2p.yaml`` and 1, then 2 remote env runners (``--runners``), and the project's
trainer (``domino-train --config block_2p``). Reports env steps (decisions of all
seats) per second of training, and, with ``--eval-deals``, the strength of each final policy against
``greedy`` on the same duplicate deals (``domino_env.evaluation``: win rate and margin, 95%
intervals). Writes ``results.json`` and ``results.md`` to ``--out`` with the load average before and
after, since on a shared machine the figures move with it. Needs the ``rllib`` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


BLOCK_2P = {"variant": "block", "num_players": 2, "preset": "pagat", "target_score": None}


def _strength(bot: str, path: Path, deals: int) -> dict[str, Any]:
    """Win rate and margin of the policy at ``path`` against ``greedy`` on ``deals`` duplicate deals."""
    from domino_env.evaluation import AgentSpec, GameSetup, evaluate

    agents = [AgentSpec("trained", bot, {"path": str(path)}), AgentSpec("greedy", "greedy")]
    result = evaluate(GameSetup("dominoes", BLOCK_2P), agents, deals)
    summary = result.summary[0]
    return {"win_rate_vs_greedy": summary["win_rate"], "margin_vs_greedy": summary["margin"]}


def bench_rllib(runners: int, minutes: float, out: Path) -> dict[str, Any]:
    from domino_env_training.rllib.config import load_config
    from domino_env_training.rllib.selfplay import train

    config = load_config(
        ROOT / "configs" / "rllib" / "block_2p.yaml",
        [
            f"name=rllib_{runners}_runners",
            f"run_dir={out}",
            f"num_env_runners={runners}",
            f"time_budget_s={minutes * 60}",
            "total_steps=1000000000",
            "harness_deals=0",
        ],
    )
    result = train(config, progress=False)
    return {
        "trainer": f"RLlib PPO, {runners} env runner(s)",
        "env_steps": result.env_steps,
        "seconds": result.seconds,
        "steps_per_s": result.env_steps / result.seconds,
        "checkpoint": str(result.checkpoint),
        "bot": "rllib",
    }


def bench_own(minutes: float, out: Path) -> dict[str, Any]:
    from domino_env_training.config import load_config
    from domino_env_training.ppo import train

    config = load_config(
        ROOT / "configs" / "block_2p.yaml",
        [
            "name=own_trainer",
            f"run_dir={out}",
            f"time_budget_s={minutes * 60}",
            "device=cpu",
        ],
    )
    start = time.monotonic()
    result = train(config, overwrite=True, progress=False)
    seconds = time.monotonic() - start
    return {
        "trainer": "own PPO (domino-train)",
        "env_steps": result.global_step,
        "seconds": seconds,
        "steps_per_s": result.global_step / seconds,
        "checkpoint": str(result.run_path / "last.pt"),
        "bot": "checkpoint",
    }


def _interval(values: list[float], digits: int) -> str:
    mean, low, high = values
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def to_markdown(rows: list[dict[str, Any]], load_before: tuple, load_after: tuple) -> str:
    lines = [
        "| trainer | env steps | seconds | env steps/s | win rate vs greedy | margin vs greedy |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        win = _interval(row["win_rate_vs_greedy"], 3) if "win_rate_vs_greedy" in row else "-"
        margin = _interval(row["margin_vs_greedy"], 2) if "margin_vs_greedy" in row else "-"
        lines.append(
            f"| {row['trainer']} | {row['env_steps']} | {row['seconds']:.0f} | "
            f"{row['steps_per_s']:.0f} | {win} | {margin} |"
        )
    lines.append(
        f"\nload average (1, 5, 15 min) before {load_before}, after {load_after}; {os.cpu_count()} CPUs"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--minutes", type=float, default=3.0, help="training budget of each run")
    parser.add_argument(
        "--runners", type=int, nargs="*", default=[1, 2], help="RLlib env runner counts to run"
    )
    parser.add_argument("--skip-own", action="store_true", help="leave out the project's own trainer")
    parser.add_argument(
        "--eval-deals",
        type=int,
        default=0,
        help="duplicate deals against greedy for each final policy (0: steps/s only)",
    )
    parser.add_argument("--out", type=Path, default=Path("runs/bench_rllib"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    # Ray starts its workers (the env runners) at nice 15, below the driver and the project's trainer;
    # the same priority for every run keeps the comparison fair on a shared machine.
    os.environ.setdefault("RAY_worker_niceness", "0")
    load_before = tuple(round(x, 2) for x in os.getloadavg())
    rows = [bench_rllib(runners, args.minutes, args.out) for runners in args.runners]
    if not args.skip_own:
        rows.append(bench_own(args.minutes, args.out))
    load_after = tuple(round(x, 2) for x in os.getloadavg())
    if args.eval_deals:
        for row in rows:
            row.update(_strength(row["bot"], Path(row["checkpoint"]), args.eval_deals))
    report = to_markdown(rows, load_before, load_after)
    (args.out / "results.json").write_text(
        json.dumps(
            {"minutes": args.minutes, "load_before": load_before, "load_after": load_after, "runs": rows},
            indent=1,
        )
    )
    (args.out / "results.md").write_text(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
