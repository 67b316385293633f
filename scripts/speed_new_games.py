"""Single-game environment speed of the new games against Block in the same run.

    .venv/bin/python scripts/speed_new_games.py [--seconds 6]

Random legal play through ``raw_env`` with the observation and mask read at every step (the lean loop
of ``domino_env.cli.speed``), interleaved in short slices so the shared machine's load drifts evenly
over the runners: Block 2p (one round), All Fives 2p and Fives and Threes 2p (one hand; the goal is
within 2x of Block), All Fives 2p as a whole match to 100, and Mexican Train 4p (one round, the
``default`` and ``compact`` encoders). Prints agent steps per second, games per second and the ratio
to Block.
"""

from __future__ import annotations

import argparse

import numpy as np

from domino_env import dominoes_v0, fives_v0, mexican_train_v0
from domino_env.cli.speed import aec_games, interleaved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per runner (default 6)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    runs = {
        "Block 2p (dominoes_v0, one round)": aec_games(dominoes_v0.raw_env, rng),
        "All Fives 2p (fives_v0, one hand)": aec_games(lambda: fives_v0.raw_env(episode="hand"), rng),
        "Fives and Threes 2p (fives_v0, one hand)": aec_games(
            lambda: fives_v0.raw_env(variant="fives_and_threes", episode="hand"), rng
        ),
        "All Fives 2p (fives_v0, match to 100)": aec_games(fives_v0.raw_env, rng),
        "Mexican Train 4p (one round, default)": aec_games(
            lambda: mexican_train_v0.raw_env(episode="round"), rng
        ),
        "Mexican Train 4p (one round, compact)": aec_games(
            lambda: mexican_train_v0.raw_env(episode="round", observation_encoder="compact"), rng
        ),
    }
    results = interleaved(runs, args.seconds)
    _games, block_steps, block_seconds = next(iter(results.values()))
    for name, (games, steps, seconds) in results.items():
        ratio = (steps / seconds) / (block_steps / block_seconds)
        rate = f"{steps / seconds:8.0f} steps/s {games / seconds:8.1f} games/s"
        print(f"{name:42s} {rate}  x{ratio:.2f} of Block")


if __name__ == "__main__":
    main()
