"""Evaluation harness: any agents, any game, duplicate deals, honest intervals.

**Duplicate deals.** Deal ``d`` is one seed. For every *matchup* (a set of ``min(N, K)`` agents,
``K`` scoring sides: players, or teams) the deal is replayed once per *lineup*: every assignment of
those agents to the sides that uses each of them (all permutations when ``N >= K``; with fewer
agents than sides, e.g. two agents in 3-player Draw, every mix such as ``A B B``, ``B A B``,
``A A B`` ...). Each agent thus holds every seat and every team equally often with the same tiles,
and the luck of the deal cancels. A side holds both partner seats, so "teams swapped" is a lineup.

**Statistics.** The unit of independence is the deal: the games of one (deal, matchup) group share
their tiles, so per agent they are first averaged within the group, and intervals are taken over
groups. Mean margin and points: normal 95% interval (mean +- 1.96 standard errors over groups).
Win rate (a tie, where nobody scores, counts ``1/K``): 95% percentile bootstrap over groups
(seeded). The cross-play matrix and OpenSkill ratings come from pairwise comparisons of two agents'
sides within a game; each cross-play cell's 95% interval is a percentile bootstrap over deals of
the per-deal share (``crossplay_interval``), since the games of one deal are not independent.

**Reproducibility.** Every random stream is seeded from ``(seed, deal, lineup, seat)``, so a run
is identical with any number of worker processes.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.bots.base import Agent, canonical_game, make_bot
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game

Z95 = 1.959963984540054


# ----- agents and games ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentSpec:
    """A named agent to build in each worker: ``make_bot(game, bot, **kwargs)``."""

    label: str
    bot: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """``"search"``, ``"search:budget=50"``, ``"fast=search:budget=20,rollout=auto"``,
        ``"ppo=checkpoint:path=runs/x.pt"``; values are read as JSON when they parse, else text."""
        label, _, rest = text.partition("=") if "=" in text.split(":")[0] else ("", "", text)
        bot, _, args = rest.partition(":")
        kwargs = {}
        for item in filter(None, args.split(",")):
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"agent option {item!r} in {text!r} must be key=value")
            try:
                kwargs[key] = json.loads(value)
            except json.JSONDecodeError:
                kwargs[key] = value
        return cls(label or text, bot, kwargs)


@dataclass(frozen=True)
class GameSetup:
    """A game and its rule options. ``match``: play whole matches (line games, to the target) or
    games (42, to ``target_marks``) instead of single rounds / hands."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)
    match: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "game", canonical_game(self.game))
        _ = self.config  # validate the options now, not in a worker

    @property
    def config(self) -> LineConfig | Texas42Config:
        if self.game == "dominoes":
            return LineConfig.make(one_round=not self.match, **self.options)
        return Texas42Config.make(**self.options, episode="game" if self.match else "hand")

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_sides(self) -> int:
        return self.config.num_sides

    def side_of(self, seat: int) -> int:
        return self.config.side_of(seat)

    def new_engine(self, rng: np.random.Generator) -> LineGame | Texas42Game:
        return LineGame(self.config, rng) if self.game == "dominoes" else Texas42Game(self.config, rng)

    def outcome(self, engine: LineGame | Texas42Game) -> tuple[list[float], int, int | None]:
        """Per-side points (line games) or marks (42), rounds/hands scored, winning side or None."""
        seats = range(self.num_players)
        if self.game == "dominoes":
            first_seat = {self.side_of(s): s for s in reversed(seats)}
            scores = [engine.scores[first_seat[k]] for k in range(self.num_sides)]
            rounds = len(engine.results)
            if self.match:
                winner = max(range(self.num_sides), key=scores.__getitem__)
            else:
                winners = engine.results[-1].winners
                winner = self.side_of(winners[0]) if winners else None
            return [float(x) for x in scores], rounds, winner
        marks = list(engine.marks)
        return [float(x) for x in marks], engine.hands_scored, max(range(len(marks)), key=marks.__getitem__)


def lineups(num_agents: int, num_sides: int) -> list[tuple[int, ...]]:
    """Every assignment of agents to sides (``lineup[side] = agent``) for every matchup, grouped
    by matchup: all ``min(N, K)``-agent subsets, each on every surjection of the sides onto it."""
    out = []
    for matchup in itertools.combinations(range(num_agents), min(num_agents, num_sides)):
        out += [p for p in itertools.product(matchup, repeat=num_sides) if set(p) == set(matchup)]
    return out


def play_game(setup: GameSetup, agents: Sequence[Agent], rng: np.random.Generator,
              agent_rngs: Sequence[np.random.Generator]) -> LineGame | Texas42Game:
    """One episode with ``agents[seat]`` acting on its own view; returns the finished engine."""
    engine = setup.new_engine(rng)
    while not engine.is_terminal:
        seat = engine.current_player
        engine.apply(int(agents[seat].act(engine.view(seat), agent_rngs[seat])))
    return engine


