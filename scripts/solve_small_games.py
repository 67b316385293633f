"""Exact exploitability on small line games: the issue-43 targets and docs/exploitability.md's table.

    python scripts/solve_small_games.py targets   # double-3 Block 2p hands of 3: timed
    python scripts/solve_small_games.py table     # every small game: sizes, values, bots' NashConv
    python scripts/solve_small_games.py score --game "block d3 h3" --agents greedy runs/x/last.pt

``targets`` times (1) the exact NashConv of a given policy (``random``'s uniform policy and
``greedy``), the tree built from nothing, and (2) CFR+ from nothing to NashConv <= 0.01 points per
round. ``table`` solves each small game with CFR+ and scores ``random``, ``greedy`` and, where it
plays fast enough (``--search-games``), ``search``; it prints the markdown rows of the docs.
``score`` gives the exact NashConv of any agent the harness names (a bot, a checkpoint file, user
code) on one small game.
Figures are points per round (seat 0's zero-sum points; NashConv sums both seats' gains).
"""

from __future__ import annotations

import argparse
import time

from domino_env.bots.base import make_bot
from domino_env.evaluation.exploitability import (
    agent_policy,
    build_tree,
    exploitability,
    leader_value,
    small_game,
    solve,
    uniform_policy,
)
from domino_env.evaluation.ladder import resolve_agent

GAMES = {  # name -> small_game options
    "block d2 h2": {"variant": "block", "max_pips": 2, "hand_size": 2},
    "block d2 h3": {"variant": "block", "max_pips": 2, "hand_size": 3},
    "block d3 h2": {"variant": "block", "max_pips": 3, "hand_size": 2},
    "block d3 h3": {"variant": "block", "max_pips": 3, "hand_size": 3},
    "block d4 h2": {"variant": "block", "max_pips": 4, "hand_size": 2},
    "draw d2 h2 boardpan": {"variant": "draw", "max_pips": 2, "hand_size": 2, "preset": "boardpan"},
    "block d2 h2 boardpan": {"variant": "block", "max_pips": 2, "hand_size": 2, "preset": "boardpan"},
    "block d3 h2 boardpan": {"variant": "block", "max_pips": 3, "hand_size": 2, "preset": "boardpan"},
    "block d3 h3 boardpan": {"variant": "block", "max_pips": 3, "hand_size": 3, "preset": "boardpan"},
}


def targets() -> None:
    config = small_game("block", max_pips=3, hand_size=3)
    for name, policy in (("random (uniform)", uniform_policy),
                         ("greedy", agent_policy(make_bot("dominoes", "greedy")))):
        start = time.perf_counter()
        tree = build_tree(config)
        built = time.perf_counter() - start
        score = exploitability(tree, policy)
        took = time.perf_counter() - start
        print(f"NashConv of {name}: {score:.4f} points per round; {took:.1f} s in all "
              f"({built:.1f} s building {tree.num_nodes} nodes, {tree.num_infosets} states)", flush=True)
    start = time.perf_counter()
    solution = solve(build_tree(config), iterations=1000, target=0.01, check_every=10)
    print(f"CFR+ to NashConv {solution.nash_conv:.4f} in {solution.iterations} iterations: "
          f"{time.perf_counter() - start:.1f} s in all, tree included; value {solution.value:+.4f}; "
          f"NashConv every 10: {[round(c, 4) for _, c in solution.history]}", flush=True)


def table(games: list[str], search_games: list[str], search_samples: int, target: float) -> None:
    rows = []
    for name in games:
        options = GAMES[name]
        start = time.perf_counter()
        tree = build_tree(small_game(**options))
        built = time.perf_counter() - start
        start = time.perf_counter()
        solution = solve(tree, iterations=2000, target=target, check_every=25)
        solved = time.perf_counter() - start
        scores = {"random": exploitability(tree, uniform_policy),
                  "greedy": exploitability(tree, agent_policy(make_bot("dominoes", "greedy")))}
        if name in search_games:
            start = time.perf_counter()
            policy = agent_policy(make_bot("dominoes", "search"), samples=search_samples)
            scores["search"] = exploitability(tree, policy)
            print(f"{name}: search scored in {time.perf_counter() - start:.1f} s", flush=True)
        search = f"{scores['search']:.3f}" if "search" in scores else "-"
        cfr = f"{solution.nash_conv:.4f} ({solution.iterations} it, {solved:.1f} s)"
        bots = f"{scores['random']:.3f} | {scores['greedy']:.3f} | {search}"
        rows.append(f"| {name} | {tree.num_nodes:,} | {tree.num_infosets:,} | {built:.1f} | "
                    f"{solution.value:+.4f} | {leader_value(tree, solution.table):+.3f} | {cfr} | {bots} |")
        print(rows[-1], flush=True)
    print("\n| game | nodes | states | build s | value (seat 0) | leader's value | CFR+ NashConv "
          "(iterations, s) | random | greedy | search |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


def score(game: str, agents: list[str]) -> None:
    start = time.perf_counter()
    tree = build_tree(small_game(**GAMES[game]))
    print(f"{game}: {tree.num_nodes} nodes, {tree.num_infosets} states, built in "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    for text in agents:
        spec = resolve_agent(text, "dominoes")
        start = time.perf_counter()
        nash_conv = exploitability(tree, agent_policy(make_bot("dominoes", spec.bot, **spec.kwargs)))
        print(f"NashConv of {text}: {nash_conv:.4f} points per round ({time.perf_counter() - start:.1f} s)",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("targets", "table", "score"))
    parser.add_argument("--game", default="block d3 h3", choices=list(GAMES), help="the game of score")
    parser.add_argument("--agents", nargs="*", default=["greedy"],
                        help="the agents of score: bots (name:key=value), checkpoint files, user code")
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES), metavar="GAME",
                        help=f"the games of the table (default: all of {list(GAMES)})")
    parser.add_argument("--search-games", nargs="*", default=["block d2 h2", "draw d2 h2 boardpan"],
                        help="games on which the search bot is scored (slow: it searches at every state)")
    parser.add_argument("--search-samples", type=int, default=4,
                        help="moves sampled per state to estimate search's (stochastic) policy")
    parser.add_argument("--target", type=float, default=0.005, help="CFR+ stops at this NashConv")
    args = parser.parse_args()
    if args.what == "targets":
        targets()
    elif args.what == "score":
        score(args.game, args.agents)
    else:
        table(args.games, args.search_games, args.search_samples, args.target)


if __name__ == "__main__":
    main()
