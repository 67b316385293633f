"""Deals consistent with what one seat knows: determinization for search bots and the leak tests.

``sample_consistent_deal(view, rng)`` deals every tile the seat cannot see (other hands, the stock,
the tiles out of play) at random, keeping everything its view proves: hand sizes, the line or the
tricks, and these constraints on the other hands:

Line games (docs/rules.md 2)
  - A **pass** on ends ``a, b`` proves the hand then held no ``a`` and no ``b``.
  - A **draw** under ``draw_policy="when_stuck"`` proves the same of the hand before the draw; under
    ``"any"`` it proves nothing.  Because drawn tiles join the hand later, each constraint binds only
    the tiles already held at that moment: a tile it holds that breaks such a constraint came with
    a later draw, one tile per draw.  The allocation therefore counts only hands that some history
    explains (when each tile was dealt or drawn: an earliest-deadline matching, run on how many held
    tiles need each draw), then takes such a history.  Under ``"any"`` a seat passes only once the
    drawable stock is empty, so every pass binds the whole current hand.
  - Round 0 with ``first_leader="highest_double"`` in **Block**: the leader was dealt the
    top-ranked tile (highest double, else heaviest) of all hands dealt.
All Fives and Fives and Threes (RULES-new-games.md 2, 4): as the line games over up to four open
  ends (``search/fives_beliefs.py``); ``rebuild`` keeps the view's config and scores.
Mexican Train: ``search/mexican_train_beliefs.py``.
Texas 42 (docs/rules.md 3)
  - A failure to follow suit ``v`` proves the hand holds no tile that follows ``v`` under the
    contract's scheme (a tile holding trump follows trump only).
  - Under **Sevens** every play was the tile nearest to 7 in the hand, so the hand keeps no tile
    nearer to 7 than the farthest tile the seat has played.
  - A **Plunge** bidder was dealt at least four doubles.
  - **Texas 88**: the kitty is two hidden tiles while bidding; then the bid winner's discards are
    hidden from every other seat, and are never count tiles (docs/rules.md 3.8; a bid winner left with
    fewer than two non-count tiles may discard count, which the sampler does not model: about
    one deal in 10^10). Which two of the bid winner's tiles came from the kitty is never public,
    so the sampler picks them uniformly.
  - Bids otherwise constrain nothing, and the Nello partner's face-down hand is just a hidden hand.

**Distribution.** Tiles are allocated by exact counting (a dynamic programme over tiles and the
room left in each hand, and in Draw how many held tiles each seat must have drawn at each of its
draws), so the allocation of the *current* hidden tiles is uniform over those satisfying the
per-tile constraints, the doubles count and, in Draw, having a history; it never fails on a view
from real play.  The first-leader check of Block is applied by rejection, which keeps it uniform.
The stock order is a uniform shuffle.  This is uniform over consistent deals in Block, in Texas 42
and in Draw with ``draw_policy="any"``: there a round-start deal is fixed by the current allocation
up to choices whose number does not depend on it.  Known bias, Draw with ``draw_policy="when_stuck"``:
allocations are uniform among those with at least one consistent history, not weighted by the
number of such histories (which tiles were drawn when).  Also not used in Draw: the first leader's
highest double (the tiles it was dealt, as opposed to drawn, are not public), so deals where
another seat was dealt a higher double are not excluded.
The sampler assumes the deal was random; a round set up by ``reset(options={"deal": ...})`` with
its own leader may not satisfy the first-leader rule.

``rebuild(view, deal, rng)`` replays the view's public history on a sampled deal and returns the
engine at the same position; ``determinize(view, rng)`` does both.  Both look the game up in
``BELIEFS`` by its view's type: this module registers the line games and Texas 42, every other
game's belief module registers its own on import (``domino_env.search`` imports them all).  Nothing
here imports an RL library.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from domino_env.rules import texas42 as t42
from domino_env.rules.line import LineGame, LineView, highest_double_holder
from domino_env.rules.texas42 import Texas42Game, Texas42View
from domino_env.rules.tiles import iter_bits

MAX_TRIES = 10_000  # Block's first-leader rejection rounds before giving up: real views pass within a few

Deal = dict[str, Any]


class GameBeliefs(NamedTuple):
    """One game's ``sample_consistent_deal`` and ``rebuild``, for views of its type."""

    sample: Callable[[Any, np.random.Generator], Deal]
    rebuild: Callable[[Any, Deal, np.random.Generator], Any]


