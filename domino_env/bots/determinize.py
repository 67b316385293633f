"""Determinization for the search bots: a full game state consistent with what one seat knows.

``sample_line_world`` / ``sample_texas42_world`` deal the unseen tiles to the other hands (and the
stock) at random, respecting every hand size and every void the public history proves (a pass in
the line games, a failure to follow in 42), and return a playable engine in that state. Search
then plays moves and rollouts in many such worlds and averages (perfect-information Monte Carlo).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from domino_env.rules.line import LineGame, LineView
from domino_env.rules.texas42 import BID, PLAY, Texas42Game, Texas42View, declared_scheme
from domino_env.tiles import iter_bits

_TRIES = 20


def _pick(mask: int, k: int, rng: np.random.Generator) -> int:
    """``k`` tiles of bit set ``mask`` chosen uniformly at random, as a bit set."""
    tiles = list(iter_bits(mask))
    return sum(1 << int(t) for t in rng.choice(tiles, size=k, replace=False)) if k else 0


def deal_unseen(
    unseen: int, sizes: dict[int, int], allowed: dict[int, int], rng: np.random.Generator
) -> dict[int, int]:
    """Hands of ``sizes[s]`` tiles from ``unseen``, each inside ``allowed[s]`` when possible.

    Seats are filled most constrained first. Should the voids be unsatisfiable in a few random
    tries (they are always satisfiable for a real history, but greedy filling can paint itself into
    a corner), the voids are dropped rather than failing: search then merely samples less well.
    """
    for attempt in range(_TRIES + 1):
        allow = allowed if attempt < _TRIES else {}
        order = sorted(sizes, key=lambda s: (allow.get(s, unseen) & unseen).bit_count() - sizes[s])
        left, hands = unseen, {}
        for s in order:
            pool = left & allow.get(s, left)
            if pool.bit_count() < sizes[s]:
                break
            hands[s] = _pick(pool, sizes[s], rng)
            left &= ~hands[s]
        else:
            return hands
    raise AssertionError("unreachable: unconstrained dealing always succeeds")


def line_voids(view: LineView) -> dict[int, int]:
    """Per seat, the tiles it cannot hold: those of every number it passed on since its last draw
    (RULES.md 4 makes the ends at each pass public; a draw can bring the number back)."""
    suit = view.config.tiles.suit_mask
    draw_action = 2 * view.config.tiles.num_tiles
    voids: dict[int, int] = {}
    for seat, action, left, right in view.history:
        if action == draw_action:
            voids.pop(seat, None)
        elif action == draw_action + 1 and left >= 0:
            voids[seat] = voids.get(seat, 0) | suit[left] | suit[right]
    return voids


def sample_line_world(view: LineView, rng: np.random.Generator) -> LineGame:
    """A single-round ``LineGame`` in the view's position with the hidden tiles dealt at random."""
    cfg = view.config
    played = sum(1 << t for t, _, _ in view.line)
    unseen = cfg.tiles.full_mask & ~played & ~view.hand
    others = {s: n for s, n in enumerate(view.hand_sizes) if s != view.seat}
    if view.hands is not None:
        hands = dict(enumerate(view.hands))
    else:
        voids = line_voids(view)
        hands = deal_unseen(unseen, others, {s: unseen & ~v for s, v in voids.items()}, rng)
        hands[view.seat] = view.hand
    rest = unseen & ~sum(h for s, h in hands.items() if s != view.seat)
    stock = [int(t) for t in rng.permutation(list(iter_bits(rest)))][: view.stock_size]
    world_cfg = dataclasses.replace(cfg, target_score=None, open_hands=False)
    game = LineGame(
        world_cfg,
        rng,
        deal={"hands": [list(iter_bits(hands[s])) for s in range(cfg.num_players)], "stock": stock,
              "leader": view.leader},
    )
    if view.line:
        # The deal above is the position's hands; carry the public table state over to it.
        game.left, game.right = view.left_end, view.right_end
        game.line = list(view.line)
        game.current = view.current_player
        game.passes = view.passes_in_row
    return game


def sample_texas42_world(view: Texas42View, rng: np.random.Generator) -> Texas42Game:
    """A one-hand ``Texas42Game`` replaying the view's bids and plays from a sampled deal."""
    played = list(view.played_by)
    known = view.hand | sum(played)
    unseen = ((1 << 28) - 1) & ~known
    others = {s: view.hand_sizes[s] for s in range(4) if s != view.seat}
    if view.hands is not None:
        hands = dict(enumerate(view.hands))
    else:
        allowed = {}
        if view.declaration >= 0:
            follow = declared_scheme(view.declaration, view.config).follow
            for s in others:
                barred = sum(follow[suit] for suit in iter_bits(view.voids[s]))
                allowed[s] = unseen & ~barred
        hands = deal_unseen(unseen, others, allowed, rng)
        hands[view.seat] = view.hand
    dealt = [list(iter_bits(hands[s] | played[s])) for s in range(4)]
    cfg = dataclasses.replace(view.config, episode="hand", open_hands=False)
    game = Texas42Game(cfg, rng, deal={"hands": dealt, "shaker": view.shaker})
    seat = (view.shaker + 1) % 4
    while game.phase == BID and view.bids[seat] >= 0:  # the auction, in seat order
        game.apply(view.bids[seat])
        seat = (seat + 1) % 4
    if view.declaration >= 0:
        game.apply(view.declaration)
    for trick in (*view.tricks, view.trick):
        for _, tile in trick:
            game.apply(PLAY + tile)
    return game
