"""``observation_encoder="compact"`` for Mexican Train: the table summarised, with belief features.

Instead of every train's tiles (``default``) it shows the tiles on the table as one set, the tiles
whose place I do not know, how many unknown tiles hold each number, and per other seat the numbers
it is known to lack (``voids``), and the home plan players make: the longest chain of my hand laid
from my own train's end (``plan``, its first tile ``plan_first``; ``longest_chain``) and the doubles I
can cover (``coverable``). A flat network does not find the longest chain of a hand by itself (copying
``greedy``, which plays by it, stalled at 0.83 agreement without these slots; docs/results.md). Seats
and train slots are relative as in ``encoders.mexican_train``.

Voids: what public moves prove, and only that (so the slot is sound, never a guess). ``known_voids``
replays the round's history to know every train's end and its last tile at each move:

- A **pass** outside an opening run proves the seat held no tile it could play: with a train ending
  in a double played this round, none holding the value of the earliest such double (the double
  it had to cover; a double that lapsed has every other tile of its value on the table, so nobody
  holds that value either); otherwise none holding its own train's end, nor (its own train started,
  or ``own_train_first`` off) the end of the Mexican train or of a train marked by another seat.
- A **draw** brings an unknown tile, which may hold anything: it clears the seat's voids (the pass
  that follows a fruitless draw states them again).
- In an opening run a draw or pass before the seat's first tile proves it lacks its own train's
  end (the engine's number: the only double holding it is the engine, so nothing is held back).
  Nothing else in a run is used: a run that ends by itself leaves open whether the seat held back
  a double it could not cover. Every void set starts empty with the round.
"""

from __future__ import annotations

from functools import cache, lru_cache

from domino_env.encoders.base import register_encoder
from domino_env.encoders.mexican_train import (
    NUMBERS,
    MexicanTrainEncoder,
    open_hands_slot,
    public_slots,
    rotate,
    scaled_slots,
    table_tiles,
)
from domino_env.rules.mexican_train import (
    DOUBLE_TILE,
    NUM_TILES,
    SUIT,
    TILE_HIGH,
    TILE_LOW,
    TILES,
    MexicanTrainConfig,
    MexicanTrainView,
)

_DOUBLE_VALUE = {t: v for v, t in enumerate(DOUBLE_TILE)}
CHAIN_NODES = 1_000  # positions one ``longest_chain`` search may expand (enough for a dealt 15-tile hand)


@lru_cache(maxsize=1 << 14)
def longest_chain(end: int, hand: int) -> tuple[int, ...]:
    """The longest chain of ``hand``'s tiles laid from ``end`` (more pips on equal length; the first
    found on a tie), never ending on a double: a double needs a cover, in the opening run by rule and
    otherwise or it stands open against its player. Players plan their own train this way; ``greedy``
    follows it and the ``plan`` slots show it.

    A search over trails, memoized on ``(end, tiles left)``: exact for a dealt hand, but a hand swollen
    by draws (2 players draw dozens) can have millions of trails, so after ``CHAIN_NODES`` positions
    the search stops expanding and returns the best chain found by then."""
    memo: dict[tuple[int, int], tuple[int, int, tuple[int, ...]]] = {}

    def best_from(end: int, hand: int) -> tuple[int, int, tuple[int, ...]]:
        key = (end, hand)
        if key in memo:
            return memo[key]
        best: tuple[int, int, tuple[int, ...]] = (0, 0, ())
        if len(memo) < CHAIN_NODES:
            fit = hand & SUIT[end]
            while fit:
                bit = fit & -fit
                fit ^= bit
                t = bit.bit_length() - 1
                length, pips, rest = best_from(TILES.other_half(t, end), hand ^ bit)
                if t in _DOUBLE_VALUE and not length:
                    continue
                if (length + 1, pips + TILES.pips[t]) > best[:2]:
                    best = (length + 1, pips + TILES.pips[t], (t, *rest))
            memo[key] = best
        return best

    return best_from(end, hand)[2]


def plan_bits(end: int, hand: int) -> tuple[int, int]:
    """The ``plan`` and ``plan_first`` slots' tile sets: the tiles of ``longest_chain(end, hand)``
    and its first tile."""
    chain = longest_chain(end, hand)
    return sum(1 << t for t in chain), (1 << chain[0] if chain else 0)


def coverable_doubles(hand: int) -> int:
    """The ``coverable`` slot: per number, a bit when ``hand`` holds its double and another tile of
    that number to cover it with."""
    bits = 0
    for value, double in enumerate(DOUBLE_TILE):
        if hand >> double & 1 and hand & SUIT[value] & ~(1 << double):
            bits |= 1 << value
    return bits


