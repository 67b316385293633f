"""A lower bound on any agent's exploitability in the full games: train a best response to it.

    domino-best-response --task Block2p --against trained [--config best_response_block_2p]
                         [--set FIELD=VALUE ...] [--deals 2000] [--workers 2] [--threads 1]

The agent is frozen as the only opponent of a PPO run (``pool.latest_prob: 0``, no snapshots, the
agent alone in ``pool.frozen`` or ``pool.scripted``): every seat the learner does not hold is the
agent's. In a partnership game the learner holds both seats of its team, so the bound is the team's
(the exploitability of a team game is a joint deviation of the team). A trained agent is also the
best response's starting point (``network.init_from``): it starts at a margin of 0 and climbs from
there. The trained best response is then scored against the agent on the task's duplicate deals
(its evaluation seed: deals no training game saw), and its margin per round, with its 95% interval, is
a lower bound on the agent's exploitability in OpenSpiel's sense (half the NashConv: what a best
response gains, averaged over the seats; the game's value is 0 by the symmetry of duplicate deals).

The agent must act in batches on the trainer's observations: a checkpoint (``trained``, the task's
shipped baseline, or a ``.pt`` file) or a batched scripted bot (``greedy``, ``random``,
``heuristic``). ``search`` has no batched form yet: its bound is any policy's margin against it
(docs/exploitability.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch

from domino_env.evaluation import AgentSpec, evaluate
from domino_env.evaluation.harness import AgentError
from domino_env.evaluation.tasks import TASKS, Task, get_task
from domino_env_training.checkpoints import CheckpointError
from domino_env_training.config import Config, ConfigError, checkpoint_path, load_config, scripted_opponents
from domino_env_training.ppo import train

REPORT_NAME = "best_response.json"


def frozen_overrides(task: Task, against: str, warm_start: bool) -> list[str]:
    """The config overrides that make ``against`` the run's only, frozen opponent."""
    pool = ["pool.latest_prob=0", "pool.max_snapshots=0"]
    if against in scripted_opponents(task.game):
        return [*pool, f"pool.scripted=[{against}]", "pool.frozen=[]"]
    frozen = task.name if against == "trained" else against
    checkpoint_path(frozen, "--against")  # a clear error before anything is built
    start = [f"network.init_from={json.dumps(frozen)}"] if warm_start else []
    return [*pool, "pool.scripted=[]", f"pool.frozen=[{json.dumps(frozen)}]", *start]


def frozen_agent(task: Task, config: Config) -> AgentSpec:
    """The harness agent that plays what the run's pool froze."""
    if config.pool.scripted:
        return AgentSpec(config.pool.scripted[0], config.pool.scripted[0])
    name = config.pool.frozen[0]
    return AgentSpec("frozen", "checkpoint", {"path": str(checkpoint_path(name, "pool.frozen").resolve())})


def check_task_rules(task: Task, config: Config) -> None:
    """The run must train on the task's rules, one round or hand per episode, zero-sum."""
    if config.game.name != task.game or config.game.rules != task.config:
        raise ConfigError(f"game: the config trains {config.game.name} {config.game.options}, the task "
                          f"{task.name} is {task.game} {task.options}")


def best_response_bound(task: Task, config: Config, num_deals: int, workers: int = 1, *, resume: bool = False,
                        overwrite: bool = False, progress: bool = True) -> dict[str, Any]:
    """Train the best response ``config`` describes, score it on ``num_deals`` of ``task``'s deals and
    write the report (``best_response.json`` in the run folder)."""
    check_task_rules(task, config)
    result = train(config, resume=resume, overwrite=overwrite, progress=progress)
    learner = AgentSpec("best_response", "checkpoint", {"path": str((result.run_path / "last.pt").resolve())})
    frozen = frozen_agent(task, config)
    evaluation = evaluate(task.setup, [learner, frozen], num_deals, seed=task.seed, workers=workers,
                          progress=progress)
    margin = evaluation.summary[0]["margin"]
    history = result.history[-1] if result.history else {}
    report = {
        "task": task.name, "against": {"label": frozen.label, "bot": frozen.bot, "kwargs": frozen.kwargs},
        "config": config.to_dict(), "num_deals": num_deals, "seed": task.seed,
        "training": {"iterations": result.iteration, "steps": result.global_step,
                     "seconds": history.get("elapsed_s")},
        "margin": list(margin), "crossplay": list(evaluation.crossplay_ci[0][1]),
        "meaning": "lower bound on the agent's exploitability (half the NashConv), points per round: "
                   "the best response's margin against it over duplicate deals, 95% interval",
    }
    (result.run_path / REPORT_NAME).write_text(json.dumps(report, indent=1))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", required=True, choices=sorted(TASKS),
                        help="benchmark task: rules and deals")
    parser.add_argument("--against", default="trained",
                        help="the frozen agent: trained (the task's baseline), a .pt file, or a batched bot")
    parser.add_argument("--config", required=True,
                        help="run config (YAML file or shipped name): PPO and network")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                        help="override a config field (repeatable), as domino-train does")
    parser.add_argument("--no-warm-start", action="store_true",
                        help="start from a fresh network, not from the frozen checkpoint")
    parser.add_argument("--deals", type=int, default=0,
                        help="evaluation deals (0: the task's protocol count)")
    parser.add_argument("--workers", type=int, default=1, help="evaluation processes")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    existing = parser.add_mutually_exclusive_group()
    existing.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    existing.add_argument("--overwrite", action="store_true", help="start the run again")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (logs, CI)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        task = get_task(args.task)
        overrides = frozen_overrides(task, args.against, warm_start=not args.no_warm_start)
        config = load_config(args.config, [*overrides, *args.overrides])
        report = best_response_bound(task, config, args.deals or task.num_deals, args.workers,
                                     resume=args.resume, overwrite=args.overwrite,
                                     progress=not args.no_progress)
    except (ConfigError, CheckpointError, AgentError) as err:
        parser.error(str(err))
    mean, low, high = report["margin"]
    print(f"{task.name}: best response to {args.against} after {report['training']['steps']} steps: margin "
          f"{mean:+.2f} [{low:+.2f}, {high:+.2f}] points per round over {report['num_deals']} deals "
          f"(a lower bound on its exploitability); report {Path(config.run_path) / REPORT_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
