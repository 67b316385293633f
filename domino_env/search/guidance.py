"""What a trained network adds to the determinized search bots: the ``network=`` options of ``search``.

Both search bots (line games and Texas 42) take the same four options, checked here once:

- ``network``: a trained checkpoint's path, loaded through the ``checkpoint`` bot (``load_network``),
  so ``domino_env`` still imports neither torch nor the trainer.
- ``rollout``: who plays every seat of a sampled world after a candidate move: ``"network"`` (its most
  probable move, the default when there is a network) or one of the game's scripted rollouts.
- ``top_moves``: search only the network's ``k`` most probable moves. With a network the candidates
  are always ordered by its logits, which also break ties between equal means.
- ``leaf_plies``: after that many rollout moves, stop at the next move of a seat of the searching side
  and take the critic's expected margin for that seat's view instead of playing on.

The network only ever reads the view of the seat to move in the sampled world, encoded as it was
trained, so the search stays as blind to the hidden tiles as the seat it plays for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domino_env.bots.base import load_network
from domino_env.rules.conventions import check_choice


class SearchGuidance:
    """The checked ``network``, ``rollout``, ``top_moves`` and ``leaf_plies`` of one search bot.

    ``scripted`` names the game's own rollouts; the first is the default without a network."""

    def __init__(self, game: str, scripted: tuple[str, ...], network: str | None = None,
                 rollout: str | None = None, top_moves: int | None = None, leaf_plies: int | None = None):
        rollout = rollout or ("network" if network else scripted[0])
        check_choice("rollout", rollout, (*scripted, "network"))
        if network is None and (rollout == "network" or top_moves is not None or leaf_plies is not None):
            raise ValueError("rollout='network', top_moves and leaf_plies need network=<checkpoint path>")
        if top_moves is not None and top_moves < 1:
            raise ValueError(f"top_moves must be at least 1 (or None: every move), got {top_moves}")
        if leaf_plies is not None and leaf_plies < 0:
            raise ValueError(f"leaf_plies must be at least 0 (or None: no leaf values), got {leaf_plies}")
        self.rollout = rollout
        self.top_moves = top_moves
        self.leaf_plies = leaf_plies
        self.network = None if network is None else load_network(game, network)
        refusal = leaf_plies is not None and self.network.values_refusal()
        if refusal:
            raise ValueError(f"leaf_plies: {refusal}")

    def ranked(self, view: Any, legal: list[int], score: Callable[[int], float] | None = None) -> list[int]:
        """``legal`` in the order to search, preferred first (the search gives ties to the first): by
        the network's logits, cut to ``top_moves``; without a network by ``score``, highest first,
        or as given."""
        if len(legal) == 1:
            return legal
        if self.network is not None:
            logits = self.network.logits(view)
            return sorted(legal, key=lambda a: -logits[a])[: self.top_moves]
        return legal if score is None else sorted(legal, key=lambda a: -score(a))

    def leaf_value(self, game: Any, plies: int, searching_side_moves: bool) -> float | None:
        """The critic's margin for the seat to move in ``game`` once the rollout has played
        ``leaf_plies`` moves and a seat of the searching side is to move; ``None`` elsewhere."""
        if self.leaf_plies is None or plies < self.leaf_plies or not searching_side_moves:
            return None
        return self.network.value(game.view(game.current_player))
