"""Train a policy by self-play (the ``domino-train`` command).

    domino-train --config block_2p [--set FIELD=VALUE ...] [--resume | --overwrite] [--threads 1]

``--config`` takes a YAML file or the name of a shipped config (``domino-train --list-configs``).

Overrides use dotted field names and YAML values, e.g. ``--set ppo.lr=3e-4 --set seed=2
--set game.options.num_players=3``; every field is listed with its meaning in
``domino_env_training.config``. ``--resume`` continues from ``<run_dir>/<name>/last.pt`` (a fresh run
when there is none yet) if the config equals the checkpoint's but for the fields in
``domino_env_training.config.RESUMABLE_FIELDS`` (how long to train, evaluation and checkpoint cadence,
where the run lives); a run that already has a checkpoint is started again only with ``--overwrite``.
"""

from __future__ import annotations

import argparse
import sys

import torch

from domino_env_training.checkpoints import CheckpointError
from domino_env_training.config import ConfigError, load_config, shipped_configs
from domino_env_training.ppo import history_last, train


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", help="YAML run config, a file or a shipped config's name (block_2p)")
    parser.add_argument("--list-configs", action="store_true", help="print the shipped configs' names")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                        help="override a config field, e.g. ppo.lr=3e-4 (repeatable)")
    existing = parser.add_mutually_exclusive_group()
    existing.add_argument("--resume", action="store_true", help="continue from the run's last checkpoint")
    existing.add_argument("--overwrite", action="store_true",
                          help="start the run again even if it already has a checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default); 1 lets two runs share two cores")
    args = parser.parse_args(argv)
    if args.list_configs:
        print("\n".join(shipped_configs()))
        return 0
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        config = load_config(args.config, args.overrides)
        result = train(config, resume=args.resume, overwrite=args.overwrite, progress=not args.no_progress)
    except (ConfigError, CheckpointError) as err:
        parser.error(str(err))
    print(f"run {result.run_path}: {result.global_step} steps in {result.iteration} iterations; "
          f"win rate vs random {history_last(result.history, 'eval_win_rate_vs_random'):.3f}; "
          f"checkpoint {result.run_path / 'last.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
