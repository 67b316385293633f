"""How a policy trained through a library integration plays, on the project's evaluation harness.

Self-play rewards hover near 0 however strong the policy is (it plays itself), and a learner's
reward against one fixed opponent says nothing about the others, so every training example ends
with ``score_policy``: the policy against ``random`` and against the game's scripted bot (``greedy``
for the line games, ``heuristic`` for Texas 42) on duplicate deals (``domino_env.evaluation``),
each with a 95% interval over deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from domino_env.bots.base import register_bot
from domino_env.bots.batched import BatchedPolicy, BatchedPolicyAgent
from domino_env.evaluation import GameSetup, evaluate
from domino_env.games import get_game


def score_policy(
    policy: BatchedPolicy,
    game: str = "dominoes",
    options: Mapping[str, Any] | None = None,
    *,
    num_deals: int = 200,
    seed: int = 0,
    label: str = "trained",
    opponents: Sequence[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """``{opponent: summary}`` of ``policy`` (``(obs, mask, rng) -> actions`` on compact observations,
    as the batched environments give them) against each of ``opponents`` (default ``random`` and the
    game's scripted bot), one two-agent evaluation of ``num_deals`` duplicate deals each. A summary
    holds ``margin``, ``points`` and ``win_rate`` as ``(mean, low, high)``, and ``groups`` (deals).
    Registers ``policy`` as bot ``label``."""
    record = get_game(game)
    setup = GameSetup(game, dict(options or {}))
    num_actions = record.engine(setup.config, np.random.default_rng(0)).num_actions
    register_bot(game, label)(lambda: BatchedPolicyAgent(policy, game, num_actions))
    scores = {}
    for opponent in opponents or ("random", record.default_bot):
        result = evaluate(setup, [label, opponent], num_deals, seed=seed)
        scores[opponent] = result.summary[0]
    return scores


def scores_text(scores: Mapping[str, Mapping[str, Any]], game: str = "dominoes") -> str:
    """One line per opponent: the margin (in the game's score unit) and the win rate, with intervals."""
    unit, lines = get_game(game).score_unit, []
    for opponent, s in scores.items():
        (m, ml, mh), (w, wl, wh) = s["margin"], s["win_rate"]
        lines.append(f"vs {opponent}: margin {m:+.2f} [{ml:+.2f}, {mh:+.2f}] {unit}, "
                     f"win rate {w:.3f} [{wl:.3f}, {wh:.3f}] over {s['groups']} deals")
    return "\n".join(lines)
