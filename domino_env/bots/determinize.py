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

_TRIES = 50


def deal_unseen(
    unseen: int, sizes: dict[int, int], allowed: dict[int, int], rng: np.random.Generator
) -> dict[int, int]:
    """Hands of ``sizes[s]`` tiles from ``unseen``, each inside ``allowed[s]`` (default: anything).

    Tiles left over (the stock, the out-of-play tiles) form one more, unconstrained, destination.
    The tile with the fewest possible destinations is placed first, at a destination drawn in
    proportion to the room it has left; a dead end (rare: real histories are always satisfiable)
    restarts. Close to uniform over the consistent deals, which is what search needs.
    """
    rest = -1
    for _ in range(_TRIES):
        room = dict(sizes)
        room[rest] = unseen.bit_count() - sum(sizes.values())
        hands = dict.fromkeys(sizes, 0)
        todo = list(iter_bits(unseen))
        while todo:
            options = [[s for s in room if room[s] and (s == rest or allowed.get(s, unseen) >> t & 1)]
                       for t in todo]
            i = min(range(len(todo)), key=lambda j: len(options[j]))
            if not options[i]:
                break
            weights = np.array([room[s] for s in options[i]], dtype=float)
            dest = options[i][int(rng.choice(len(weights), p=weights / weights.sum()))]
            room[dest] -= 1
            if dest != rest:
                hands[dest] |= 1 << todo[i]
            todo.pop(i)
        else:
            return hands
    raise ValueError("no deal of the unseen tiles fits the hand sizes and the proven voids")


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
                allowed[s] = unseen
                for suit in iter_bits(view.voids[s]):
                    allowed[s] &= ~follow[suit]
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
