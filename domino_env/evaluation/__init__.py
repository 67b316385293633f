"""Evaluation: the duplicate-deal harness, its statistics and pictures, the named tasks, the ladder and
partner cross-play.

``harness``: any agents on any game over duplicate deals (``evaluate``); ``statistics``: intervals and
ratings; ``reports``: heat maps; ``tasks``: the named benchmark tasks and their protocol; ``ladder``:
scoring an agent on a task and merging leaderboards; ``partners``: partner cross-play in the
partnership games. The harness's names are re-exported here, where they were always imported from.
"""

from domino_env.evaluation.harness import (
    AgentError,
    AgentSpec,
    EvaluationResult,
    GameSetup,
    build_agents,
    deal_generator,
    evaluate,
    lineups,
    map_deals,
    play_game,
    play_lineup,
    record_deals,
)
from domino_env.evaluation.statistics import (
    ELO_SCALE,
    bootstrap_interval,
    bradley_terry,
    crossplay_interval,
    elo_ratings,
    mean_interval,
    pairwise_by_deal,
)

__all__ = [
    "ELO_SCALE", "AgentError", "AgentSpec", "EvaluationResult", "GameSetup", "bootstrap_interval",
    "bradley_terry", "build_agents", "crossplay_interval", "deal_generator", "elo_ratings", "evaluate",
    "lineups", "map_deals", "mean_interval", "pairwise_by_deal", "play_game", "play_lineup", "record_deals",
]
