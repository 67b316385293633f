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
import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from domino_env.bots.base import Agent, act_batch, make_bot
from domino_env.evaluation.reports import save_crossplay_heatmap
from domino_env.evaluation.statistics import (
    Interval,
    bootstrap_interval,
    crossplay_interval,
    elo_ratings,
    mean_interval,
    pairwise_by_deal,
)
from domino_env.games import Game, get_game

if TYPE_CHECKING:
    from domino_env.frontends.recording import GameRecorder



# ----- agents and games ---------------------------------------------------------------------------
class AgentError(ValueError):
    """Agents that cannot be evaluated: fewer than two, repeated labels, a malformed spec, or a bot
    that cannot be built (unknown name, bad keyword) or refuses the rules: ``evaluate`` raises these
    before any game. An agent whose move raises ``ValueError`` (a checkpoint of other rules: what its
    ``refuses`` cannot know before it reads a view) stops the run with it during the first game."""


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
              agent_rngs: Sequence[np.random.Generator], recorder: GameRecorder | None = None,
              names: Sequence[str] | None = None) -> Any:
    """One episode with ``agents[seat]`` acting on its own view; returns the finished engine.
    ``recorder`` (for a GIF) draws the deal and the table after each decision.

    A ``ValueError`` from an agent's move (a checkpoint trained on other rules, an illegal move)
    becomes an ``AgentError`` naming the agent (``names[seat]``) and the rules, so that a command
    stops with one line instead of a worker's traceback."""
    engine = setup.new_engine(rng)
    if recorder is not None:
        recorder.start(engine)
    while not engine.is_terminal:
        seat = engine.current_player
        try:
            action = int(agents[seat].act(engine.view(seat), agent_rngs[seat]))
            move = None if recorder is None else engine.action_to_text(action)
            engine.apply(action)
        except ValueError as err:
            who = f"agent {names[seat]!r}" if names is not None else f"the agent at seat {seat}"
            raise AgentError(f"{who} cannot play {setup.game} with options {setup.options}: {err}") from err
        if recorder is not None:
            recorder.move(engine, seat, move)
    return engine


def play_lineup(setup: GameSetup, agents: Sequence[Agent], seed: int, deal: int, index: int,
                lineup: Sequence[int], recorder: GameRecorder | None = None,
                labels: Sequence[str] | None = None) -> Any:
    """The game of record ``(deal, lineup)``, lineup number ``index`` of ``lineups``, with every
    random stream seeded as the harness seeds it: the replay viewer plays a record again with it, and
    a recorded GIF shows the game that was scored. ``labels`` (per agent) name an agent that fails."""
    sides = [lineup[setup.side_of(s)] for s in range(setup.num_players)]
    rngs = [np.random.default_rng([seed, deal, index, s]) for s in range(setup.num_players)]
    names = None if labels is None else [labels[a] for a in sides]
    return play_game(setup, [agents[a] for a in sides], deal_generator(seed, deal), rngs, recorder, names)


def deal_generator(seed: int, deal: int) -> np.random.Generator:
    """The engine's generator for deal ``deal`` of a run seeded ``seed``."""
    return np.random.default_rng([seed, deal])


# ----- one deal (runs in a worker) ----------------------------------------------------------------
def build_agents(setup: GameSetup, specs: Sequence[AgentSpec]) -> list[Agent]:
    """Each spec's bot for ``setup.game``; a spec that cannot be built, or whose bot refuses the
    setup's rules (``Agent.refuses``), raises ``AgentError``."""
    agents = []
    for spec in specs:
        try:
            agent = make_bot(setup.game, spec.bot, **spec.kwargs)
        except (TypeError, ValueError, OSError) as err:
            raise AgentError(f"agent {spec.label!r}: cannot build {setup.game} bot {spec.bot!r} "
                             f"with options {spec.kwargs}: {err}") from err
        refuses = getattr(agent, "refuses", None)
        if refuses is not None and (reason := refuses(setup.config)) is not None:
            raise AgentError(f"agent {spec.label!r}: {reason}")
        agents.append(agent)
    return agents


_WORKER: dict[str, Any] = {}


def _init_worker(setup: GameSetup, specs: Sequence[AgentSpec], seed: int) -> None:
    """Build the agents once per worker process. A failure is kept and raised by every deal, so
    the run stops with this error (an initializer that raises only breaks the pool)."""
    try:
        agents = build_agents(setup, specs)
        _WORKER.update(setup=setup, seed=seed, agents=agents, labels=[s.label for s in specs])
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
        play_lineup(setup, built, seed, deal, 0, lineup, recorder, [s.label for s in specs])


def worker_state() -> tuple[GameSetup, int, list[Agent]]:
    """This process's setup, seed and agents (``map_deals``); a failed build raises its error."""
    if "error" in _WORKER:
        raise _WORKER["error"]
    return _WORKER["setup"], _WORKER["seed"], _WORKER["agents"]


def _play_deal(deal: int) -> list[dict[str, Any]]:
    """Every lineup on deal ``deal``: ``{"deal", "lineup", "points", "rounds", "winner"}`` each."""
    setup, seed, agents = worker_state()
    labels = _WORKER.get("labels")
    return [_record(setup, deal, lineup, play_lineup(setup, agents, seed, deal, i, lineup, labels=labels))
            for i, lineup in enumerate(lineups(len(agents), setup.num_sides))]


