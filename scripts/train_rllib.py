"""Train a policy by masked self-play on Ray RLlib (needs the ``rllib`` extra).

    scripts/train_rllib.py --config configs/rllib/block_2p.yaml [--set FIELD=VALUE ...]
                           [--address auto] [--num-env-runners N]

Overrides use dotted field names and YAML values as in ``domino-train``
(``--set ppo.lr=3e-4 --set game.options.variant=draw``); every field is listed with its meaning in
``training/rllib/config.py``. ``--address auto`` joins the Ray cluster started on this machine with
``ray start`` (without it a local Ray starts and stops with the run); ``--num-env-runners`` overrides
``num_env_runners``. The checkpoint plays as ``make_bot(game, "rllib", path=<run>/checkpoint)``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from domino_env_training.config import ConfigError
from domino_env_training.rllib.config import load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", type=Path, help="YAML run config (defaults: training/rllib/config.py)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="override a config field, e.g. ppo.lr=3e-4 (repeatable)",
    )
    parser.add_argument("--address", help="Ray cluster to join ('auto': the one `ray start` began here)")
    parser.add_argument("--num-env-runners", type=int, help="remote env runners (overrides num_env_runners)")
    parser.add_argument("--no-progress", action="store_true", help="no line per iteration")
    args = parser.parse_args(argv)
    overrides = list(args.overrides)
    if args.num_env_runners is not None:
        overrides.append(f"num_env_runners={args.num_env_runners}")
    try:
        config = load_config(args.config, overrides)
    except ConfigError as err:
        parser.error(str(err))
    from domino_env_training.rllib.selfplay import evaluate_checkpoint, train  # imports Ray

    result = train(config, address=args.address, progress=not args.no_progress)
    print(
        f"run {result.run_path}: {result.env_steps} env steps in {result.iterations} iterations, "
        f"{result.seconds:.0f} s ({result.env_steps / result.seconds:.0f} steps/s); "
        f"checkpoint {result.checkpoint}"
    )
    if config.harness_deals:
        evaluation = evaluate_checkpoint(config, result.checkpoint)
        (result.run_path / "evaluation.md").write_text(evaluation.to_markdown())
        print(evaluation.to_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
