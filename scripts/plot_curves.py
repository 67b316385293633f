"""Draw the strength curves of training runs: harness margin (or win rate) with 95% intervals against
engine steps and against wall-clock time, one series per run and harness opponent.

    scripts/plot_curves.py --run seed11=runs/a/last.pt --run seed12=runs/b/last.pt \\
        --target 2.5 --title "Block 4p teams" --out docs/img/curve_block_4p_teams.png

The runs must have been trained with ``harness_every`` > 0 (``training/config.py``). ``--stat crossplay``
draws the cross-play share, the measure of the benchmark tasks' targets.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from domino_env_training.checkpoints import CheckpointError, load_checkpoint
from domino_env_training.curves import harness_keys, plot_strength_curves, with_crossplay_from_eval_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", action="append", required=True, metavar="LABEL=CHECKPOINT",
                        help="a run's label and checkpoint (its last.pt), repeatable")
    parser.add_argument("--stat", choices=("margin", "win_rate", "crossplay"), default="margin",
                        help="crossplay: the share of the benchmark tasks' targets; for runs trained before "
                             "the trainer recorded it, read from the run's eval/ result files")
    parser.add_argument("--target", type=float, help="draw this value as a dashed line")
    parser.add_argument("--title", default="")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    args = parser.parse_args(argv)
    runs = {}
    for item in args.run:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            parser.error(f"--run {item!r}: expected LABEL=CHECKPOINT, e.g. seed11=runs/block_2p/last.pt")
        try:
            history = load_checkpoint(path)["history"]
        except (CheckpointError, OSError, KeyError) as err:
            parser.error(f"--run {item!r}: cannot read the run's history: {err}")
        if args.stat == "crossplay" and not harness_keys(history, args.stat):
            history = with_crossplay_from_eval_files(history, Path(path).parent / "eval")
        if not harness_keys(history, args.stat):
            parser.error(f"--run {item!r}: the run has no harness evaluations (train with harness_every > 0)")
        runs[label] = history
    plot_strength_curves(runs, args.out, args.stat, args.target, args.title)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
