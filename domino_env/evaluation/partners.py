"""Partner cross-play: how well an agent plays beside partners it never trained with.

In a partnership game (four seats, two teams: seats 0+2 against 1+3) agents ``A`` and ``B`` form
a team against a fixed opponent team (one agent on both opposing seats). On every duplicate deal
the pair plays on both teams' seats and in both seat orders (``A`` on the team's first seat and
``B`` on its second, then swapped), so the deal's luck cancels and the cell ``(A, B)`` is the
pair's value, whoever sits where. ``A`` with ``A`` is its self-play score; the mean of ``A`` with
every other agent its cross-play score. An agent whose self-play score is far above its
cross-play score relies on conventions only its own copy follows.

Metric: the team's margin per round or hand (its points minus the opponents'), and its win share
(ties 1/2); each deal's games are averaged first, and intervals are 95% normal over deals.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from domino_env.evaluation.harness import AgentError, AgentSpec, GameSetup, map_deals, play_game, worker_state
from domino_env.evaluation.statistics import Interval, mean_interval


def _pair_games(num_agents: int) -> list[tuple[int, int, int]]:
    """``(first, second, team)``: the ordered pairs (self-pairs once) on each team's seats."""
    pairs = [(a, b) for a, b in itertools.product(range(num_agents), repeat=2)]
    return [(a, b, team) for a, b in pairs for team in (0, 1)]


def _play_partner_deal(deal: int) -> list[dict[str, Any]]:
    """Every pair of candidates against the opponent (the last agent) on deal ``deal``."""
    setup, seed, agents = worker_state()
    *candidates, opponent = agents
    records = []
    for i, (a, b, team) in enumerate(_pair_games(len(candidates))):
        seats = [seat for seat in range(4) if setup.side_of(seat) == team]
        seated = [opponent] * 4
        seated[seats[0]], seated[seats[1]] = candidates[a], candidates[b]
        rngs = [np.random.default_rng([seed, deal, i, s]) for s in range(4)]
        engine = play_game(setup, seated, np.random.default_rng([seed, deal]), rngs)
        points, rounds, winner = setup.outcome(engine)
        margin = (points[team] - points[1 - team]) / max(1, rounds)
        win = 0.5 if winner is None else float(winner == team)
        records.append({"deal": deal, "pair": [a, b], "team": team, "margin": margin, "win": win})
    return records


@dataclass
class PartnerResult:
    """``margin[a][b]`` / ``win[a][b]``: the pair's mean and 95% interval (symmetric); ``self_play`` and
    ``cross_play``: per agent; ``gap``: self-play minus cross-play margin, per deal, with its interval."""

    agents: list[str]
    opponent: str
    num_deals: int
    margin: list[list[Interval]]
    win: list[list[Interval]]
    self_play: list[Interval]
    cross_play: list[Interval]
    gap: list[Interval]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def to_markdown(self, unit: str) -> str:
        head = "| partner of \u2193 with \u2192 | " + " | ".join(self.agents) + " |"
        lines = [f"Team margin ({unit}) of the row agent partnered with the column agent against two "
                 f"`{self.opponent}` ({self.num_deals} duplicate deals, 95% intervals):", "", head,
                 "|---" * (len(self.agents) + 1) + "|"]
        for label, row in zip(self.agents, self.margin, strict=True):
            cells = (f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]" for m, lo, hi in row)
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines += ["", "| agent | self-play margin | cross-play margin | self minus cross |",
                  "|---|---|---|---|"]
        for label, s, c, g in zip(self.agents, self.self_play, self.cross_play, self.gap, strict=True):
            lines.append(f"| {label} | {s[0]:+.2f} [{s[1]:+.2f}, {s[2]:+.2f}] | {c[0]:+.2f} [{c[1]:+.2f}, "
                         f"{c[2]:+.2f}] | {g[0]:+.2f} [{g[1]:+.2f}, {g[2]:+.2f}] |")
        return "\n".join(lines) + "\n"


def partner_crossplay(setup: GameSetup, agents: Sequence[AgentSpec | str], opponent: AgentSpec | str,
                      num_deals: int, seed: int = 0, workers: int = 1, progress: bool = False
                      ) -> PartnerResult:
    """The partner cross-play table of ``agents`` against a team of ``opponent`` (module docstring)."""
    specs = [a if isinstance(a, AgentSpec) else AgentSpec.parse(a) for a in agents]
    rival = opponent if isinstance(opponent, AgentSpec) else AgentSpec.parse(opponent)
    if not (setup.num_players == 4 and setup.num_sides == 2):
        raise ValueError("partner cross-play needs a partnership game: four players in two teams")
    if len(specs) < 2 or len({s.label for s in specs}) != len(specs):
        raise AgentError(f"partner cross-play needs two or more agents with distinct labels, got "
                         f"{[s.label for s in specs]}")
    records = map_deals(_play_partner_deal, setup, [*specs, rival], num_deals, seed, workers, progress)
    n = len(specs)
    margin = np.zeros((num_deals, n, n))
    win = np.zeros_like(margin)
    count = np.zeros_like(margin)
    for rec in records:
        a, b = rec["pair"]
        for i, j in {(a, b), (b, a)}:
            margin[rec["deal"], i, j] += rec["margin"]
            win[rec["deal"], i, j] += rec["win"]
            count[rec["deal"], i, j] += 1
    margin /= count
    win /= count
    others = ~np.eye(n, dtype=bool)
    cross = np.stack([margin[:, a, others[a]].mean(axis=1) for a in range(n)], axis=1)
    self_play = np.stack([margin[:, a, a] for a in range(n)], axis=1)
    return PartnerResult(
        agents=[s.label for s in specs], opponent=rival.label, num_deals=num_deals,
        margin=[[mean_interval(margin[:, a, b]) for b in range(n)] for a in range(n)],
        win=[[mean_interval(win[:, a, b]) for b in range(n)] for a in range(n)],
        self_play=[mean_interval(self_play[:, a]) for a in range(n)],
        cross_play=[mean_interval(cross[:, a]) for a in range(n)],
        gap=[mean_interval(self_play[:, a] - cross[:, a]) for a in range(n)],
    )