BELIEFS: dict[type, GameBeliefs] = {}
"""A game's view type -> its beliefs (``register_beliefs``)"""


def register_beliefs(view_type: type, sample: Callable[[Any, np.random.Generator], Deal],
                     rebuild: Callable[[Any, Deal, np.random.Generator], Any]) -> None:
    """Make ``sample_consistent_deal`` and ``rebuild`` serve views of ``view_type`` (a game's belief
    module calls it when imported) without this module knowing the game."""
    BELIEFS[view_type] = GameBeliefs(sample, rebuild)


def sample_consistent_deal(view: Any, rng: np.random.Generator) -> Deal:
    """A random round-start deal consistent with ``view`` (a view of any game in ``BELIEFS``), in the
    form ``reset(options={"deal": ...})`` takes: line games ``{"hands", "stock", "leader"}``, Texas 42
    ``{"hands", "shaker"}`` (tile ids;
    Texas 88 adds ``"kitty"`` and, once the bid winner has discarded, ``"discards"`` in order, which
    ``rebuild`` replays and ``reset`` does not take).

    Replaying the view's public history on it (``rebuild``) reproduces the view exactly; the
    distribution is described in the module docstring. A view of a finished episode is refused:
    its scores already count the hidden hands, which the end of a round makes public.
    """
    if view.current_player is None:
        raise ValueError("the episode is over: its scores depend on the hands, nothing is left to sample")
    beliefs = BELIEFS.get(type(view))
    if beliefs is None:
        raise TypeError(f"no deal sampler for {type(view).__name__}")
    return beliefs.sample(view, rng)


def rebuild(view: Any, deal: Deal, rng: np.random.Generator) -> Any:
    """The engine at ``view``'s position on ``deal``: the public history replayed; ``rng`` deals later rounds.

    Scores (line) and marks (42) are carried over; past rounds' results are not in a view, so the
    engine's ``results`` list starts empty.
    """
    beliefs = BELIEFS.get(type(view))
    if beliefs is None:
        raise TypeError(f"cannot rebuild a game from {type(view).__name__}")
    return beliefs.rebuild(view, deal, rng)


def determinize(view: Any, rng: np.random.Generator) -> Any:
    """A full-information engine drawn from the seat's beliefs: ``rebuild(view, sample(view))``."""
    return rebuild(view, sample_consistent_deal(view, rng), rng)


# ----- exact uniform allocation ------------------------------------------------------------------
def uniform_allocation(
    allowed: Sequence[int],
    room: Sequence[int],
    rng: np.random.Generator,
    at_least: tuple[int, int, int] | None = None,
    histories: Sequence[_HistoryTally | None] | None = None,
) -> list[int]:
    """Bin of each item, uniform over the assignments where item ``i`` goes to a bin in bit set
    ``allowed[i]``, bin ``b`` receives exactly ``room[b]`` items, with ``at_least=(b, items, k)``
    bin ``b`` receives at least ``k`` of the items in bit set ``items``, and with ``histories[b]``
    the items bin ``b`` receives keep ``histories[b].fits`` true (a test monotone in the items).

    Counts completions by dynamic programming, then draws item by item with probability proportional
    to the completions each choice leaves. Without ``histories`` items with the same constraints are
    interchangeable, so ``_ClassCounter`` counts by group instead (the item-by-item memo grows
    with the room left in every bin: seconds for a 56-tile Texas 88 deal). Raises ``ValueError``
    when no assignment exists.
    """
    return _allocation_counter(allowed, room, at_least, histories).draw(rng)


def _allocation_counter(
    allowed: Sequence[int], room: Sequence[int], at_least: tuple[int, int, int] | None,
    histories: Sequence[_HistoryTally | None] | None,
) -> _HistoryCounter | _ClassCounter:
    """The counter that draws ``uniform_allocation``'s assignments, checked to have one."""
    if histories is None or all(h is None for h in histories):
        counter: _HistoryCounter | _ClassCounter = _class_counter(tuple(allowed), tuple(room), at_least)
    else:
        counter = _history_counter(tuple(allowed), tuple(room), at_least, tuple(histories))
    if sum(room) != len(allowed) or counter.completions() == 0:
        raise ValueError("no deal satisfies the constraints of this view")
    return counter


