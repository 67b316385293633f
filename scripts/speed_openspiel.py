"""OpenSpiel's information-set MCTS against the project's ``search`` bot on duplicate deals.

    .venv/bin/python scripts/speed_openspiel.py                      # Block 2p, 10 deals
    .venv/bin/python scripts/speed_openspiel.py --game texas42 --deals 4 --simulations 50

A benchmark row, not a test: OpenSpiel's ``ISMCTSBot`` (random rollouts, ``--simulations`` per move,
seated through the ``openspiel`` bot of ``domino_env.integrations``) plays the ``search`` bot
through the evaluation harness (``domino_env.evaluation``: every deal played in both lineups, 95%
intervals over deals), one round or hand per game, as OpenSpiel's games are. Prints the harness's
table and the seconds each game took. Needs the openspiel extra (``pip install -e '.[openspiel]'``).
"""

from __future__ import annotations

import argparse
import time

from domino_env.evaluation import AgentSpec, GameSetup, evaluate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dominoes", choices=("dominoes", "texas42"))
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=100, help="IS-MCTS simulations per move")
    parser.add_argument("--budget", type=int, help="the search bot's budget (default: the bot's own)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    search = AgentSpec("search", "search", {} if args.budget is None else {"budget": args.budget})
    ismcts = AgentSpec(f"ismcts{args.simulations}", "openspiel", {"simulations": args.simulations})
    start = time.perf_counter()
    result = evaluate(
        GameSetup(args.game), [ismcts, search], args.deals, seed=args.seed, workers=args.workers
    )
    elapsed = time.perf_counter() - start
    print(
        f"## {args.game}: OpenSpiel IS-MCTS ({args.simulations} simulations) vs search, "
        f"{args.deals} duplicate deals, {len(result.records)} games\n"
    )
    print(result.to_markdown())
    print(f"\n{elapsed:.1f} s, {elapsed / len(result.records):.2f} s per game ({args.workers} worker(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
