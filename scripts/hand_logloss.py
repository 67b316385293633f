"""Score a checkpoint's hand head (``network.hand_head_coef`` > 0) against the uniform deal sampler.

    scripts/hand_logloss.py runs/x/last.pt [--positions 400] [--samples 100] [--seed 3]

Prints both log-losses (nats per seat-tile pair) and the network's minus the sampler's with its 95%
interval over positions; what is measured is in ``training/hand_beliefs.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from domino_env_training.hand_beliefs import hand_log_loss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--positions", type=int, default=400, help="positions to score (default 400)")
    parser.add_argument("--samples", type=int, default=100, help="sampled deals per position (default 100)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    if args.positions < 2 or args.samples < 1:
        parser.error("--positions must be at least 2 and --samples at least 1")
    try:
        scores = hand_log_loss(args.checkpoint, args.positions, args.samples, args.seed)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    print(json.dumps(scores, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
