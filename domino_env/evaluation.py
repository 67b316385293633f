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
(seeded). The cross-play matrix and the Elo ratings come from pairwise comparisons of two agents'
sides within a game; each cross-play cell's 95% interval is a percentile bootstrap over deals of
the per-deal share (``crossplay_interval``), since the games of one deal are not independent.
The ratings are one Bradley-Terry maximum-likelihood fit of all comparisons (ties 1/2), on the Elo
scale, anchored at ``random`` = 0, with 95% intervals by bootstrap over deals (``elo_ratings``):
unlike an online rating, they do not depend on the order of the records.

**Reproducibility.** Every random stream is seeded from ``(seed, deal, lineup, seat)``, so a run
is identical with any number of worker processes.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from domino_env.bots.base import Agent, make_bot
from domino_env.games import Game, get_game

if TYPE_CHECKING:
    from domino_env.recording import GameRecorder

Z95 = 1.959963984540054


# ----- agents and games ---------------------------------------------------------------------------
class AgentError(ValueError):
    """Agents that cannot be evaluated: fewer than two, repeated labels, a malformed spec, or a bot
    that cannot be built (unknown name, bad keyword). ``evaluate`` raises it before any game."""


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
                raise AgentError(f"agent option {item!r} in {text!r} must be key=value")
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
        _ = self.config  # validate the game and its options now, not in a worker

    @property
    def record(self) -> Game:
        return get_game(self.game)

    @property
    def config(self) -> Any:
        return self.record.episode_config(self.options, self.match)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_sides(self) -> int:
        return self.config.num_sides

    def side_of(self, seat: int) -> int:
        return self.config.side_of(seat)

    def new_engine(self, rng: np.random.Generator) -> Any:
        return self.record.new_engine(self.config, rng)

    def outcome(self, engine: Any) -> tuple[list[float], int, int | None]:
        """Per-side points (line games) or marks (42), rounds/hands scored, winning side or None."""
        result = self.record.outcome(engine, self.match)
        return result.side_scores, result.rounds, result.winner


def lineups(num_agents: int, num_sides: int) -> list[tuple[int, ...]]:
    """Every assignment of agents to sides (``lineup[side] = agent``) for every matchup, grouped
    by matchup: all ``min(N, K)``-agent subsets, each on every surjection of the sides onto it."""
    out = []
    for matchup in itertools.combinations(range(num_agents), min(num_agents, num_sides)):
        out += [p for p in itertools.product(matchup, repeat=num_sides) if set(p) == set(matchup)]
    return out


def play_game(setup: GameSetup, agents: Sequence[Agent], rng: np.random.Generator,
              agent_rngs: Sequence[np.random.Generator], recorder: GameRecorder | None = None) -> Any:
    """One episode with ``agents[seat]`` acting on its own view; returns the finished engine.
    ``recorder`` (for a GIF) draws the deal and the table after each decision."""
    engine = setup.new_engine(rng)
    if recorder is not None:
        recorder.start(engine)
    while not engine.is_terminal:
        seat = engine.current_player
        action = int(agents[seat].act(engine.view(seat), agent_rngs[seat]))
        if recorder is None:
            engine.apply(action)
            continue
        move = engine.action_to_text(action)
        engine.apply(action)
        recorder.move(engine, seat, move)
    return engine


def play_lineup(setup: GameSetup, agents: Sequence[Agent], seed: int, deal: int, index: int,
                lineup: Sequence[int], recorder: GameRecorder | None = None) -> Any:
    """The game of record ``(deal, lineup)``, lineup number ``index`` of ``lineups``, with every
    random stream seeded as the harness seeds it: the replay viewer plays a record again with it, and
    a recorded GIF shows the game that was scored."""
    seated = [agents[lineup[setup.side_of(s)]] for s in range(setup.num_players)]
    rngs = [np.random.default_rng([seed, deal, index, s]) for s in range(setup.num_players)]
    return play_game(setup, seated, deal_generator(seed, deal), rngs, recorder)