@functools.lru_cache(maxsize=16)
def _history_counter(allowed: tuple[int, ...], room: tuple[int, ...], at_least: tuple[int, int, int] | None,
                     tallies: tuple[_HistoryTally | None, ...]) -> _HistoryCounter:
    """One counter per set of constraints, kept with its memo: the search samples many worlds from
    one view (after a draw, each of them once asked the whole count again)."""
    return _HistoryCounter(allowed, room, at_least, tallies)


class _HistoryNode:
    """A state of the item-by-item draw: the bins its item may go to, the completions up to and
    including each (bisected by the draw), and the states they lead to (``None`` after the last
    item), so the worlds of one view walk the graph without hashing a state."""

    __slots__ = ("bins", "cumulative", "children")

    def __init__(self, bins: list[int], cumulative: list[int], children: list[_HistoryNode | None]) -> None:
        self.bins, self.cumulative, self.children = bins, cumulative, children

    @property
    def completions(self) -> int:
        return self.cumulative[-1] if self.cumulative else 0


class _HistoryCounter:
    """Counts the completions of ``uniform_allocation``'s item-by-item draw under histories: a state
    is the room left per bin, the ``at_least`` items held (capped) and every tally's counts."""

    def __init__(self, allowed: tuple[int, ...], room: tuple[int, ...], at_least: tuple[int, int, int] | None,
                 tallies: tuple[_HistoryTally | None, ...]):
        self.allowed, self.tallies = allowed, tallies
        self.k_bin, self.k_items, self.need = at_least if at_least is not None else (-1, 0, 0)
        self.start: tuple = (room, 0, tuple(t.start if t is not None else () for t in tallies))
        self.nodes: dict[tuple, _HistoryNode] = {}

    def step(self, i: int, state: tuple, b: int) -> tuple | None:
        """The state after item ``i`` goes to bin ``b``, or ``None`` when that leaves no history."""
        left, got, counts = state
        tally = self.tallies[b]
        if tally is not None and tally.levels[i]:
            added = tally.add(counts[b], tally.levels[i])
            if added is None:
                return None
            counts = counts[:b] + (added,) + counts[b + 1:]
        after = left[:b] + (left[b] - 1,) + left[b + 1:]
        return after, min(self.need, got + (b == self.k_bin and self.k_items >> i & 1)), counts

    def node(self, i: int, state: tuple) -> _HistoryNode:
        """The state before item ``i`` is drawn, with every state after it counted (kept)."""
        key = (i, *state)
        if key not in self.nodes:
            choices = ((b, self.step(i, state, b)) for b in iter_bits(self.allowed[i]) if state[0][b])
            choices = [(b, after) for b, after in choices if after is not None]
            if i + 1 < len(self.allowed):
                children: list[_HistoryNode | None] = [self.node(i + 1, after) for _b, after in choices]
                weights = [child.completions for child in children]
            else:
                children = [None] * len(choices)
                weights = [int(after[1] >= self.need) for _b, after in choices]
            cumulative = list(itertools.accumulate(weights))
            self.nodes[key] = _HistoryNode([b for b, _ in choices], cumulative, children)
        return self.nodes[key]

    def completions(self) -> int:
        return self.node(0, self.start).completions if self.allowed else int(self.need == 0)

    def draw(self, rng: np.random.Generator) -> list[int]:
        """Each item's bin, item by item with probability proportional to the completions left."""
        node, bins = self.node(0, self.start) if self.allowed else None, []
        while node is not None:
            k = bisect.bisect_right(node.cumulative, _below(rng, node.cumulative[-1]))
            bins.append(node.bins[k])
            node = node.children[k]
        return bins


Classes = tuple[tuple[int, int, int], ...]  # (bins allowed from here on, marked, items) per class


@functools.lru_cache(maxsize=16)
def _class_counter(allowed: tuple[int, ...], room: tuple[int, ...], at_least: tuple[int, int, int] | None
                   ) -> _ClassCounter:
    """One counter per set of constraints, kept with its memos: the search samples many worlds
    from one view, and every one of them asks the same counts (it draws nothing itself)."""
    return _ClassCounter(allowed, room, at_least)


