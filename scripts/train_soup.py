"""Train a policy from scratch, then average fine-tunes of it (a model soup), in one command.

    python scripts/train_soup.py --base draw_3p_boardpan_greedy_heavy \
        --finetune draw_3p_boardpan_finetune --seed 46 --name d3p_soup_s46 --base-set time_budget_s=3300

The Draw3pBoardpan recipe (docs/results.md, "Draw 3p boardpan on the CPU"), under two hours on two
cores:

1. ``--base`` trains from scratch on one thread: seed S, run ``<name>_base``;
2. a critic of the seat's view is fitted in place of its oracle critic
   (``domino_env_training.view_critic``, ``<name>_base/view_critic.pt``), so that the fine-tunes start
   with a critic that reads what they read rather than a fresh one under a trained actor;
3. ``--finetunes`` runs of ``--finetune`` start from it side by side, one thread each: seeds S+1,
   S+2, ..., runs ``<name>_ft1``, ``<name>_ft2``, ...;
4. their weights are averaged into ``<name>/last.pt`` (``checkpoints.average_checkpoints``), a
   checkpoint that the ladder, ``domino-evaluate`` and ``scripts/export_baseline.py`` read like a run's.

``--set`` applies to every stage, ``--base-set`` and ``--finetune-set`` to one (``domino-train``'s
overrides). Every run is started with ``--resume``, so the same command continues an interrupted
recipe where it stopped.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import torch

from domino_env_training.checkpoints import CHECKPOINT_NAME, average_checkpoints
from domino_env_training.config import load_config
from domino_env_training.view_critic import fit_view_critic

TRAIN = [sys.executable, "-m", "domino_env_training.cli", "--threads", "1", "--no-progress", "--resume"]


def stage_command(config: str, seed: int, name: str, overrides: list[str]) -> list[str]:
    """``domino-train`` for one run of the recipe; ``overrides`` come last, so they win."""
    sets = [f"seed={seed}", f"name={name}", *overrides]
    return TRAIN + ["--config", config] + [arg for value in sets for arg in ("--set", value)]


def run_path(config: str, name: str, overrides: list[str]) -> Path:
    """Where ``domino-train`` puts run ``name`` of ``config`` under ``overrides`` (their ``run_dir``)."""
    return load_config(config, [*overrides, f"name={name}"]).run_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="config trained from scratch (file or shipped name)")
    parser.add_argument("--finetune", required=True,
                        help="config of the fine-tunes; its network.init_from is set to the base's policy")
    parser.add_argument("--seed", type=int, required=True, help="the base's seed; fine-tune k gets seed+k")
    parser.add_argument("--name", required=True, help="the soup's run name; stages are <name>_base, _ft<k>")
    parser.add_argument("--finetunes", type=int, default=2, help="fine-tunes side by side (default 2)")
    stages = (("--set", "every stage"), ("--base-set", "the base"), ("--finetune-set", "the fine-tunes"))
    for flag, stage in stages:
        parser.add_argument(flag, action="append", default=[], metavar="FIELD=VALUE",
                            help=f"domino-train override for {stage} (repeatable)")
    parser.add_argument("--critic-rollouts", type=int, default=20, help="view critic fit: rollouts")
    parser.add_argument("--critic-games", type=int, default=4096, help="view critic fit: games a rollout")
    args = parser.parse_args(argv)
    if args.finetunes < 2:
        parser.error(f"--finetunes: a soup averages two runs or more, got {args.finetunes}")
    base_sets, tune_sets = args.set + args.base_set, args.set + args.finetune_set

    base_name = f"{args.name}_base"
    subprocess.run(stage_command(args.base, args.seed, base_name, base_sets), check=True)
    base = run_path(args.base, base_name, base_sets)
    start = base / "view_critic.pt"
    torch.set_num_threads(1)
    fit = fit_view_critic(base / CHECKPOINT_NAME, start, rollouts=args.critic_rollouts,
                          num_envs=args.critic_games)
    print(f"{start}: view critic fitted on {fit.positions:,} decisions, explained variance "
          f"{fit.explained_variance:.3f} (the oracle critic's {fit.oracle_explained_variance})", flush=True)

    tunes = [(args.seed + k, f"{args.name}_ft{k}") for k in range(1, args.finetunes + 1)]
    sets = [*tune_sets, f"network.init_from={start}"]
    running = [subprocess.Popen(stage_command(args.finetune, seed, name, sets)) for seed, name in tunes]
    failed = [proc.args for proc in running if proc.wait() != 0]
    if failed:
        raise SystemExit(f"a fine-tune failed: {failed}")

    sources = [run_path(args.finetune, name, sets) / CHECKPOINT_NAME for _, name in tunes]
    target = run_path(args.finetune, args.name, sets) / CHECKPOINT_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    average_checkpoints(sources, target)
    print(f"wrote {target}: the mean of {len(sources)} fine-tunes of {base / CHECKPOINT_NAME}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
