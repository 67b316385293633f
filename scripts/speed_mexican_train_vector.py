"""The batched Mexican Train engine beside the batched Block engine: agent-steps per second, interleaved.

    .venv/bin/python scripts/speed_mexican_train_vector.py                 # 4,096 games, 3 s each
    .venv/bin/python scripts/speed_mexican_train_vector.py --games 16384 --seconds 10

Each case steps ``--games`` games at once with uniformly random legal actions drawn from each step's
masks (``sample_legal``) and the compact observation built every step, timed in alternating short
slices beside Block 2p (``VectorLineGame``) by ``speed_fives_vector``'s runner, so load drifts on a
shared machine hit every case alike: compare the ratios to Block 2p within one run, not the absolute
rates across runs. The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from speed_fives_vector import REFERENCE, interleaved, runner

MEXICAN_TRAIN = "domino_env.vector.mexican_train:VectorMexicanTrainGame"
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    REFERENCE: ("domino_env.vector.line:VectorLineGame", {"variant": "block", "num_players": 2}),
    "Mexican Train 4p": (MEXICAN_TRAIN, {"num_players": 4}),
    "Mexican Train 2p": (MEXICAN_TRAIN, {"num_players": 2}),
    "Mexican Train 8p": (MEXICAN_TRAIN, {"num_players": 8}),
    "Mexican Train 4p cardinal": (MEXICAN_TRAIN, {"num_players": 4, "preset": "cardinal"}),
    "Mexican Train 4p match": (MEXICAN_TRAIN, {"num_players": 4, "episode": "match"}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4096, help="games stepped at once")
    parser.add_argument("--seconds", type=float, default=3.0, help="timing budget per case")
    parser.add_argument("--only", action="append", choices=sorted(CASES), help="cases (Block 2p always runs)")
    args = parser.parse_args()
    names = [REFERENCE] + [n for n in CASES if n != REFERENCE and (not args.only or n in args.only)]
    runs = {name: runner(*CASES[name], args.games, steps=8) for name in names}
    for run in runs.values():
        run()  # warm caches and first deals, not timed
    rates = interleaved(runs, args.seconds)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.games} games per batch, random legal actions, {args.seconds:g} s each (load {load})")
    for name in names:
        ratio = rates[name] / rates[REFERENCE]
        print(f"  {name:<26} {rates[name]:>12,.0f} agent-steps/s   {ratio:.2f}x Block 2p")


if __name__ == "__main__":
    main()
