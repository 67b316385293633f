"""The project's main job on small defaults: a short self-play training run, then an evaluation.

    .venv/bin/python scripts/main_job.py [--config configs/smoke.yaml] [--deals 200] [--workers 2]

1. Trains a Block 2p (pagat) policy by self-play PPO with ``configs/smoke.yaml`` (a few seconds
   on a quiet two-core machine), writing checkpoints, TensorBoard logs and a learning curve to ``runs/smoke``
   (started again on every call: the job overwrites its own run).
2. Evaluates the trained checkpoint against the ``random`` and ``greedy`` bots on duplicate deals
   (every deal replayed with the seats rotated) and prints the table with 95% intervals; the JSON,
   Markdown and heat-map files land in ``runs/smoke/eval``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from domino_env.evaluation import GameSetup, evaluate
from domino_env_training.config import ConfigError, load_config
from domino_env_training.ppo import train

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "smoke.yaml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                        help="override a config field, e.g. total_steps=81920 (repeatable)")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals in the evaluation")
    parser.add_argument("--workers", type=int, default=2, help="evaluation processes")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (logs, CI)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config, args.overrides)
    except ConfigError as err:
        parser.error(str(err))

    print(f"== training {config.name}: {config.total_steps} steps of self-play on {config.game.name}")
    result = train(config, overwrite=True, progress=not args.no_progress)
    checkpoint = result.run_path / "last.pt"

    print(f"\n== evaluating {checkpoint} against random and greedy, {args.deals} duplicate deals")
    setup = GameSetup(config.game.name, dict(config.game.options))
    evaluation = evaluate(setup, [f"trained=checkpoint:path={checkpoint}", "greedy", "random"],
                          args.deals, seed=config.seed, workers=args.workers, progress=not args.no_progress)
    out = result.run_path / "eval"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(evaluation.to_json())
    (out / "results.md").write_text(evaluation.to_markdown())
    evaluation.save_heatmap(out / "crossplay.png")
    print(evaluation.to_markdown())
    print(f"\nwrote {out}/results.json, results.md, crossplay.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