def deal_generator(seed: int, deal: int) -> np.random.Generator:
    """The engine's generator for deal ``deal`` of a run seeded ``seed``."""
    return np.random.default_rng([seed, deal])


# ----- one deal (runs in a worker) ----------------------------------------------------------------
def build_agents(setup: GameSetup, specs: Sequence[AgentSpec]) -> list[Agent]:
    """Each spec's bot for ``setup.game``; a spec that cannot be built raises ``AgentError``."""
    agents = []
    for spec in specs:
        try:
            agents.append(make_bot(setup.game, spec.bot, **spec.kwargs))
        except (TypeError, ValueError, OSError) as err:
            raise AgentError(f"agent {spec.label!r}: cannot build {setup.game} bot {spec.bot!r} "
                             f"with options {spec.kwargs}: {err}") from err
    return agents


_WORKER: dict[str, Any] = {}


def _init_worker(setup: GameSetup, specs: Sequence[AgentSpec], seed: int) -> None:
    """Build the agents once per worker process. A failure is kept and raised by every deal, so
    the run stops with this error (an initializer that raises only breaks the pool)."""
    try:
        _WORKER.update(setup=setup, seed=seed, agents=build_agents(setup, specs))
    except Exception as err:  # any error: every deal raises it, and the parent with it
        _WORKER["error"] = err


def record_deals(setup: GameSetup, agents: Sequence[AgentSpec | str], num_deals: int, seed: int,
                 recorder: GameRecorder) -> None:
    """Replay the first lineup of deals ``0 .. num_deals - 1`` of ``evaluate(setup, agents, ...,
    seed=seed)`` into ``recorder`` (seat names carry the agents' labels)."""
    specs = [a if isinstance(a, AgentSpec) else AgentSpec.parse(a) for a in agents]
    built = build_agents(setup, specs)
    lineup = lineups(len(built), setup.num_sides)[0]
    labels = [specs[lineup[setup.side_of(s)]].label for s in range(setup.num_players)]
    recorder.names = [f"seat {s} ({label})" for s, label in enumerate(labels)]
    for deal in range(num_deals):
        play_lineup(setup, built, seed, deal, 0, lineup, recorder)


def worker_state() -> tuple[GameSetup, int, list[Agent]]:
    """This process's setup, seed and agents (``map_deals``); a failed build raises its error."""
    if "error" in _WORKER:
        raise _WORKER["error"]
    return _WORKER["setup"], _WORKER["seed"], _WORKER["agents"]


def _play_deal(deal: int) -> list[dict[str, Any]]:
    """Every lineup on deal ``deal``: ``{"deal", "lineup", "points", "rounds", "winner"}`` each."""
    setup, seed, agents = worker_state()
    records = []
    for i, lineup in enumerate(lineups(len(agents), setup.num_sides)):
        engine = play_lineup(setup, agents, seed, deal, i, lineup)
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


ELO_SCALE = 400 / math.log(10)
"""Elo points per unit of Bradley-Terry log-strength: 400 Elo = 10:1 odds."""


def bradley_terry(wins: np.ndarray, games: np.ndarray, iterations: int = 2000) -> np.ndarray:
    """Maximum-likelihood log-strengths ``r`` of a Bradley-Terry model,
    ``P(i beats j) = 1 / (1 + exp(r_j - r_i))``.

    ``wins[i, j]``: comparisons ``i`` won against ``j`` (ties count 1/2 to each), ``games[i, j]``:
    comparisons between them. One virtual tied comparison per pair that met keeps an agent that
    never (or always) won finite. Fitted by Hunter's MM iteration; returns log-strengths with mean 0.
    A batch fit of all outcomes at once, so the order of the records cannot matter.
    """
    met = games > 0
    wins = wins + 0.5 * met
    games = games + met
    total_wins = wins.sum(axis=1)
    strength = np.ones(len(wins))
    for _ in range(iterations):
        pair = strength[:, None] + strength[None, :]
        denominator = (games / pair).sum(axis=1)
        updated = np.where(denominator > 0, total_wins / np.where(denominator > 0, denominator, 1), strength)
        updated /= np.exp(np.log(updated).mean())
        if np.allclose(updated, strength, rtol=1e-10, atol=0):
            strength = updated
            break
        strength = updated
    return np.log(strength)