# ----- one deal (runs in a worker) ----------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(setup: GameSetup, specs: Sequence[AgentSpec], seed: int) -> None:
    _WORKER.update(setup=setup, seed=seed, agents=[make_bot(setup.game, s.bot, **s.kwargs) for s in specs])


def _play_deal(deal: int) -> list[dict[str, Any]]:
    """Every lineup on deal ``deal``: ``{"deal", "lineup", "points", "rounds", "winner"}`` each."""
    setup, seed, agents = _WORKER["setup"], _WORKER["seed"], _WORKER["agents"]
    records = []
    for i, lineup in enumerate(lineups(len(agents), setup.num_sides)):
        seated = [agents[lineup[setup.side_of(s)]] for s in range(setup.num_players)]
        rngs = [np.random.default_rng([seed, deal, i, s]) for s in range(setup.num_players)]
        engine = play_game(setup, seated, np.random.default_rng([seed, deal]), rngs)
        points, rounds, winner = setup.outcome(engine)
        records.append({"deal": deal, "lineup": list(lineup), "points": points, "rounds": rounds,
                        "winner": winner})
    return records


# ----- statistics ---------------------------------------------------------------------------------
def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and normal 95% interval (mean +- 1.96 standard errors; the sample sd, ``n - 1``)."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, -math.inf, math.inf
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


