"""Texas 42 throughput: random play through ``raw_env`` and ``env``, observing every step.

Each agent-step is one decision: ``last()`` (observation and mask of the agent to act), a uniform
pick among the legal actions, ``step``. Finished agents' ``step(None)`` calls and resets are timed
but not counted. Usage: ``.venv/bin/python scripts/bench_texas42.py [--steps N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from domino_env import texas42_v0

SETTINGS: dict[str, dict] = {
    "standard, hand episodes": {},
    "every option, game episodes": {
        "nello": "low",
        "plunge": True,
        "sevens": True,
        "forced_bid": True,
        "episode": "game",
    },
}


def agent_steps_per_second(make: Callable, steps: int, seed: int) -> float:
    """Random play for ``steps`` decisions; returns decisions per second."""
    env = make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        done += 1
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| setting | raw_env agent-steps/s | env agent-steps/s |")
    print("|---|---|---|")
    for name, options in SETTINGS.items():
        raw = agent_steps_per_second(lambda o=options: texas42_v0.raw_env(**o), args.steps, args.seed)
        wrapped = agent_steps_per_second(lambda o=options: texas42_v0.env(**o), args.steps, args.seed)
        print(f"| {name} | {raw:,.0f} | {wrapped:,.0f} |")


if __name__ == "__main__":
    main()
