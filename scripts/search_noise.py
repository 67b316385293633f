"""How often a search departs from its first candidate, and by how many standard errors.

    python scripts/search_noise.py --game mexican_train --option num_players=4 --option preset=standard \\
        --search "search:budget=200" --games 12 --share 0.25 --seed 5

A teacher's labels are only as good as its departures: where the best mean over the sampled worlds
beats the first candidate (``greedy``'s choice in the Fives and Mexican Train searches) by less than
its standard error, the label is mostly the noise of the best of a few means. Positions come from
games ``--player`` plays for every seat (deals from ``--seed``), a ``--share`` of the decisions of two
moves or more; the search answers them all at once (``searched``). Prints the decisions, the median
worlds per move, the departures, how many of them gain more than one and two standard errors (the
gain over the first candidate in the same worlds), and the quartiles of the gains and their errors.
"""

from __future__ import annotations

import argparse

import numpy as np

from domino_env.cli.evaluate import rule_option
from domino_env.evaluation import AgentSpec, GameSetup, build_agents
from domino_env.search.decisions import Decision


def sampled_views(setup: GameSetup, player: AgentSpec, games: int, share: float, seed: int) -> list:
    """A ``share`` of the decisions of two moves or more in ``games`` games ``player`` plays alone."""
    agent, rng, views = build_agents(setup, [player])[0], np.random.default_rng(seed), []
    for game in range(games):
        engine = setup.new_engine(np.random.default_rng([seed, game]))
        while not engine.is_terminal:
            view = engine.view(engine.current_player)
            if engine.legal_mask().bit_count() > 1 and rng.random() < share:
                views.append(view)
            engine.apply(agent.act(view, rng))
    return views


def departures(decisions: list[Decision]) -> dict[str, np.ndarray]:
    """Per decision: worlds, and where the best mean is not the first candidate, its gain over the
    first in the same worlds with the gain's standard error."""
    worlds, gains, errors = [], [], []
    for decision in decisions:
        gain = decision.values - decision.values[:, :1]
        worlds.append(len(gain))
        best = int(np.argmax(decision.values.mean(axis=0)))
        if best:
            gains.append(gain[:, best].mean())
            errors.append(gain[:, best].std(ddof=1) / np.sqrt(len(gain)))
    return {"worlds": np.array(worlds), "gains": np.array(gains), "errors": np.array(errors)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="mexican_train")
    parser.add_argument("--option", type=rule_option, action="append", default=[], help="rule option k=v")
    parser.add_argument("--search", default="search:budget=200", help="the search's agent spec")
    parser.add_argument("--player", default="greedy", help="the agent spec that plays the games")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--share", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    setup = GameSetup(args.game, dict(args.option))
    views = sampled_views(setup, AgentSpec.parse(args.player), args.games, args.share, args.seed)
    search = build_agents(setup, [AgentSpec.parse(args.search)])[0]
    answered = search.searched(views, [np.random.default_rng([args.seed, i]) for i in range(len(views))])
    found = departures([d for d in answered if isinstance(d, Decision)])
    gains, errors = found["gains"], found["errors"]
    print(f"{len(found['worlds'])} decisions, median {np.median(found['worlds']):.0f} worlds a move; "
          f"{len(gains)} departures from the first candidate, {(gains > errors).sum()} beyond one "
          f"standard error, {(gains > 2 * errors).sum()} beyond two")
    if len(gains):
        print(f"gain quartiles {np.quantile(gains, [0.25, 0.5, 0.75]).round(2).tolist()}, "
              f"standard error quartiles {np.quantile(errors, [0.25, 0.5, 0.75]).round(2).tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
