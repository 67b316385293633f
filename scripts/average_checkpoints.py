"""Average the network weights of runs fine-tuned from one starting point (a model soup).

    python scripts/average_checkpoints.py --out runs/soup/last.pt runs/a/last.pt runs/b/last.pt

The result is a checkpoint that the evaluation harness, the ladder (``checkpoint:path=...``) and
``scripts/export_baseline.py --run`` read like any other; it records its sources in
``averaged_from`` (``domino_env_training.checkpoints.average_checkpoints``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from domino_env_training.checkpoints import average_checkpoints


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+", type=Path, help="training checkpoints of one network shape")
    parser.add_argument("--out", required=True, type=Path, help="where to write the averaged checkpoint")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    soup = average_checkpoints(args.sources, args.out)
    print(f"wrote {args.out}: the mean of {len(args.sources)} networks, {soup['global_step']:,} engine steps "
          f"and {soup['elapsed_s']:.0f} s of training in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
