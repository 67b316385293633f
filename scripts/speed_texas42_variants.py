"""The batched Texas 42 engine on three-player 42 and Texas 88 beside four-player 42: agent-steps per
second, interleaved.

    .venv/bin/python scripts/speed_texas42_variants.py                 # 4,096 games, 3 s each
    .venv/bin/python scripts/speed_texas42_variants.py --games 16384 --seconds 10

Each case steps ``--games`` games at once (``VectorTexas42Game``, numpy) with uniformly random legal
actions drawn from each step's masks (``sample_legal``) and the compact observation built every step,
timed in alternating short slices beside four-player 42 by ``speed_fives_vector``'s runner, so load
drifts on a shared machine hit every case alike: compare the ratios to four-player 42 within one run,
not the absolute rates across runs. The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from speed_fives_vector import interleaved, runner

TEXAS42 = "domino_env.vector.texas42:VectorTexas42Game"
REFERENCE = "Texas 42 (4 seats)"
CASES: dict[str, dict[str, Any]] = {
    REFERENCE: {},
    "Three-player 42": {"num_players": 3},
    "Texas 88": {"preset": "texas88"},
    "Texas 42 to 7 marks": {"episode": "game"},
    "Three-player 42 to 7 marks": {"num_players": 3, "episode": "game"},
    "Texas 88 to 7 marks": {"preset": "texas88", "episode": "game"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4096, help="games stepped at once")
    parser.add_argument("--seconds", type=float, default=3.0, help="timing budget per case")
    parser.add_argument("--only", action="append", choices=sorted(CASES), help="cases (4-seat always runs)")
    args = parser.parse_args()
    names = [REFERENCE] + [n for n in CASES if n != REFERENCE and (not args.only or n in args.only)]
    runs = {name: runner(TEXAS42, CASES[name], args.games, steps=8) for name in names}
    for run in runs.values():
        run()  # warm caches and first deals, not timed
    rates = interleaved(runs, args.seconds)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.games} games per batch, random legal actions, {args.seconds:g} s each (load {load})")
    for name in names:
        ratio = rates[name] / rates[REFERENCE]
        print(f"  {name:<28} {rates[name]:>12,.0f} agent-steps/s   {ratio:.2f}x {REFERENCE}")


if __name__ == "__main__":
    main()
