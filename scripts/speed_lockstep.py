"""The lockstep evaluation beside the one-game-at-a-time harness, on the same deals, in one process.

    .venv/bin/python scripts/speed_lockstep.py                                   # Block 2p, trained vs greedy
    .venv/bin/python scripts/speed_lockstep.py --game texas42 --agents trained heuristic --deals 200

Both runs play the same games (``tests/evaluation/test_lockstep.py``); this checks their records
are equal and prints each one's seconds and the ratio. Run them in alternating order with
``--repeats`` to even out load drift on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import time

from domino_env.cli.evaluate import rule_option
from domino_env.evaluation import GameSetup, evaluate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="dominoes")
    parser.add_argument("--option", type=rule_option, action="append", default=[], help="rule option k=v")
    parser.add_argument("--agents", nargs="+", default=["trained", "greedy"])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    setup = GameSetup(args.game, dict(args.option or [("variant", "block")]))
    seconds = {False: 0.0, True: 0.0}
    records = {}
    evaluate(setup, args.agents, 2, seed=1, lockstep=True)  # one-time loading, untimed
    for r in range(args.repeats):
        for lockstep in (r % 2 == 1, r % 2 == 0):
            start = time.perf_counter()
            records[lockstep] = evaluate(setup, args.agents, args.deals, seed=0, lockstep=lockstep).records
            seconds[lockstep] += time.perf_counter() - start
    assert records[True] == records[False], "the lockstep records differ from one at a time"
    print(f"{args.game} {setup.options} {' vs '.join(args.agents)}, {args.deals} deals x {args.repeats}, "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"  one at a time: {seconds[False] / args.repeats:.2f} s")
    ratio = seconds[False] / seconds[True]
    print(f"  lockstep:      {seconds[True] / args.repeats:.2f} s  ({ratio:.1f}x faster)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
