"""What a trained network adds to the determinized search bots: the ``network=`` options of ``search``.

Both search bots (line games and Texas 42) take the same five options, checked here once:

- ``network``: a trained checkpoint's path, loaded through the ``checkpoint`` bot (``load_network``),
  so ``domino_env`` still imports neither torch nor the trainer.
- ``rollout``: who plays every seat of a sampled world after a candidate move: ``"network"`` (its most
  probable move, the default when there is a network) or one of the game's scripted rollouts.
- ``top_moves``: search only the network's ``k`` most probable moves. With a network the candidates
  are always ordered by its logits, which also break ties between equal means.
- ``leaf_plies``: after that many rollout moves, stop at the next move of a seat of the searching side
  and take the critic's expected margin for that seat's view instead of playing on.
- ``prior_weight``: add ``prior_weight`` times the network's log-probability of each candidate (over
  the legal moves) to its mean margin, in the game's points (marks in 42) per nat. The search's
  worlds are solved with every hand visible, so where two moves are close it errs the way
  determinized search does; a network trained on the seat's own view knows what it does not see.

The network only ever reads the view of the seat to move in the sampled world, encoded as it was
trained, so the search stays as blind to the hidden tiles as the seat it plays for.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from domino_env.bots.base import load_network
from domino_env.rules.conventions import check_choice, check_non_negative


class SearchGuidance:
    """The checked ``network``, ``rollout``, ``top_moves``, ``leaf_plies`` and ``prior_weight`` of one
    search bot. ``scripted`` names the game's own rollouts; the first is the default without a network."""

    def __init__(self, game: str, scripted: tuple[str, ...], network: str | None = None,
                 rollout: str | None = None, top_moves: int | None = None, leaf_plies: int | None = None,
                 prior_weight: float = 0.0):
        rollout = rollout or ("network" if network else scripted[0])
        check_choice("rollout", rollout, (*scripted, "network"))
        prior_weight = check_non_negative("prior_weight", prior_weight)
        if network is None and (rollout == "network" or top_moves is not None or leaf_plies is not None
                                or prior_weight > 0):
            raise ValueError("rollout='network', top_moves, leaf_plies and prior_weight need "
                             "network=<checkpoint path>")
        if top_moves is not None and top_moves < 1:
            raise ValueError(f"top_moves must be at least 1 (or None: every move), got {top_moves}")
        if leaf_plies is not None and leaf_plies < 0:
            raise ValueError(f"leaf_plies must be at least 0 (or None: no leaf values), got {leaf_plies}")
        self.rollout = rollout
        self.top_moves = top_moves
        self.prior_weight = prior_weight
        self.leaf_plies = leaf_plies
        self.network = None if network is None else load_network(game, network)
        refusal = leaf_plies is not None and self.network.values_refusal()
        if refusal:
            raise ValueError(f"leaf_plies: {refusal}")

    def ranked(self, view: Any, legal: list[int], score: Callable[[int], float] | None = None
               ) -> tuple[list[int], np.ndarray]:
        """``legal`` in the order to search, preferred first (the search gives ties to the first): by
        the network's logits, cut to ``top_moves``; without a network by ``score``, highest first,
        or as given. With them, each candidate's prior bonus: ``prior_weight`` times its
        log-probability among the legal moves (zeros without a prior)."""
        if len(legal) == 1 or self.network is None:
            ordered = legal if score is None else sorted(legal, key=lambda a: -score(a))
            return ordered, np.zeros(len(ordered))
        logits = self.network.logits(view)
        ordered = sorted(legal, key=lambda a: -logits[a])[: self.top_moves]
        if self.prior_weight == 0:
            return ordered, np.zeros(len(ordered))
        legal_logits = logits[legal].astype(float)
        top = legal_logits.max()
        log_total = top + math.log(np.exp(legal_logits - top).sum())
        return ordered, self.prior_weight * (logits[ordered].astype(float) - log_total)

    def leaf_value(self, game: Any, plies: int, searching_side_moves: bool) -> float | None:
        """The critic's margin for the seat to move in ``game`` once the rollout has played
        ``leaf_plies`` moves and a seat of the searching side is to move; ``None`` elsewhere."""
        if self.leaf_plies is None or plies < self.leaf_plies or not searching_side_moves:
            return None
        return self.network.value(game.view(game.current_player))
