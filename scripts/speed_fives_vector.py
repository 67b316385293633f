"""Batched fives engines beside the batched Block engine: agent-steps per second, interleaved.

    .venv/bin/python scripts/speed_fives_vector.py                      # 4,096 games, 3 s each
    .venv/bin/python scripts/speed_fives_vector.py --games 16384 --seconds 10

Each case steps ``--games`` games at once with uniformly random legal actions drawn from each
step's masks (``sample_legal``, as ``domino-speed``'s ``vector`` section does), or the batched
``greedy``'s moves where the case says so (the scripted opponent of training), and the compact
observation built every step. The cases run in alternating short slices, so load drifts on a shared
machine hit them alike: compare the ratios to Block 2p (``VectorLineGame``) within one run, not
the absolute rates across runs. The load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from domino_env.bots.batched import make_batched_bot
from domino_env.vector.batch import sample_legal

REFERENCE = "Block 2p"
FIVES = "domino_env.vector.fives:VectorFivesGame"
CASES: dict[str, tuple] = {
    REFERENCE: ("domino_env.vector.line:VectorLineGame", {"variant": "block", "num_players": 2}),
    "All Fives 2p": (FIVES, {"variant": "all_fives", "num_players": 2}),
    "All Fives 2p, one hand": (FIVES, {"variant": "all_fives", "num_players": 2, "episode": "hand"}),
    "All Fives 4p teams": (FIVES, {"variant": "all_fives", "num_players": 4}),
    "Fives and Threes 2p": (FIVES, {"variant": "fives_and_threes", "num_players": 2}),
    "All Fives 2p, greedy plays": (FIVES, {"variant": "all_fives", "num_players": 2}, ("fives", "greedy")),
    "All Fives 4p teams, greedy plays": (FIVES, {"variant": "all_fives", "num_players": 4},
                                         ("fives", "greedy")),
}


def engine_class(path: str) -> type:
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def runner(path: str, options: dict[str, Any], num_envs: int, steps: int,
           bot: tuple[str, str] | None = None) -> Callable[[], int]:
    """``steps`` steps of ``num_envs`` games per call, random legal moves or, with ``bot`` (game, bot
    name), that batched bot's moves for every seat; returns the agent-steps taken."""
    engine = engine_class(path)(num_envs, seed=0, **options)
    rng = np.random.default_rng(0)
    choose = make_batched_bot(*bot, options) if bot else lambda obs, mask, rng: sample_legal(mask, rng)
    state = {"batch": engine.reset()}

    def run() -> int:
        for _ in range(steps):
            batch = state["batch"]
            state["batch"] = engine.step(choose(batch.obs, batch.mask, rng))
        return num_envs * steps

    return run


def interleaved(runs: dict[str, Callable[[], int]], seconds: float, rounds: int = 10) -> dict[str, float]:
    """Agent-steps per second of each runner, given ``seconds`` each in ``rounds`` alternating slices."""
    steps, spent = dict.fromkeys(runs, 0), dict.fromkeys(runs, 0.0)
    for _ in range(rounds):
        for name, run in runs.items():
            deadline = time.perf_counter() + seconds / rounds
            while (now := time.perf_counter()) < deadline:
                steps[name] += run()
                spent[name] += time.perf_counter() - now
    return {name: steps[name] / spent[name] for name in runs}


def compare(cases: dict[str, tuple], reference: str, description: str) -> None:
    """The command line of this script and its siblings: time ``cases`` (engine path, options and
    optionally ``runner``'s bot), each against ``reference`` (one of them, always run) in the same
    interleaved run, and print the rates."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4096, help="games stepped at once")
    parser.add_argument("--seconds", type=float, default=3.0, help="timing budget per case")
    parser.add_argument("--only", action="append", choices=sorted(cases),
                        help=f"cases ({reference} always runs)")
    args = parser.parse_args()
    names = [reference] + [n for n in cases if n != reference and (not args.only or n in args.only)]
    runs = {name: runner(*cases[name][:2], args.games, 8, *cases[name][2:]) for name in names}
    for run in runs.values():
        run()  # warm caches and first deals, not timed
    rates = interleaved(runs, args.seconds)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.games} games per batch, random legal actions unless a bot plays, {args.seconds:g} s each "
          f"(load {load})")
    width = max(map(len, names)) + 2
    for name in names:
        ratio = rates[name] / rates[reference]
        print(f"  {name:<{width}} {rates[name]:>12,.0f} agent-steps/s   {ratio:.2f}x {reference}")

if __name__ == "__main__":
    compare(CASES, REFERENCE, __doc__)
