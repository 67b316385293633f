"""Many sampled worlds of one Texas 42 view at once, for the search: one world replayed from the
view's history by the exact sampler (``determinize.sample_world``), the others redealt from it
(``Texas42Game.with_hands``) with hands drawn in one numpy pass by rejection (``search.rejection``):
the hidden tiles are shuffled into the other seats' free places, and a row is kept when no seat got a
tile of a suit it failed to follow (or, under Sevens, a tile nearer 7 than one it played). The rows
kept are uniform over the consistent deals, so every world follows the exact sampler's distribution,
at a fraction of its cost (it replays the hand once per world).

Views the rejection does not model take the exact sampler for every world: forms with a kitty
(Texas 88: the kitty and the discards are hidden too) and hands with a Plunge bid (its bidder holds
four doubles or more). Worlds still missing after ``MAX_ROUNDS`` rounds of tries (tight constraints)
come from the exact sampler too.
"""

from __future__ import annotations

import numpy as np

from domino_env.rules.texas42 import Texas42Game, Texas42View
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import texas42_unknowns
from domino_env.search.determinize import sample_world
from domino_env.search.rejection import hands_of, shuffled_bins

MAX_ROUNDS = 4
TRIES_PER_WORLD = 4  # shuffles per missing world in each round


def sample_worlds(view: Texas42View, rng: np.random.Generator, count: int, **options: object
                  ) -> list[Texas42Game]:
    """``count`` one-hand engines at ``view``'s position on deals drawn uniformly from those
    consistent with it (module docstring); ``options`` as ``sample_world``'s."""
    if count < 1:
        return []
    template = sample_world(view, rng, **options)
    known, hidden_mask, room, banned_tiles, at_least = texas42_unknowns(view)
    if view.config.variant.kitty_size or at_least is not None:
        return [template, *(sample_world(view, rng, **options) for _ in range(count - 1))]
    n = len(known)
    hidden = list(iter_bits(hidden_mask))
    place_bin = np.repeat(np.arange(n), room)
    banned = np.array([[b >> t & 1 for t in hidden] for b in banned_tiles], bool)
    bits = np.array([1 << t for t in hidden], np.uint64)
    worlds = [template]
    for _ in range(MAX_ROUNDS):
        missing = count - len(worlds)
        if missing == 0:
            break
        bins, ok = shuffled_bins(place_bin, banned, TRIES_PER_WORLD * missing, rng)
        worlds.extend(template.with_hands(hands_of(row, bits, known)) for row in bins[ok][:missing])
    while len(worlds) < count:  # tight constraints: the exact sampler
        worlds.append(sample_world(view, rng, **options))
    return worlds
