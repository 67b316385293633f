"""Copy the scripted bot, then distill the search into the copy round after round, in one command.

    python scripts/expert_iteration.py --config all_fives_2p_imitation --seed 89 --name af_ei_s89 \
        --teacher "search:budget=200" --temperature 3 --rounds 4 --games 12000 --distill-seed 3001

The All Fives 2p recipe (docs/results.md, "The Fives games on the CPU"):

1. the config's imitation stage alone (``domino-train --set total_steps=0``): the network copies
   the scripted bot, run ``<name>_copy``, seed ``--seed``;
2. round ``k`` of ``--rounds``: ``domino-distill`` from the policy of the round before (the copy
   first), ``--games`` games on ``--workers`` processes, seed ``--distill-seed + k - 1``, half the
   games played by the teacher (DAgger), into ``<name>/round_<k>.pt``, its labels kept in
   ``<name>/labels_<k>.npz`` (``domino-distill --load-labels`` fine-tunes on them again);
3. the last round is also ``<name>/last.pt``, where the ladder and ``scripts/export_baseline.py``
   read a run.

A stage whose output exists is skipped, so the same command continues an interrupted recipe.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from domino_env_training.checkpoints import CHECKPOINT_NAME
from domino_env_training.config import load_config
from domino_env_training.distill import SOFTENED

TRAIN = [sys.executable, "-m", "domino_env_training.cli", "--threads", "1", "--no-progress"]
DISTILL = [sys.executable, "-m", "domino_env_training.distill"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", required=True,
                        help="a config with an imitation stage (file or shipped name)")
    parser.add_argument("--seed", type=int, required=True, help="the copy's seed")
    parser.add_argument("--name", required=True, help="the recipe's run name; the copy is <name>_copy")
    parser.add_argument("--teacher", required=True, help='the agent distilled, e.g. "search:budget=200"')
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", type=int, required=True, help="games labelled a round")
    parser.add_argument("--distill-seed", type=int, required=True, help="round k's seed is this plus k - 1")
    parser.add_argument("--temperature", type=float, default=None, help="domino-distill --temperature")
    parser.add_argument("--soften", choices=SOFTENED, default="mean", help="domino-distill --soften")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="domino-train override for the copy (repeatable)")
    args = parser.parse_args(argv)
    if not load_config(args.config, args.set).imitation.teacher:
        parser.error(f"--config {args.config}: it has no imitation stage (imitation.teacher) to start from")
    if args.rounds < 1:
        parser.error(f"--rounds must be 1 or more, got {args.rounds}")

    sets = [f"seed={args.seed}", f"name={args.name}_copy", *args.set, "total_steps=0"]
    copy = load_config(args.config, sets).run_path / CHECKPOINT_NAME
    if not copy.exists():
        overrides = [arg for value in sets for arg in ("--set", value)]
        subprocess.run(TRAIN + ["--config", args.config, *overrides], check=True)
    folder = copy.parent.parent / args.name
    folder.mkdir(parents=True, exist_ok=True)
    policy = copy
    for k in range(1, args.rounds + 1):
        out = folder / f"round_{k}.pt"
        if not out.exists():
            command = DISTILL + ["--checkpoint", str(policy), "--teacher", args.teacher,
                                 "--games", str(args.games), "--seed", str(args.distill_seed + k - 1),
                                 "--workers", str(args.workers), "--soften", args.soften,
                                 "--save-labels", str(folder / f"labels_{k}.npz"), "--out", str(out)]
            if args.temperature is not None:
                command += ["--temperature", str(args.temperature)]
            subprocess.run(command, check=True)
        policy = out
    shutil.copyfile(policy, folder / CHECKPOINT_NAME)
    print(f"wrote {folder / CHECKPOINT_NAME}: round {args.rounds} of distilling {args.teacher} into {copy}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
