"""The ``"history"`` encoders' shared shape: the public move record as a padded sequence of tokens.

Every event of the current round (line games) or hand (Texas 42) becomes one token of ``W`` 0/1
entries (the token's own slot table, ``token_slots``); tokens are laid out oldest first and the
rest of the ``max_tokens(config)`` positions are zero padding, so ``obs.reshape(max_tokens, W)`` is
the sequence a recurrent or transformer policy reads and the ``event`` entry of a token is its mask.
``max_tokens`` is an upper bound on the events a round can hold, derived per game in its module.
Seats are relative to the observer (``0`` = me, then the seats to my left).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

import numpy as np

from domino_env.encoders.base import Encoder, Slot, layout


class HistoryEncoder(Encoder):
    """Base of the history encoders: subclasses give the token layout, the bound and the tokens."""

    name = "history"

    @abstractmethod
    def token_slots(self, config: Any) -> tuple[Slot, ...]:
        """The entries of one token (the first is ``event``: 1 for a real event, 0 for padding)."""

    @abstractmethod
    def max_tokens(self, config: Any) -> int:
        """Most events a round can hold under ``config`` (a proven upper bound; see the game module)."""

    @abstractmethod
    def tokens(self, view: Any, at: dict[str, int]) -> Iterable[Iterable[int]]:
        """Per event, oldest first, the entries of its token set to 1 (offsets within the token);
        ``at`` maps each token slot's name to its start."""

    def slots(self, config: Any) -> tuple[Slot, ...]:
        width, length, _at = self._plan(config)
        return layout([("tokens", length * width,
                        f"{length} tokens of {width} entries, oldest first, zero padding after; "
                        "token layout in the token table")])

    def encode(self, view: Any) -> np.ndarray:
        width, length, at = self._plan(view.config)
        ones = [i * width + entry for i, token in enumerate(self.tokens(view, at)) for entry in token]
        out = np.zeros(length * width, dtype=np.float32)
        out[ones] = 1.0
        return out

    _config: Any = None

    def _plan(self, config: Any) -> tuple[int, int, dict[str, int]]:
        """Token width, max tokens and token slot starts, kept for the last config (identity: hashing
        a config each step is slow)."""
        if config is not self._config:
            slots = self.token_slots(config)
            at = {s.name: s.start for s in slots}
            width = slots[-1].start + slots[-1].length
            self._config, self._dims = config, (width, self.max_tokens(config), at)
        return self._dims
