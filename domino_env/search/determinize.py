"""Determinization for the search bots: one full-information world drawn from a seat's beliefs.

The deal comes from ``domino_env.search.beliefs.sample_consistent_deal`` (exact uniform sampling over the
deals consistent with the view: hand sizes, proven voids, the first-leader rule ...) and the public
history is replayed on it (``beliefs.rebuild``). The world plays one round (line games) or one hand
(42) whatever the match settings, because the search bots value a move by the episode's outcome.
Search then plays moves in many such worlds and averages (perfect-information Monte Carlo).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from domino_env.rules.line import LineGame, LineView
from domino_env.rules.texas42 import Texas42Game, Texas42View
from domino_env.search.beliefs import rebuild, sample_consistent_deal


def sample_world(
    view: LineView | Texas42View, rng: np.random.Generator, **options: object
) -> LineGame | Texas42Game:
    """A one-episode engine at ``view``'s position on a uniformly sampled consistent deal.

    ``options`` override further rule options of the world (e.g. ``stop_when_decided=False``).
    """
    deal = sample_consistent_deal(view, rng)
    one_episode = {"target_score": None} if isinstance(view, LineView) else {"episode": "hand"}
    config = dataclasses.replace(view.config, **one_episode, **options)
    return rebuild(view._replace(config=config), deal, rng)
