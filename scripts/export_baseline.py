"""Ship a trained run as the baseline policy of a benchmark task, with its config and evaluation.

    python scripts/export_baseline.py --task Block2p --run runs/baseline_Block2p/last.pt --deals 500

Writes ``domino_env/baselines/<task>.pt`` (the policy only, float16 weights, loaded with
``weights_only=True``) and ``<task>.json``: the training config, how long it trained, its last
batched evaluation against random, and its leaderboard row on the task's protocol (``--deals``).
A run trained with the oracle critic (``network.centralized_critic``) ships with a critic of the seat's
view fitted after training in its place (``domino_env_training.view_critic``), so that the
network-guided search can use its values; the fit's explained variance is recorded.

    python scripts/export_baseline.py --task Texas42N42PA --transfer-from Texas42 --deals 1000

ships another task's baseline, unchanged, as this task's (a policy trained on other rules of the same
game, with the same observation and actions): its record keeps the source's training and names it in
``transferred_from``; the evaluation is on this task. ``--task T --rescore --deals N`` scores the
shipped baseline of ``T`` again and rewrites only its record's evaluation (after a protocol change).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from domino_env.evaluation import AgentSpec
from domino_env.evaluation.ladder import score_agent
from domino_env.evaluation.tasks import TASKS, Task, baseline_path, get_task
from domino_env_training.checkpoints import export_policy, load_checkpoint
from domino_env_training.view_critic import fit_view_critic


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", required=True, choices=list(TASKS))
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", type=Path, help="the run's training checkpoint (last.pt)")
    source.add_argument("--transfer-from", choices=list(TASKS), help="ship this task's baseline unchanged")
    source.add_argument("--rescore", action="store_true",
                        help="score the task's shipped baseline again (after a protocol change)")
    parser.add_argument("--config", type=Path, help="the YAML the run was trained with (recorded by name)")
    parser.add_argument("--deals", type=int, default=500, help="deals of the recorded evaluation")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    task = get_task(args.task)
    if args.transfer_from:
        return transfer(task, get_task(args.transfer_from), args.deals, args.workers)
    if args.rescore:
        record = json.loads(baseline_path(task.name).with_suffix(".json").read_text())
        record["evaluation"] = _score(task, args.deals, args.workers)
        _write(baseline_path(task.name), record)
        return 0
    checkpoint = load_checkpoint(args.run)
    history = checkpoint.get("history") or [{}]
    target = baseline_path(task.name)
    view_critic = None
    with tempfile.TemporaryDirectory() as scratch:
        source = args.run
        if checkpoint["config"]["network"].get("centralized_critic"):
            source = Path(scratch) / "view_critic.pt"
            view_critic = fit_view_critic(args.run, source).__dict__
            print(f"fitted a critic of the seat's view in place of the oracle critic: {view_critic}")
        policy = export_policy(source, target)
    row = _score(task, args.deals, args.workers)
    record = {
        "task": task.name, "config_file": str(args.config) if args.config else None,
        "config": policy["config"],
        "training": {"iterations": policy["iteration"], "engine_steps": policy["global_step"],
                     "seconds": round(policy["elapsed_s"], 1),
                     "last_eval_win_rate_vs_random": history[-1].get("eval_win_rate_vs_random")},
        "evaluation": row,
        "view_critic": view_critic,
    }
    if "averaged_from" in checkpoint:  # a model soup (scripts/average_checkpoints.py)
        record["training"]["averaged_from"] = checkpoint["averaged_from"]
    if "distillation" in checkpoint:  # fine-tuned on a teacher's moves (domino-distill)
        record["training"]["distillation"] = checkpoint["distillation"]
    _write(target, record)
    return 0


def transfer(task: Task, source: Task, deals: int, workers: int) -> int:
    """Ship ``source``'s baseline as ``task``'s: same game, same observation and action shapes."""
    if task.game != source.game:
        raise SystemExit(f"cannot transfer a {source.game} policy to {task.name}, a {task.game} task")
    target = baseline_path(task.name)
    shutil.copyfile(baseline_path(source.name), target)
    record = json.loads(baseline_path(source.name).with_suffix(".json").read_text())
    record.update(task=task.name, transferred_from=source.name, evaluation=_score(task, deals, workers))
    _write(target, record)
    return 0


def _score(task: Task, deals: int, workers: int) -> dict:
    """The shipped baseline's row on the task's protocol, without the per-deal comparisons."""
    row = score_agent(task, AgentSpec("trained", "trained", {"task": task.name}), deals, workers)
    del row["wins"], row["games"]
    return row


def _write(target: Path, record: dict) -> None:
    target.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    row = record["evaluation"]
    print(f"wrote {target} ({target.stat().st_size / 1024:.0f} KiB) and {target.with_suffix('.json').name}")
    print(json.dumps(record["training"]), json.dumps({k: row[k] for k in ("summary", "versus", "elapsed_s")}))


if __name__ == "__main__":
    raise SystemExit(main())