LOCKSTEP_DEALS = 256  # deals played together by one lockstep call: bounds the engines held at once


def lockstep_chunk_deals(num_deals: int, workers: int) -> int:
    """Deals per lockstep call: at most ``LOCKSTEP_DEALS``, and few enough that every worker gets a
    share (300 deals on 2 workers play as 150 + 150, not 256 + 44)."""
    return min(LOCKSTEP_DEALS, -(-num_deals // workers))


@dataclass
class _LiveGame:
    """One game of a lockstep chunk: its engine, the agent of each seat and each seat's generator."""

    deal: int
    lineup: tuple[int, ...]
    engine: Any
    seat_agents: list[int]
    rngs: list[np.random.Generator]


def _play_deals_lockstep(chunk: int, num_deals: int, chunk_deals: int) -> list[dict[str, Any]]:
    """Every lineup of deals ``chunk * chunk_deals ...`` (at most ``chunk_deals`` of them, below
    ``num_deals``) played together: at each step every game asks its seat's agent, each agent answers
    all of its games in one ``act_batch`` call. Each game sees the views and generators of
    ``play_lineup``, so the records are ``_play_deal``'s."""
    setup, seed, agents = worker_state()
    labels = _WORKER.get("labels")
    games = []
    for deal in range(chunk * chunk_deals, min((chunk + 1) * chunk_deals, num_deals)):
        for i, lineup in enumerate(lineups(len(agents), setup.num_sides)):
            seat_agents = [lineup[setup.side_of(s)] for s in range(setup.num_players)]
            rngs = [np.random.default_rng([seed, deal, i, s]) for s in range(setup.num_players)]
            engine = setup.new_engine(deal_generator(seed, deal))
            games.append(_LiveGame(deal, lineup, engine, seat_agents, rngs))
    live = [g for g in games if not g.engine.is_terminal]
    while live:
        waiting: dict[int, list[_LiveGame]] = {}
        for g in live:
            waiting.setdefault(g.seat_agents[g.engine.current_player], []).append(g)
        for a, group in waiting.items():
            seats = [g.engine.current_player for g in group]
            views = [g.engine.view(s) for g, s in zip(group, seats, strict=True)]
            try:
                actions = act_batch(agents[a], views, [g.rngs[s] for g, s in zip(group, seats, strict=True)])
                for g, action in zip(group, actions, strict=True):
                    g.engine.apply(int(action))
            except ValueError as err:
                who = f"agent {labels[a]!r}" if labels is not None else f"agent {a}"
                raise AgentError(f"{who} cannot play {setup.game} with options {setup.options}: {err}"
                                 ) from err
        live = [g for g in live if not g.engine.is_terminal]
    return [_record(setup, g.deal, g.lineup, g.engine) for g in games]


def _record(setup: GameSetup, deal: int, lineup: Sequence[int], engine: Any) -> dict[str, Any]:
    """The record of one finished game: ``{"deal", "lineup", "points", "rounds", "winner"}``."""
    points, rounds, winner = setup.outcome(engine)
    return {"deal": deal, "lineup": list(lineup), "points": points, "rounds": rounds, "winner": winner}


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
        """The cross-play matrix as a PNG."""
        save_crossplay_heatmap(self, path)


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
              num_deals: int, seed: int, workers: int = 1, progress: bool = False, unit: str = "deal"
              ) -> list[dict[str, Any]]:
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

        bar = tqdm(total=num_deals, unit=unit)
    if workers == 1:
        _WORKER.clear()
        _WORKER.update(setup=setup, seed=seed, agents=built, labels=[s.label for s in specs])
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
             workers: int = 1, progress: bool = False, lockstep: bool = False) -> EvaluationResult:
    """Play ``num_deals`` duplicate deals of ``setup`` between ``agents`` and summarize them.

    ``workers`` processes share the deals; the result does not depend on how many. ``lockstep``
    plays up to ``LOCKSTEP_DEALS`` deals together (``lockstep_chunk_deals``), each agent answering
    all of its games' moves in one ``act_batch`` call (a network's forward pass, the batched search's
    rollouts): the same games and the same results as one game at a time, faster where agents act in
    batches.
    """
    specs = [a if isinstance(a, AgentSpec) else AgentSpec.parse(a) for a in agents]
    if len(specs) < 2:
        raise AgentError(f"evaluation needs at least two agents, got {[s.label for s in specs]}")
    if len({s.label for s in specs}) != len(specs):
        raise AgentError(f"agent labels must differ (name one label=bot:...): {[s.label for s in specs]}")
    if lockstep:
        chunk_deals = lockstep_chunk_deals(num_deals, workers)
        chunks = -(-num_deals // chunk_deals)
        play = partial(_play_deals_lockstep, num_deals=num_deals, chunk_deals=chunk_deals)
        records = map_deals(play, setup, specs, chunks, seed, min(workers, chunks), progress,
                            unit=f" batch of {chunk_deals} deals")
    else:
        records = map_deals(_play_deal, setup, specs, num_deals, seed, workers, progress)
    summary, crossplay, crossplay_ci, ratings = _summarize(setup, specs, records, seed)
    return EvaluationResult(setup, specs, num_deals, seed, records, summary, crossplay, crossplay_ci, ratings)