def proofs(view: MexicanTrainView) -> list[tuple[int, int, int]]:
    """``(index in history, seat, numbers)`` for every draw and pass of the round: the numbers the
    seat's hand is proven to lack just before that move (a draw: 0, when nothing is proven, as in an
    opening run). The rules are the module docstring's."""
    cfg = view.config
    n = cfg.num_players
    draw = NUM_TILES * (n + 1)
    ends = [view.engine] * (n + 1)
    started, marked = [False] * n, [False] * n
    doubles: dict[int, int] = {}  # train -> the value of the double it ends in (insertion: play order)
    first_turn_over = [False] * n
    previous, found = None, []
    for i, (seat, action) in enumerate(view.history):
        if previous is not None and previous != seat:
            first_turn_over[previous] = True
        previous = seat
        if action < draw:
            t, slot = divmod(action, n + 1)
            train = slot if slot == n else (seat + slot) % n
            ends[train] = int(TILE_LOW[t] + TILE_HIGH[t]) - ends[train]
            doubles.pop(train, None)
            if t in _DOUBLE_VALUE:
                doubles[train] = _DOUBLE_VALUE[t]
            if train == seat:
                started[seat], marked[seat] = True, False
        elif action <= draw + 1:
            lacks = 0
            if cfg.opening == "run" and not first_turn_over[seat]:
                lacks = 0 if started[seat] else 1 << ends[seat]  # a run starts with the engine's number
            elif doubles:
                lacks = 1 << next(iter(doubles.values()))
            else:
                lacks = 1 << ends[seat]
                if started[seat] or not cfg.own_train_first:
                    for train in range(n + 1):
                        if train == n or (train != seat and marked[train]):
                            lacks |= 1 << ends[train]
            found.append((i, seat, lacks))
            if action == draw + 1:
                marked[seat] = True
    return found


def known_voids(view: MexicanTrainView) -> list[int]:
    """Per absolute seat, a bit set over the numbers its hand is known to lack now (module
    docstring): a draw clears the seat's set, a pass adds what it proves."""
    draw = NUM_TILES * (view.config.num_players + 1)
    voids = [0] * view.config.num_players
    for i, seat, lacks in proofs(view):
        voids[seat] = voids[seat] | lacks if view.history[i][1] != draw else 0
    return voids


@cache
def _binary(config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
    n = config.num_players
    parts = [
        ("hand", NUM_TILES, "tiles in my hand"),
        ("table", NUM_TILES, "tiles on the table (the engine and every train)"),
        ("unknown", NUM_TILES, "tiles whose place I do not know (other hands, boneyard, out of play)"),
        *public_slots(config),
        ("voids", (n - 1) * NUMBERS, "per relative seat 1..n-1, numbers it is known to lack"),
        ("plan", NUM_TILES, "my home plan: the tiles of the longest chain of my hand from my train's end"),
        ("plan_first", NUM_TILES, "the home plan's first tile"),
        ("coverable", NUMBERS, "per number, I hold its double and another tile to cover it"),
    ]
    if config.open_hands:
        parts.append(open_hands_slot(config))
    return parts


@register_encoder
class CompactMexicanTrainEncoder(MexicanTrainEncoder):
    """The table as sets and counts, with what each other seat is known to lack (module docstring)."""

    name = "compact"

    def binary_slots(self, config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
        return _binary(config)

    def scaled_slots(self, config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
        unseen = ("unseen", NUMBERS, f"per number, unknown tiles holding it / {NUMBERS}")
        return [*scaled_slots(config), unseen]

    def scaled(self, view: MexicanTrainView) -> list[float]:
        unknown = TILES.full_mask & ~(table_tiles(view) | view.hand)
        return [*super().scaled(view), *((unknown & suit).bit_count() / NUMBERS for suit in SUIT)]

    def bits(self, view: MexicanTrainView, at: dict[str, int]) -> int:
        table = table_tiles(view)
        unknown = TILES.full_mask & ~(table | view.hand)
        bits = view.hand << at["hand"] | table << at["table"] | unknown << at["unknown"]
        bits |= self.public_bits(view, at) | self.open_hand_bits(view, at)
        for r, void in enumerate(rotate(known_voids(view), view.seat)[1:]):
            bits |= void << (at["voids"] + r * NUMBERS)
        plan, first = plan_bits(view.ends[view.seat], view.hand)
        bits |= plan << at["plan"] | first << at["plan_first"]
        return bits | coverable_doubles(view.hand) << at["coverable"]