class _ClassCounter:
    """``uniform_allocation`` without histories, by classes of interchangeable items.

    Bins are filled one after another, the most restricted first. Before each bin, the items left
    form classes by the bins still to come that allow them (and membership of the ``at_least`` set):
    the number of completions depends only on how many items each class holds, so the memo is keyed
    by those counts, and classes merge as the bins that told them apart are filled (Texas 88: a few
    hundred states instead of the item-by-item memo's hundred thousand). A bin takes ``k`` items of
    a class in ``C(count, k)`` ways; the counts drawn, which items is a uniform choice in each class,
    so the assignment is uniform.
    """

    def __init__(self, allowed: Sequence[int], room: Sequence[int], at_least: tuple[int, int, int] | None):
        self.allowed, self.room = allowed, room
        self.k_bin, _items, self.need = at_least if at_least is not None else (-1, 0, 0)
        self.marks = [(at_least[1] if at_least else 0) >> i & 1 for i in range(len(allowed))]
        self.order = sorted(range(len(room)), key=lambda b: sum(a >> b & 1 for a in allowed))
        self.suffix = [0] * (len(room) + 1)  # the bins from position p on
        for p in range(len(room) - 1, -1, -1):
            self.suffix[p] = self.suffix[p + 1] | 1 << self.order[p]
        self.memo: dict[tuple[int, Classes, int], int] = {}
        self.fills_memo: dict[tuple[int, Classes, int], list[tuple[tuple[int, ...], int, int]]] = {}
        self.start = self.merged(0, [(a, m, 1) for a, m in zip(allowed, self.marks, strict=True)])

    def merged(self, p: int, counts: Sequence[tuple[int, int, int]]) -> Classes:
        """``counts`` as classes of position ``p``: keys cut to the bins left, equal keys added up."""
        out: dict[tuple[int, int], int] = {}
        for key, marked, c in counts:
            if c:
                cut = (key & self.suffix[p], marked)
                out[cut] = out.get(cut, 0) + c
        return tuple(sorted((key, marked, c) for (key, marked), c in out.items()))

    def after(self, p: int, counts: Classes, taken: tuple[int, ...]) -> Classes:
        return self.merged(p + 1, [(key, m, c - k) for (key, m, c), k in zip(counts, taken, strict=True)])

    def fills(self, p: int, counts: Classes, got: int) -> list[tuple[tuple[int, ...], int, int]]:
        """``(items taken per class, ways to take them, at_least items held after)`` of every way
        the bin at position ``p`` can take its room from ``counts``."""
        state = (p, counts, got)
        if state not in self.fills_memo:
            self.fills_memo[state] = self._fills(p, counts, got)
        return self.fills_memo[state]

    def _fills(self, p: int, counts: Classes, got: int) -> list[tuple[tuple[int, ...], int, int]]:
        b = self.order[p]
        caps = [c if key >> b & 1 else 0 for key, _marked, c in counts]
        out: list[tuple[tuple[int, ...], int, int]] = []

        def extend(j: int, left: int, taken: tuple[int, ...], weight: int, held: int) -> None:
            if j == len(counts):
                if not left:
                    out.append((taken, weight, min(self.need, held) if b == self.k_bin else got))
                return
            if sum(caps[j:]) >= left:
                marked = counts[j][1]
                for k in range(min(caps[j], left) + 1):
                    extend(j + 1, left - k, (*taken, k), weight * math.comb(caps[j], k), held + k * marked)

        extend(0, self.room[b], (), 1, got)
        return out

    def ways(self, p: int, counts: Classes, got: int) -> int:
        if p == len(self.room):
            return int(not counts and got >= self.need)
        state = (p, counts, got)
        if state not in self.memo:
            self.memo[state] = sum(
                w * self.ways(p + 1, self.after(p, counts, t), g) for t, w, g in self.fills(p, counts, got)
            )
        return self.memo[state]

    def completions(self) -> int:
        return self.ways(0, self.start, 0)

    def draw(self, rng: np.random.Generator) -> list[int]:
        """Each item's bin: the counts each bin takes per class by their completions, then which items."""
        counts, got = self.start, 0
        bins_of, left = [0] * len(self.allowed), list(range(len(self.allowed)))
        for p, b in enumerate(self.order):
            options = self.fills(p, counts, got)
            weights = [w * self.ways(p + 1, self.after(p, counts, t), g) for t, w, g in options]
            pick = _below(rng, sum(weights))
            i = 0
            while pick >= weights[i]:
                pick -= weights[i]
                i += 1
            taken, _w, got = options[i]
            pools: dict[tuple[int, int], list[int]] = {}
            for item in left:
                pools.setdefault((self.allowed[item] & self.suffix[p], self.marks[item]), []).append(item)
            chosen = set()
            for (key, marked, _c), k in zip(counts, taken, strict=True):
                pool = pools[key, marked]
                chosen.update(pool[j] for j in rng.permutation(len(pool))[:k])
            for item in chosen:
                bins_of[item] = b
            left = [item for item in left if item not in chosen]
            counts = self.after(p, counts, taken)
        return bins_of


