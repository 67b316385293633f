"""Many sampled worlds of one line-game view at once: the current hands of ``count`` deals drawn
uniformly from those consistent with the view, for a search that solves from the current position.

``beliefs.sample_consistent_deal`` draws one deal at a time in Python (about half a millisecond), which
a search at budget 100 does some thirty times a move. Here every world is drawn in one numpy pass by
rejection (``search.rejection``): the hidden tiles are shuffled into the hidden seats' free places and
the rest (the boneyard), and a row is kept when no seat got a tile it is proven not to hold (a number
it passed on) and, where the first leader is the holder of the top tile, when that seat is the
leader. Worlds still missing after
``MAX_ROUNDS`` rounds of tries (tight constraints) come from ``sample_consistent_deal`` itself.

Views where a seat has drawn this round are left to ``sample_consistent_deal`` (``None``): a drawn
tile's history constrains when it can have been drawn, which a shuffle does not model.
"""

from __future__ import annotations

import numpy as np

from domino_env.rules.line import LineView, lead_rank
from domino_env.rules.tiles import iter_bits
from domino_env.search.determinize import sample_world
from domino_env.search.rejection import hands_of, shuffled_bins

MAX_ROUNDS = 4
TRIES_PER_WORLD = 4  # shuffles per missing world in each round


def line_voids(view: LineView) -> dict[int, int]:
    """Per seat, the tiles it cannot hold: those of every number it passed on since its last draw
    (docs/rules.md 4 makes the ends at each pass public; a draw can bring the number back)."""
    suit = view.config.tiles.suit_mask
    draw_action = 2 * view.config.tiles.num_tiles
    voids: dict[int, int] = {}
    for seat, action, left, right in view.history:
        if action == draw_action:
            voids.pop(seat, None)
        elif action == draw_action + 1 and left >= 0:
            voids[seat] = voids.get(seat, 0) | suit[left] | suit[right]
    return voids


def passed_numbers_banned(view: LineView) -> list[int]:
    """Per seat, the tiles it cannot hold: every tile of a number that was an open end when it passed
    (without draws, the whole round's passes bind; docs/rules.md 4)."""
    suit, banned = view.config.tiles.suit_mask, [0] * view.config.num_players
    draw = 2 * view.config.tiles.num_tiles
    for seat, action, left, right in view.history:
        if action == draw + 1 and left >= 0:
            banned[seat] |= suit[left] | suit[right]
    return banned


def sample_hands(view: LineView, rng: np.random.Generator, count: int) -> list[tuple[int, ...]] | None:
    """The hands of every seat in ``count`` worlds drawn uniformly from those consistent with ``view``
    (the view's own hand in each); ``None`` where a seat has drawn this round (module docstring)."""
    cfg, ts, n = view.config, view.config.tiles, view.config.num_players
    if ts.num_tiles > 64 or any(view.draws):
        return None
    known = [view.hand if s == view.seat else 0 for s in range(n)] if view.hands is None else list(view.hands)
    on_line = sum(1 << t for t, _seat, _side in view.line)
    hidden = np.array(list(iter_bits(ts.full_mask & ~on_line & ~sum(known))), np.int64)
    room = [view.hand_sizes[s] - known[s].bit_count() for s in range(n)]
    # bin of each shuffled place: the hidden seats' free places, then the boneyard (bin n)
    place_bin = np.repeat(np.arange(n + 1), [*room, hidden.size - sum(room)])
    banned = np.array([[b >> t & 1 for t in hidden] for b in (*passed_numbers_banned(view), 0)], bool)
    leader_check = view.round_index == 0 and cfg.first_leader == "highest_double" and cfg.variant == "block"
    rank = np.array([lead_rank(ts, t) for t in hidden])
    public = [known[s] | sum(1 << t for t, seat, _side in view.line if seat == s) for s in range(n)]
    public_top = max(((lead_rank(ts, t), s) for s in range(n) for t in iter_bits(public[s])),
                     default=(-1, -1))
    bits = np.array([1 << int(t) for t in hidden], np.uint64)

    worlds: list[tuple[int, ...]] = []
    for _ in range(MAX_ROUNDS):
        missing = count - len(worlds)
        if missing == 0:
            break
        bins, ok = shuffled_bins(place_bin, banned, TRIES_PER_WORLD * missing, rng)
        if leader_check:
            held_rank = np.where(bins < n, rank, -1)  # the boneyard's tiles were never dealt to a seat
            top = held_rank.argmax(axis=1)
            hidden_top = held_rank[np.arange(len(bins)), top]
            holder = np.where(hidden_top > public_top[0], bins[np.arange(len(bins)), top], public_top[1])
            ok &= holder == view.leader
        worlds.extend(hands_of(row, bits, known) for row in bins[ok][:missing])
    while len(worlds) < count:  # tight constraints: the exact sampler
        worlds.append(tuple(sample_world(view, rng).hands))
    return worlds
