"""The harness's statistics: intervals over deals, pairwise comparisons and Bradley-Terry ratings.

The unit of independence is the deal (the games of one deal share their tiles); the harness module's
docstring says how each figure is taken.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

Z95 = 1.959963984540054
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