def _below(rng: np.random.Generator, bound: int) -> int:
    """A uniform integer in ``[0, bound)``, also past int64 (Texas 88 deals: about 10^40 completions),
    by rejection on ``bound.bit_length()`` random bits."""
    if bound < 2**62:
        return int(rng.integers(bound))
    bits = bound.bit_length()
    while True:
        x = int.from_bytes(rng.bytes((bits + 7) // 8), "little") >> (-bits % 8)
        if x < bound:
            return x


class _Allocation:
    """The tiles of ``hidden`` to add to the hands, with their constraints read once, so that the
    worlds of one view draw without rereading them: seat ``s`` takes ``room[s]`` tiles; tile ``t``
    never goes to a seat whose ``banned`` set holds it, nor to the leftover bin when
    ``leftover_banned`` holds it; ``at_least`` is ``(seat, tile set, count)``, ``tallies`` the seats'
    histories (``uniform_allocation``). Raises ``ValueError`` when no allocation exists."""

    def __init__(self, hidden: int, room: list[int], banned: list[int],
                 at_least: tuple[int, int, int] | None = None, leftover_banned: int = 0,
                 tallies: Sequence[_HistoryTally | None] | None = None) -> None:
        self.tiles = list(iter_bits(hidden))
        self.rest = rest = len(room)
        allowed = [
            (0 if leftover_banned >> t & 1 else 1 << rest)
            | sum(1 << s for s in range(rest) if not banned[s] >> t & 1)
            for t in self.tiles
        ]
        if at_least is not None:  # re-index the tile set over the hidden tiles
            seat, mask, k = at_least
            at_least = (seat, sum(1 << i for i, t in enumerate(self.tiles) if mask >> t & 1), k)
        histories = None if tallies is None else [*tallies, None]  # the leftover bin keeps no history
        self.counter = _allocation_counter(allowed, [*room, len(self.tiles) - sum(room)], at_least, histories)

    def draw(self, hands: list[int], rng: np.random.Generator) -> list[int]:
        """Add the tiles to ``hands`` (one bit set per seat) and return the leftover bin's tiles as a
        list in random order."""
        leftover = []
        for t, b in zip(self.tiles, self.counter.draw(rng), strict=True):
            if b == self.rest:
                leftover.append(t)
            else:
                hands[b] |= 1 << t
        return [leftover[i] for i in rng.permutation(len(leftover))]


def _allocate(
    hidden: int, hands: list[int], room: list[int], banned: list[int], rng: np.random.Generator,
    at_least: tuple[int, int, int] | None = None, leftover_banned: int = 0,
    tallies: Sequence[_HistoryTally | None] | None = None,
) -> list[int]:
    """One draw of ``_Allocation``: the tiles of ``hidden`` added to ``hands``, the leftover returned."""
    return _Allocation(hidden, room, banned, at_least, leftover_banned, tallies).draw(hands, rng)


# ----- line games --------------------------------------------------------------------------------
NEVER = 1 << 62  # the deadline of a tile still held


def _earliest_deadline_matching(jobs: Sequence[tuple[int, int]], slots: Sequence[int]) -> list[int] | None:
    """Match every job ``(release, deadline)`` to its own slot time ``s`` (``slots`` ascending) with
    ``release <= s < deadline``: the job index each filled slot takes, in slot order, or ``None`` when
    no matching exists. Each slot takes the released job of earliest deadline, which finds a matching
    whenever one exists; slots may stay free."""
    pending = sorted(range(len(jobs)), key=lambda j: jobs[j][0])
    ready: list[tuple[int, int]] = []  # (deadline, job) heap
    taken = []
    for when in slots:
        while pending and jobs[pending[0]][0] <= when:
            j = pending.pop(0)
            heapq.heappush(ready, (jobs[j][1], j))
        if ready:
            deadline, j = heapq.heappop(ready)
            if deadline <= when:
                return None
            taken.append(j)
    return taken if len(taken) == len(jobs) else None


class _SeatHistory:
    """One seat's round so far: when it drew, what each pass or stuck draw proves, when it played."""

    def __init__(self) -> None:
        self.draws: list[int] = []  # history indices of its draws
        self.constraints: list[tuple[int, int]] = []  # (index, tiles it could not hold then)
        self.plays: dict[int, int] = {}  # tile -> history index

    def key(self) -> tuple:
        """Everything its answers depend on."""
        return tuple(self.draws), tuple(self.constraints), tuple(sorted(self.plays.items()))

    def banned_now(self) -> int:
        """Tiles its current hand cannot hold: constraints after its last draw bind every tile held."""
        last = self.draws[-1] if self.draws else -1
        banned = 0
        for index, tiles in self.constraints:
            if index > last:
                banned |= tiles
        return banned

    def release(self, tile: int, deadline: int = NEVER) -> int:
        """The last constraint ``tile`` breaks while it could be held (before ``deadline``, its play):
        a constraint binds the tiles that arrived before it, so the tile arrives there or later (a
        draw there brings it after the check); -1 when it could have been dealt."""
        return max((i for i, banned in self.constraints if i < deadline and banned >> tile & 1), default=-1)

    def level(self, tile: int) -> int:
        """0 when a held ``tile`` could have been dealt, else ``j``: it came with the ``j``-th draw or a
        later one (``banned_now`` tiles excluded)."""
        release = self.release(tile)
        return 0 if release < 0 else bisect.bisect_left(self.draws, release) + 1

    def slots(self, initial: int) -> list[int]:
        """When its tiles arrived: ``initial`` at the deal (-1), then one at each draw."""
        return [-1] * initial + self.draws

    def fits(self, initial: int, levels: Sequence[int]) -> bool:
        """Whether some history brings its played tiles and held tiles of ``levels`` (how many at each
        level 1, 2, ...) in time; held tiles of level 0 fill the slots left, as any slot suits them."""
        jobs = [(self.release(t, play), play) for t, play in self.plays.items()]
        jobs += [(self.draws[level], NEVER) for level, count in enumerate(levels) for _ in range(count)]
        return _earliest_deadline_matching(jobs, self.slots(initial)) is not None

    def dealt_and_drawn(self, hand: int, initial: int) -> tuple[list[int], list[int]] | None:
        """Its round-start hand and the tile of each draw, or ``None`` if no history fits ``hand``."""
        tiles = [(t, NEVER) for t in iter_bits(hand)] + list(self.plays.items())
        jobs = [(self.release(t, deadline), deadline) for t, deadline in tiles]
        taken = _earliest_deadline_matching(jobs, self.slots(initial))
        if taken is None or len(taken) != initial + len(self.draws):
            return None
        filled = [tiles[j][0] for j in taken]
        return filled[:initial], filled[initial:]


class _HistoryTally:
    """Keeps an allocation to the hands some dealing-and-drawing history explains (``uniform_allocation``).

    A held tile of level ``j`` came with draw ``j`` or later; the state is how many held tiles the
    seat has at each level 1..draws, and a tile is refused when no history brings them all in time.
    """

    def __init__(self, history: _SeatHistory, initial: int, items: Sequence[int], known: int) -> None:
        self.history, self.initial = history, initial
        self.levels = [history.level(t) for t in items]
        counts = [0] * len(history.draws)
        for t in iter_bits(known):
            if level := history.level(t):
                counts[level - 1] += 1
        self.start = tuple(counts)
        self._fits: dict[tuple[int, ...], bool] = {}
        self.key = (history.key(), initial, tuple(self.levels), self.start)

    def __hash__(self) -> int:  # equal keys answer alike: ``_history_counter`` caches by them
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _HistoryTally) and self.key == other.key

    def add(self, counts: tuple[int, ...], level: int) -> tuple[int, ...] | None:
        """``counts`` with one more held tile of ``level``, or ``None`` when no history fits them."""
        after = counts[:level - 1] + (counts[level - 1] + 1,) + counts[level:]
        if after not in self._fits:
            self._fits[after] = self.history.fits(self.initial, after)
        return after if self._fits[after] else None


def _line_histories(view: LineView) -> list[_SeatHistory]:
    cfg, ts = view.config, view.config.tiles
    draw_action = 2 * ts.num_tiles
    seats = [_SeatHistory() for _ in range(cfg.num_players)]
    for index, (seat, action, left, right) in enumerate(view.history):
        ends = ts.suit_mask[left] | ts.suit_mask[right] if left >= 0 else 0
        if action == draw_action:
            seats[seat].draws.append(index)
            if cfg.draw_policy == "when_stuck":
                seats[seat].constraints.append((index, ends))
        elif action == draw_action + 1:
            seats[seat].constraints.append((index, ends))
        else:
            seats[seat].plays[action >> 1] = index
    return seats


class _LineBeliefs(NamedTuple):
    """What a line view proves about the hidden tiles, as ``_line_position`` draws from it."""

    histories: list[_SeatHistory]
    known: list[int]
    initial: list[int]
    allocation: _Allocation


def _line_beliefs(view: LineView) -> _LineBeliefs:
    n = view.config.num_players
    histories = _line_histories(view)
    on_line = sum(1 << t for t, _seat, _side in view.line)
    known = [view.hand if s == view.seat else 0 for s in range(n)] if view.hands is None else list(view.hands)
    hidden = view.config.tiles.full_mask & ~on_line & ~sum(known)
    room = [view.hand_sizes[s] - known[s].bit_count() for s in range(n)]
    initial = [view.hand_sizes[s] + len(h.plays) - len(h.draws) for s, h in enumerate(histories)]
    items = list(iter_bits(hidden))
    tallies = [
        _HistoryTally(h, initial[s], items, known[s]) if h.draws else None for s, h in enumerate(histories)
    ]
    banned = [h.banned_now() for h in histories]
    return _LineBeliefs(histories, known, initial, _Allocation(hidden, room, banned, tallies=tallies))


def _line_position(view: LineView, beliefs: _LineBeliefs, rng: np.random.Generator
                   ) -> tuple[list[int], list[int]]:
    """Every seat's hand now and the tiles in no hand and not on the line, in random order."""
    cfg, ts, n = view.config, view.config.tiles, view.config.num_players
    check_leader = view.round_index == 0 and cfg.first_leader == "highest_double" and cfg.variant == "block"
    for _ in range(MAX_TRIES):
        hands = list(beliefs.known)
        rest = beliefs.allocation.draw(hands, rng)
        if check_leader and view.leader != highest_double_holder(
            ts, [hands[s] | _played(view, s) for s in range(n)]
        ):
            continue
        return hands, rest
    raise RuntimeError(f"no consistent deal found in {MAX_TRIES} tries")


def sample_line_positions(view: LineView, rng: np.random.Generator, count: int
                          ) -> list[tuple[list[int], list[int]]]:
    """``count`` times every seat's hand now and the stock left in draw order (Draw; Block: the
    boneyard, never drawn), as in the engines that ``rebuild`` makes of ``sample_consistent_deal``
    with the same generator, without dealing the round's start and replaying its moves: what a
    search that plays on from the present needs. The view's proofs are read once for all of them."""
    beliefs = _line_beliefs(view)
    return [_line_position(view, beliefs, rng) for _ in range(count)]


def _sample_line(view: LineView, rng: np.random.Generator) -> Deal:
    beliefs = _line_beliefs(view)
    hands, rest = _line_position(view, beliefs, rng)
    starts = [h.dealt_and_drawn(hands[s], beliefs.initial[s]) for s, h in enumerate(beliefs.histories)]
    if None in starts:
        raise RuntimeError("internal error: an allocation the tallies accepted has no history")
    stock = _draw_order(view, [drawn for _dealt, drawn in starts]) + rest
    return {"hands": [dealt for dealt, _drawn in starts],
            "stock": stock if view.config.variant == "draw" else [], "leader": view.leader}


def _played(view: LineView, seat: int) -> int:
    return sum(1 << t for t, s, _side in view.line if s == seat)


def _draw_order(view: LineView, drawn: list[list[int]]) -> list[int]:
    """The front of the stock: each seat's drawn tiles in the order the draws happened."""
    draw_action = 2 * view.config.tiles.num_tiles
    queues = [iter(tiles) for tiles in drawn]
    return [next(queues[seat]) for seat, action, _l, _r in view.history if action == draw_action]


def _rebuild_line(view: LineView, deal: Deal, rng: np.random.Generator) -> LineGame:
    """Scores and the round index carried over, then the round's moves."""
    game = LineGame(view.config, rng, deal=deal)
    game.scores, game.round_index = list(view.scores), view.round_index
    for _seat, action, _left, _right in view.history:
        game.apply(action)
    return game


# ----- Texas 42 ----------------------------------------------------------------------------------
class Texas42Unknowns(NamedTuple):
    """What a Texas 42 view leaves open: the hands it knows, the tiles it does not see, how many of
    them each seat still holds, the tiles each seat is proven not to hold, and a Plunge bidder's
    ``(seat, doubles, how many at least)`` or ``None``."""

    known: list[int]
    hidden: int
    room: list[int]
    banned: list[int]
    at_least: tuple[int, int, int] | None


def texas42_unknowns(view: Texas42View) -> Texas42Unknowns:
    """The constraints every deal consistent with ``view`` meets (docs/rules.md 4)."""
    v, n = view.config.variant, view.config.num_players
    known = [view.hand if s == view.seat else 0 for s in range(n)] if view.hands is None else list(view.hands)
    my_discards = sum(1 << t for t in view.discards if t >= 0)
    hidden = v.full_mask & ~sum(known) & ~sum(view.played_by) & ~my_discards
    room = [view.hand_sizes[s] - known[s].bit_count() for s in range(n)]
    banned = [0] * n
    if view.declaration == v.sevens:
        for s in range(n):
            farthest = max((v.sevens_distance[t] for t in iter_bits(view.played_by[s])), default=0)
            banned[s] = sum(1 << t for t, d in enumerate(v.sevens_distance) if d < farthest)
    elif view.declaration >= 0:
        scheme = t42.declared_scheme(view.declaration, view.config)
        for s in range(n):
            for suit in iter_bits(view.voids[s]):
                banned[s] |= scheme.follow[suit]
    at_least = None  # a Plunge bidder (even one outbid since) was dealt four doubles or more
    plunger = next((s for s, b in enumerate(view.bids) if b >= v.bid_plunge), view.seat)
    if plunger != view.seat:
        dealt_doubles = (view.played_by[plunger] & v.doubles_mask).bit_count()
        at_least = (plunger, v.doubles_mask, max(0, t42.PLUNGE_DOUBLES - dealt_doubles))
    return Texas42Unknowns(known, hidden, room, banned, at_least)


def _sample_texas42(view: Texas42View, rng: np.random.Generator) -> Deal:
    v = view.config.variant
    known, hidden, room, banned, at_least = texas42_unknowns(view)
    # Texas 88: the leftover bin is the kitty while bidding, then the discards this seat did not see
    # (never count tiles: docs/rules.md 3.8).
    discarding = view.phase != t42.BID and v.kitty_size > 0
    hands = list(known)
    leftover = _allocate(hidden, hands, room, banned, rng, at_least, v.count_mask if discarding else 0)
    dealt = [h | p for h, p in zip(hands, view.played_by, strict=True)]
    deal: Deal = {"shaker": view.shaker}
    if discarding:
        seen = iter(leftover)
        discards = [t if t >= 0 else next(seen) for t in view.discards]
        bidder_tiles = dealt[view.bidder] | sum(1 << t for t in discards)
        kitty = [int(t) for t in rng.choice(list(iter_bits(bidder_tiles)), v.kitty_size, replace=False)]
        dealt[view.bidder] = bidder_tiles & ~sum(1 << t for t in kitty)
        deal |= {"kitty": kitty, "discards": discards}
    elif v.kitty_size:
        deal["kitty"] = leftover
    deal["hands"] = [list(iter_bits(h)) for h in dealt]
    return deal


def _rebuild_texas42(view: Texas42View, deal: Deal, rng: np.random.Generator) -> Texas42Game:
    """Marks carried over, then the hand's moves (Texas 88's hidden discards from ``deal``)."""
    deal = dict(deal)
    discards = iter(deal.pop("discards", ()))  # Texas 88: the discards the view hides
    game = Texas42Game(view.config, rng, deal=deal)
    game.marks = list(view.marks)
    for _seat, action, _leads in t42.hand_moves(view):
        game.apply(action if action >= 0 else game.variant.discard + next(discards))
    return game


register_beliefs(LineView, _sample_line, _rebuild_line)
register_beliefs(Texas42View, _sample_texas42, _rebuild_texas42)
