"""Mean seconds per move of several agents on the same positions, to compare them at equal time.

    python scripts/time_per_move.py --option variant=block --games 4 \
        --agents "search:budget=300" \
        "guided=search:budget=470,network=domino_env/baselines/Block2p.pt,exact_tiles=6"

Positions come from games the first agent plays for every seat (deals from ``--seed``); at every
decision each agent is timed on the same view, in an order rotated per decision, so load changes
hit every agent alike. Forced moves count too (every agent answers them at once), as they do in a
game. Each agent first answers one position of another deal untimed, so one-time costs (the
compiled solver's loading) are not counted as a move's. Prints each agent's mean milliseconds per
move and its ratio to the first agent's.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from domino_env.cli.evaluate import rule_option
from domino_env.evaluation import AgentSpec, GameSetup, build_agents


def time_agents(setup: GameSetup, specs: list[AgentSpec], games: int, seed: int) -> np.ndarray:
    """Seconds per decision, ``(decisions, agents)``, every agent timed on every decision."""
    agents = build_agents(setup, specs)
    warm_up = setup.new_engine(np.random.default_rng([seed, games]))  # one-time costs (loading compiled
    for agent in agents:  # code, building tables) are not a move's: each agent answers once untimed
        agent.act(warm_up.view(warm_up.current_player), np.random.default_rng(seed))
    rows = []
    for game in range(games):
        engine = setup.new_engine(np.random.default_rng([seed, game]))
        while not engine.is_terminal:
            view = engine.view(engine.current_player)
            row, moves = [0.0] * len(agents), [0] * len(agents)
            for k in range(len(agents)):
                i = (k + len(rows)) % len(agents)
                start = time.perf_counter()
                moves[i] = agents[i].act(view, np.random.default_rng([seed, game, len(rows)]))
                row[i] = time.perf_counter() - start
            rows.append(row)
            engine.apply(moves[0])
    return np.array(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="dominoes")
    parser.add_argument("--option", type=rule_option, action="append", default=[], help="rule option k=v")
    parser.add_argument("--agents", nargs="+", required=True, help="agent specs, as domino-evaluate")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    specs = [AgentSpec.parse(text) for text in args.agents]
    seconds = time_agents(GameSetup(args.game, dict(args.option)), specs, args.games, args.seed)
    means = seconds.mean(axis=0)
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"{len(seconds)} decisions of {args.games} games, load average {load}")
    for spec, mean in zip(specs, means, strict=True):
        print(f"{spec.label}: {mean * 1000:.3f} ms/move, {mean / means[0]:.3f}x the first's time"
              f" (the first / this: {means[0] / mean:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
