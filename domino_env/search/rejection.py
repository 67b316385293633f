"""Many deals consistent with a view in one numpy pass, by rejection: the shared core of the batched
world samplers (``line_worlds``, ``texas42_worlds``).

The hidden tiles are shuffled into places, each place belonging to a bin (a hidden seat's free places,
then whatever else holds hidden tiles: the boneyard). Every placement is equally likely before the test,
so the rows that pass it (no tile in a bin that is proven not to hold it, plus whatever the caller checks)
are uniform over the consistent deals: the distribution of ``beliefs.sample_consistent_deal``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def shuffled_bins(place_bin: np.ndarray, banned: np.ndarray, rows: int, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` uniform placements of the hidden tiles: ``bins[r, i]`` is hidden tile ``i``'s bin
    (``place_bin`` names the bin of each place), and per row whether no tile is in a bin whose row of
    ``banned`` ``(bins, tiles)`` bans it."""
    order = rng.random((rows, place_bin.size)).argsort(axis=1)
    bins = np.empty_like(order)
    np.put_along_axis(bins, order, np.broadcast_to(place_bin, order.shape), axis=1)
    return bins, ~banned[bins, np.arange(place_bin.size)].any(axis=1)


def hands_of(bins: np.ndarray, bits: np.ndarray, known: Sequence[int]) -> tuple[int, ...]:
    """The seats' hands of one placement: each seat's known tiles and the hidden tiles in its bin
    (``bits``: each hidden tile's bit)."""
    return tuple(known[s] | int(np.bitwise_or.reduce(bits[bins == s], initial=0)) for s in range(len(known)))