def elo_ratings(per_deal: np.ndarray, labels: Sequence[str], seed: int, resamples: int = 200
                ) -> list[dict[str, float]]:
    """Elo ratings (Bradley-Terry, ``ELO_SCALE``) with 95% intervals by bootstrap over deals.

    ``per_deal[d, i, j]``: comparisons ``i`` won against ``j`` in deal ``d`` (ties 1/2). Anchored so
    that an agent labelled ``random`` rates 0 (else the mean rating is 0)."""
    games = per_deal + per_deal.transpose(0, 2, 1)
    anchor = list(labels).index("random") if "random" in labels else None

    def fit(wins: np.ndarray, played: np.ndarray) -> np.ndarray:
        elo = ELO_SCALE * bradley_terry(wins, played)
        return elo - (elo[anchor] if anchor is not None else 0.0)

    point = fit(per_deal.sum(axis=0), games.sum(axis=0))
    rng = np.random.default_rng(seed)
    draws = rng.integers(len(per_deal), size=(resamples, len(per_deal)))
    boot = np.array([fit(per_deal[d].sum(axis=0), games[d].sum(axis=0)) for d in draws])
    low, high = np.quantile(boot, [0.025, 0.975], axis=0)
    return [{"elo": float(p), "low": float(lo), "high": float(hi)}
            for p, lo, hi in zip(point, low, high, strict=True)]


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
        unit = self.setup.record.score_unit
        win = "match win rate" if self.setup.match else "win rate"
        rows = [
            f"| agent | margin ({unit}) | {unit} | {win} | Elo (Bradley-Terry) | groups |",
            "|---|---|---|---|---|---|",
        ]
        for s, r in zip(self.summary, self.ratings, strict=True):
            m, p, w = s["margin"], s["points"], s["win_rate"]
            rows.append(
                f"| {s['agent']} | {m[0]:+.2f} [{m[1]:+.2f}, {m[2]:+.2f}]"
                f" | {p[0]:.2f} [{p[1]:.2f}, {p[2]:.2f}]"
                f" | {w[0]:.3f} [{w[1]:.3f}, {w[2]:.3f}]"
                f" | {r['elo']:+.0f} [{r['low']:+.0f}, {r['high']:+.0f}] | {s['groups']} |"
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


def pairwise_by_deal(records: Sequence[dict[str, Any]], num_agents: int
                     ) -> tuple[list[int], np.ndarray, np.ndarray]:
    """The deals and, per deal, ``wins[d, i, j]``: comparisons agent ``i`` won against ``j`` (ties 1/2)
    and ``games[d, i, j]``: comparisons between them. A comparison: two agents' sides in one game,
    by points (an agent holding several sides counts their mean)."""
    deals = sorted({rec["deal"] for rec in records})
    deal_index = {d: i for i, d in enumerate(deals)}
    wins = np.zeros((len(deals), num_agents, num_agents))
    games = np.zeros_like(wins)
    for rec in records:
        present = sorted(set(rec["lineup"]))
        per_agent = {a: np.mean([p for p, x in zip(rec["points"], rec["lineup"], strict=True) if x == a])
                     for a in present}
        d = deal_index[rec["deal"]]
        for a, b in itertools.combinations(present, 2):
            score = 0.5 if per_agent[a] == per_agent[b] else float(per_agent[a] > per_agent[b])
            wins[d, a, b] += score
            wins[d, b, a] += 1 - score
            games[d, a, b] += 1
            games[d, b, a] += 1
    return deals, wins, games


def _summarize(setup: GameSetup, agents: Sequence[AgentSpec], records: list[dict[str, Any]], seed: int
               ) -> tuple[list[dict[str, Any]], list[list[float | None]], list[list[Interval | None]],
                          list[dict[str, float]]]:
    k, n = setup.num_sides, len(agents)
    groups: dict[tuple[int, int, tuple[int, ...]], list[tuple[float, float, float]]] = {}
    for rec in records:
        present = sorted(set(rec["lineup"]))
        for a in present:
            groups.setdefault((a, rec["deal"], tuple(present)), []).append(_agent_game_stats(rec, a, k))
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
    deals, wins, games = pairwise_by_deal(records, n)
    beats, counts = wins.sum(axis=0), games.sum(axis=0)
    crossplay = [[float(beats[i, j] / counts[i, j]) if counts[i, j] else None for j in range(n)]
                 for i in range(n)]
    crossplay_ci: list[list[Interval | None]] = [[None] * n for _ in range(n)]
    for a, b in itertools.combinations(range(n), 2):
        met = games[:, a, b] > 0
        if met.any():
            by_deal = {deals[d]: [wins[d, a, b] / games[d, a, b]] for d in np.flatnonzero(met)}
            mean, low, high = crossplay_interval(by_deal, seed=seed + n * a + b)
            crossplay_ci[a][b], crossplay_ci[b][a] = (mean, low, high), (1 - mean, 1 - high, 1 - low)
    return summary, crossplay, crossplay_ci, elo_ratings(wins, [a.label for a in agents], seed)


def map_deals(play: Callable[[int], list[dict[str, Any]]], setup: GameSetup, specs: Sequence[AgentSpec],
              num_deals: int, seed: int, workers: int = 1, progress: bool = False) -> list[dict[str, Any]]:
    """``play(deal)`` (a module-level function reading the agents from ``_WORKER``) for every deal
    ``0 .. num_deals - 1``, in ``workers`` processes; its records in deal order. Every spec is built
    here first, so a bad one fails before any worker starts."""
    if num_deals < 1 or workers < 1:
        raise ValueError(f"num_deals and workers must be positive, got {num_deals} and {workers}")
    built = build_agents(setup, specs)
    records: list[dict[str, Any]] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=num_deals, unit="deal")
    if workers == 1:
        _WORKER.clear()
        _WORKER.update(setup=setup, seed=seed, agents=built)
        results: Iterable[list[dict[str, Any]]] = map(play, range(num_deals))
        pool = None
    else:
        # spawn, not fork: a forked child of a process that has run torch's thread pool can hang.
        # An executor, not multiprocessing.Pool: a worker that dies breaks it (BrokenProcessPool)
        # where a Pool would wait forever or keep starting replacements.
        pool = ProcessPoolExecutor(workers, multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(setup, specs, seed))
        results = pool.map(play, range(num_deals))
    try:
        for deal_records in results:
            records += deal_records
            if bar is not None:
                bar.update()
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)  # after an error: drop the deals not yet started
        if bar is not None:
            bar.close()
    return records


def evaluate(setup: GameSetup, agents: Sequence[AgentSpec | str], num_deals: int, seed: int = 0,
             workers: int = 1, progress: bool = False) -> EvaluationResult:
    """Play ``num_deals`` duplicate deals of ``setup`` between ``agents`` and summarize them.

    ``workers`` processes share the deals; the result does not depend on how many.
    """
    specs = [a if isinstance(a, AgentSpec) else AgentSpec.parse(a) for a in agents]
    if len(specs) < 2:
        raise AgentError(f"evaluation needs at least two agents, got {[s.label for s in specs]}")
    if len({s.label for s in specs}) != len(specs):
        raise AgentError(f"agent labels must differ (name one label=bot:...): {[s.label for s in specs]}")
    records = map_deals(_play_deal, setup, specs, num_deals, seed, workers, progress)
    summary, crossplay, crossplay_ci, ratings = _summarize(setup, specs, records, seed)
    return EvaluationResult(setup, specs, num_deals, seed, records, summary, crossplay, crossplay_ci, ratings)