def bootstrap_interval(values: Sequence[float], seed: int,
                       resamples: int = 2000) -> tuple[float, float, float]:
    """Mean and 95% percentile-bootstrap interval (stays inside the values' range, unlike normal)."""
    x = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = x[rng.integers(len(x), size=(resamples, len(x)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(x.mean()), float(low), float(high)


def crossplay_interval(scores_by_deal: dict[int, list[float]], seed: int) -> tuple[float, float, float]:
    """Share of pairwise comparisons won (ties 1/2) and its 95% interval, the deal as the unit:
    each deal's comparisons are averaged first, then the per-deal shares are bootstrapped."""
    return bootstrap_interval([float(np.mean(v)) for _, v in sorted(scores_by_deal.items())], seed)


def _agent_game_stats(record: dict[str, Any], agent: int, num_sides: int) -> tuple[float, float, float]:
    """(margin per round, points per round, win share) of ``agent`` in one game, averaged over
    the sides it holds. Margin: its side's points minus the mean of the other sides'."""
    points, rounds = record["points"], max(1, record["rounds"])
    sides = [k for k, a in enumerate(record["lineup"]) if a == agent]
    margins = [(points[k] - (sum(points) - points[k]) / (num_sides - 1)) / rounds for k in sides]
    win = [1.0 / num_sides if record["winner"] is None else float(record["winner"] == k) for k in sides]
    return float(np.mean(margins)), float(np.mean([points[k] / rounds for k in sides])), float(np.mean(win))


@dataclass
class EvaluationResult:
    """Everything the harness measured; ``to_json``, ``to_markdown`` and ``save_heatmap`` report it."""

    setup: GameSetup
    agents: list[AgentSpec]
    num_deals: int
    seed: int
    records: list[dict[str, Any]]
    summary: list[dict[str, Any]]
    crossplay: list[list[float | None]]
    crossplay_ci: list[list[tuple[float, float, float] | None]]
    ratings: list[dict[str, float]]

    def to_json(self) -> str:
        return json.dumps({
            "game": self.setup.game, "options": self.setup.options, "match": self.setup.match,
            "agents": [asdict(a) for a in self.agents], "num_deals": self.num_deals, "seed": self.seed,
            "summary": self.summary, "crossplay": self.crossplay,
            "crossplay_ci": self.crossplay_ci, "ratings": self.ratings,
            "records": self.records,
        }, indent=1)

    def to_markdown(self) -> str:
        unit = ("marks per hand" if self.setup.game == "texas42" else "points per round")
        win = "match win rate" if self.setup.match else "win rate"
        rows = [
            f"| agent | margin ({unit}) | {unit} | {win} | OpenSkill ordinal | groups |",
            "|---|---|---|---|---|---|",
        ]
        for s, r in zip(self.summary, self.ratings, strict=True):
            m, p, w = s["margin"], s["points"], s["win_rate"]
            rows.append(
                f"| {s['agent']} | {m[0]:+.2f} [{m[1]:+.2f}, {m[2]:+.2f}]"
                f" | {p[0]:.2f} [{p[1]:.2f}, {p[2]:.2f}]"
                f" | {w[0]:.3f} [{w[1]:.3f}, {w[2]:.3f}] | {r['ordinal']:.2f} | {s['groups']} |"
            )
        labels = [a.label for a in self.agents]
        rows += ["", "Cross-play (row beats column: share of pairwise comparisons, ties 1/2; "
                 "95% interval over deals):", "",
                 "| | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
        for label, line in zip(labels, self.crossplay_ci, strict=True):
            cells = ("-" if c is None else f"{c[0]:.3f} [{c[1]:.3f}, {c[2]:.3f}]" for c in line)
            rows.append(f"| {label} | " + " | ".join(cells) + " |")
        return "\n".join(rows) + "\n"

    def save_heatmap(self, path: str | Path) -> None:
        """The cross-play matrix as a PNG (matplotlib, imported here, Agg backend)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels = [a.label for a in self.agents]
        grid = np.array([[np.nan if v is None else v for v in row] for row in self.crossplay])
        fig, ax = plt.subplots(figsize=(1.2 * len(labels) + 2, 1.0 * len(labels) + 1.5))
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
        ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
        ax.set_yticks(range(len(labels)), labels)
        for i, j in itertools.product(range(len(labels)), repeat=2):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center")
        ax.set_title(f"{self.setup.game}: row beats column ({self.num_deals} deals)")
        fig.colorbar(image, ax=ax)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)


Interval = tuple[float, float, float]  # mean, 95% low, 95% high


def _summarize(setup: GameSetup, agents: Sequence[AgentSpec], records: list[dict[str, Any]], seed: int
               ) -> tuple[list[dict[str, Any]], list[list[float | None]], list[list[Interval | None]],
                          list[dict[str, float]]]:
    from openskill.models import PlackettLuce

    k, n = setup.num_sides, len(agents)
    groups: dict[tuple[int, int, tuple[int, ...]], list[tuple[float, float, float]]] = {}
    beats = np.zeros((n, n))
    counts = np.zeros((n, n))
    pair_deals: dict[tuple[int, int], dict[int, list[float]]] = {}
    model = PlackettLuce()
    ratings = [model.rating(name=a.label) for a in agents]
    for rec in records:
        present = sorted(set(rec["lineup"]))
        for a in present:
            groups.setdefault((a, rec["deal"], tuple(present)), []).append(_agent_game_stats(rec, a, k))
        per_agent = {a: np.mean([p for p, x in zip(rec["points"], rec["lineup"], strict=True) if x == a])
                     for a in present}
        for a, b in itertools.combinations(present, 2):
            score = 0.5 if per_agent[a] == per_agent[b] else float(per_agent[a] > per_agent[b])
            beats[a, b] += score
            beats[b, a] += 1 - score
            counts[a, b] += 1
            counts[b, a] += 1
            pair_deals.setdefault((a, b), {}).setdefault(rec["deal"], []).append(score)
            ranks = [1, 1] if score == 0.5 else ([1, 2] if score else [2, 1])
            [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    summary = []
    for a, spec in enumerate(agents):
        per_group = np.array([np.mean(v, axis=0) for key, v in sorted(groups.items()) if key[0] == a])
        summary.append({
            "agent": spec.label,
            "groups": len(per_group),
            "margin": mean_interval(per_group[:, 0]),
            "points": mean_interval(per_group[:, 1]),
            "win_rate": bootstrap_interval(per_group[:, 2], seed=seed + a),
        })
    crossplay = [[float(beats[i, j] / counts[i, j]) if counts[i, j] else None for j in range(n)]
                 for i in range(n)]
    crossplay_ci: list[list[Interval | None]] = [[None] * n for _ in range(n)]
    for (a, b), by_deal in pair_deals.items():
        mean, low, high = crossplay_interval(by_deal, seed=seed + n * a + b)
        crossplay_ci[a][b], crossplay_ci[b][a] = (mean, low, high), (1 - mean, 1 - high, 1 - low)
    rated = [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for r in ratings]
    return summary, crossplay, crossplay_ci, rated


def evaluate(setup: GameSetup, agents: Sequence[AgentSpec | str], num_deals: int, seed: int = 0,
             workers: int = 1, progress: bool = False) -> EvaluationResult:
    """Play ``num_deals`` duplicate deals of ``setup`` between ``agents`` and summarize them.

    ``workers`` processes share the deals; the result does not depend on how many.
    """
    specs = [a if isinstance(a, AgentSpec) else AgentSpec.parse(a) for a in agents]
    if len(specs) < 2:
        raise ValueError("evaluation needs at least two agents")
    if len({s.label for s in specs}) != len(specs):
        raise ValueError(f"agent labels must differ: {[s.label for s in specs]}")
    if num_deals < 1 or workers < 1:
        raise ValueError("num_deals and workers must be positive")
    deals = range(num_deals)
    records: list[dict[str, Any]] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=num_deals, unit="deal")
    if workers == 1:
        _init_worker(setup, specs, seed)
        results = map(_play_deal, deals)
        pool = None
    else:
        # spawn, not fork: a forked child of a process that has run torch's thread pool can hang.
        pool = multiprocessing.get_context("spawn").Pool(workers, _init_worker, (setup, specs, seed))
        results = pool.imap(_play_deal, deals)
    try:
        for deal_records in results:
            records += deal_records
            if bar is not None:
                bar.update()
    finally:
        if pool is not None:
            pool.close()
            pool.join()
        if bar is not None:
            bar.close()
    summary, crossplay, crossplay_ci, ratings = _summarize(setup, specs, records, seed)
    return EvaluationResult(setup, specs, num_deals, seed, records, summary, crossplay, crossplay_ci, ratings)
