"""Batched Mexican Train: ``num_envs`` episodes (one round or a match) stepped in lockstep with numpy.

Per game the state is a few arrays: hands and the table as ``uint64`` bit sets (two words over the 91
double-twelve tiles), every train's end and when a double was laid at it, bit sets over seats (markers,
trains started, first turns done), the open double's train, the dealt order and a boneyard pointer,
the turn's flags (draw allowance, drew, progress, opening run) and the voids the compact encoder
proves. A step is a fixed sequence of whole-batch operations on ``(B,)`` arrays; only passes (their
voids) and games that end a round take a second, smaller pass.

The mask and the observation are built as bit words and unpacked once each. A play's action bit is
``(n+1)*t + k``: every hand is also kept spread to those bits on every slot (``hand_actions``, one
table row toggled per tile played or drawn), and each train slot open to the seat to act keeps the
action bits of the tiles holding its end (a table row per slot and end value).

Every rule and table comes from ``rules.mexican_train`` (``games.MEXICAN_TRAIN.config`` validates the
options; ``TILE_*``, ``SCORE_PIPS``, ``DOUBLE_TILE``, ``SUIT``), and results equal
``rules.mexican_train.MexicanTrainGame`` with ``envs.mexican_train_v0``'s rewards and the ``compact``
encoder step by step (``tests/vector/test_mexican_train_vector_vs_reference.py``). It plays every
option but ``double_bonus="any"`` (several open doubles kept in play order), for which
``games.MEXICAN_TRAIN.vector_class`` answers ``None`` and the constructor raises.

Rewards (``envs.mexican_train_v0``): at the step that ends a round, with ``p_i`` seat ``i``'s round
points, ``zero_sum`` pays ``-(p_i - mean of the others' p)``, ``penalty`` pays ``-p_i``; ``win_loss``
pays only when the episode ends, the zero-sum share of ``w_i = 1`` for the seats with the lowest total.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from numba import njit

from domino_env.encoders.mexican_train import NUMBERS
from domino_env.encoders.mexican_train_compact import CHAIN_NODES, CompactMexicanTrainEncoder, known_voids
from domino_env.games import MEXICAN_TRAIN
from domino_env.rules.mexican_train import (
    BLANK_SCORINGS,
    DOUBLE_TILE,
    NUM_TILES,
    SCORE_PIPS,
    SUIT,
    TILE_HIGH,
    TILE_LOW,
    MexicanTrainGame,
    engine_value,
)
from domino_env.rules.rewards import zero_sum
from domino_env.rules.tiles import iter_bits
from domino_env.vector.batch import Batch, deal_rows, integer_array, permutations
from domino_env.vector.line import BatchedMatches, _unpack, _words  # the line engine's bit-set helpers

Dealer = Callable[[np.ndarray], np.ndarray]
"""Given the ids of the games starting a round, return their deals: ``(k, 91)`` permutations of the
tile ids. Seat ``i`` gets columns ``i*h .. i*h+h-1`` and the rest is the boneyard in drawing order;
with ``engine_source="set_aside"`` the round's engine is first taken out wherever it lies."""

_WORDS = 2  # uint64 words of a tile set
_NO_TILE = NUM_TILES  # the "no tile" row of the per-tile tables
_NOT_A_DOUBLE = np.iinfo(np.int64).max  # ``double_at``: the train does not end in a double
_ONE = np.uint64(1)
_FLAG_SLOTS = ("open_doubles", "cover_first", "to_act", "first_turn_done", "in_run", "drew")
"""The observation's 0/1 flag slots after ``marked``: all within 64 bits of it, put as one word."""

# Per-tile tables over the canonical index, with a "no tile" row 91.
_TILE_BIT = np.array([1 << (t % 64) for t in range(NUM_TILES)] + [0], np.uint64)
_TILE_WORD = np.array([t // 64 for t in range(NUM_TILES)] + [0], np.int64)
_LOW = np.append(TILE_LOW, 0)
_HIGH = np.append(TILE_HIGH, 0)
_DOUBLES = np.array(DOUBLE_TILE)
_SUIT_TABLE = np.array([[SUIT[v] >> t & 1 for v in range(NUMBERS)] for t in range(NUM_TILES)], bool)
_FULL = _words((1 << NUM_TILES) - 1, _WORDS)


def _put(words: list[np.ndarray], offset: int, value: Sequence[np.ndarray]) -> None:
    """OR the bit set ``value`` (little-endian ``uint64`` words, every bit past its length 0) into
    ``words`` from bit ``offset`` on; bits past the last word are dropped."""
    for i, part in enumerate(value):
        w, shift = divmod(offset + 64 * i, 64)
        words[w] |= part << np.uint64(shift)
        if shift and w + 1 < len(words):
            words[w + 1] |= part >> np.uint64(64 - shift)


def _holds(hand: list[np.ndarray], tile: np.ndarray) -> np.ndarray:
    """Whether each game's ``hand`` (its words) holds its ``tile`` (``_NO_TILE``: no)."""
    word = np.where(_TILE_WORD.take(tile) == 0, hand[0], hand[1])
    return (word & _TILE_BIT.take(tile)) != 0


def _count_numbers(counts: np.ndarray, row: np.ndarray, tile: np.ndarray, delta: np.ndarray) -> None:
    """Add ``delta`` to the count of each number ``tile`` holds (a double's once) in row ``row`` of
    ``counts``, a flat view of ``(rows, 13)`` per-number counts."""
    low, high = _LOW.take(tile), _HIGH.take(tile)
    counts[row * NUMBERS + low] += delta
    counts[row * NUMBERS + high] += delta * (low != high)


# The home plan (``encoders.mexican_train_compact.longest_chain``) compiled: the same memoized search
# over trails, its memo an open-addressing table keyed by (end, hand's two words); every row of a batch
# stamps its own entries, so the table is never cleared.
_SUIT_TILES = np.array([[t for t in range(NUM_TILES) if SUIT[v] >> t & 1] for v in range(NUMBERS)], np.int64)
_OTHER_HALF = np.array([[TILE_LOW[t] + TILE_HIGH[t] - v for v in range(NUMBERS)] for t in range(NUM_TILES)],
                       np.int64)
_TILE_PIPS = (TILE_LOW + TILE_HIGH).astype(np.int64)
_IS_DOUBLE = np.asarray(TILE_LOW == TILE_HIGH)
_SUIT_WORDS = np.array([_words(SUIT[v], _WORDS) for v in range(NUMBERS)]).view(np.int64)
_DOUBLE_WORDS = np.array([_words(1 << DOUBLE_TILE[v], _WORDS) for v in range(NUMBERS)]).view(np.int64)
_MEMO_SLOTS = 4096  # a power of two, beyond CHAIN_NODES plus the deepest trail (a row stores no more)


# The memo's columns (int64; the hand's words stored bit for bit), and the row that counts entries.
_STAMP, _END, _LO, _HI, _LENGTH, _PIPS, _FIRST = range(7)  # _STAMP: the row that owns the slot (-1: none)
_COUNT = _MEMO_SLOTS  # memo[_COUNT, 0]: entries the current row has stored


@njit(cache=True)
def _probe(memo, row, end, lo, hi):
    """The slot holding ``(end, lo, hi)`` for ``row``, or ``-1 - slot`` of the empty slot to use."""
    mixed = np.uint64(lo) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(hi) * np.uint64(0xC2B2AE3D27D4EB4F)
    i = np.int64((mixed ^ np.uint64(end)) >> np.uint64(40)) & (_MEMO_SLOTS - 1)
    while memo[i, _STAMP] == row:
        if memo[i, _END] == end and memo[i, _LO] == lo and memo[i, _HI] == hi:
            return i
        i = (i + 1) & (_MEMO_SLOTS - 1)
    return -1 - i


@njit(cache=True)
def _best_from(memo, row, end, lo, hi):
    """``longest_chain``'s ``best_from`` on the hand's words ``lo, hi`` (as int64): (length, pips) of
    the best chain from ``end``; memoizes its first tile, and expands no position once ``CHAIN_NODES``
    are stored (as the Python search)."""
    i = _probe(memo, row, end, lo, hi)
    if i >= 0:
        return memo[i, _LENGTH], memo[i, _PIPS]
    best_length, best_pips, best_first = 0, 0, -1
    if memo[_COUNT, 0] < CHAIN_NODES:
        for t in _SUIT_TILES[end]:
            bit = np.int64(1) << (t % 64)
            if (lo if t < 64 else hi) & bit == 0:
                continue
            rest_lo, rest_hi = (lo ^ bit, hi) if t < 64 else (lo, hi ^ bit)
            length, pips = _best_from(memo, row, _OTHER_HALF[t, end], rest_lo, rest_hi)
            if _IS_DOUBLE[t] and length == 0:
                continue
            if length + 1 > best_length or (length + 1 == best_length and pips + _TILE_PIPS[t] > best_pips):
                best_length, best_pips, best_first = length + 1, pips + _TILE_PIPS[t], t
        i = -1 - _probe(memo, row, end, lo, hi)
        memo[i, _STAMP], memo[i, _END], memo[i, _LO], memo[i, _HI] = row, end, lo, hi
        memo[i, _LENGTH], memo[i, _PIPS], memo[i, _FIRST] = best_length, best_pips, best_first
        memo[_COUNT, 0] += 1
    return best_length, best_pips


@njit(cache=True)
def _write_home_plans(memo, lo, hi, ends, plan, first, coverable):
    """Per row: the ``plan`` and ``plan_first`` tile sets (``(B, 2)`` words) of the longest chain of
    the hand ``lo, hi`` (int64 views of its words) from ``ends``, read back through the memo's first
    tiles, and ``coverable``."""
    memo[:, _STAMP] = -1
    for row in range(len(lo)):
        memo[_COUNT, 0] = 0
        end, hand_lo, hand_hi = ends[row], lo[row], hi[row]
        _best_from(memo, row, end, hand_lo, hand_hi)
        i = _probe(memo, row, end, hand_lo, hand_hi)  # the root: always stored (the count starts at 0)
        t = memo[i, _FIRST]
        if t >= 0:
            first[row, t // 64] = np.int64(1) << (t % 64)
        while i >= 0 and memo[i, _FIRST] >= 0:
            t = memo[i, _FIRST]
            bit = np.int64(1) << (t % 64)
            plan[row, t // 64] |= bit
            if t < 64:
                hand_lo ^= bit
            else:
                hand_hi ^= bit
            end = _OTHER_HALF[t, end]
            i = _probe(memo, row, end, hand_lo, hand_hi)
        for v in range(NUMBERS):  # the double of v, and another tile of v to cover it
            held_lo, held_hi = lo[row] & _SUIT_WORDS[v, 0], hi[row] & _SUIT_WORDS[v, 1]
            double_lo, double_hi = held_lo & _DOUBLE_WORDS[v, 0], held_hi & _DOUBLE_WORDS[v, 1]
            if double_lo | double_hi and (held_lo ^ double_lo) | (held_hi ^ double_hi):
                coverable[row] |= 1 << v


def _home_plans(hand: list[np.ndarray], home_end: np.ndarray) -> list[list[np.ndarray]]:
    """The ``plan``, ``plan_first`` (tile sets) and ``coverable`` (13 bits) slots of each row, as words
    (``encoders.mexican_train_compact``: ``plan_bits``, ``coverable_doubles``), compiled."""
    b = len(home_end)
    plan, first = np.zeros((b, _WORDS), np.uint64), np.zeros((b, _WORDS), np.uint64)
    coverable = np.zeros(b, np.uint64)
    memo = np.empty((_MEMO_SLOTS + 1, 7), np.int64)
    _write_home_plans(memo, hand[0].view(np.int64), hand[1].view(np.int64), home_end.astype(np.int64),
                      plan.view(np.int64), first.view(np.int64), coverable.view(np.int64))
    return [list(plan.T), list(first.T), [coverable]]


_ROW_STATE = (
    "hands", "hand_actions", "hand_count", "numbers_held", "table", "numbers_out", "order", "ptr", "ends",
    "double_at", "marked", "started", "self_started", "first_turn_done", "voids", "open_train", "plays",
    "seat", "nominal_first", "can_draw", "drew", "progress", "in_run", "run_played", "run_double",
    "no_progress", "round_index", "scores",
)
"""Every per-game array of ``VectorMexicanTrainGame``'s state (``set_positions`` copies a row by them)."""


def _seat_bits(flags: Iterable[bool]) -> np.uint64:
    """Per-seat flags as a bit set over seats."""
    return np.uint64(sum(1 << s for s, flag in enumerate(flags) if flag))


class _Actor(NamedTuple):
    """The seat to act's side of the table, shared by the mask and the observation."""

    rel: np.ndarray  # (B, n) flat (game, seat) index of each relative seat
    hand: list[np.ndarray]  # its hand's words, (B,) each
    ends: np.ndarray  # (n + 1, B): each train slot's end (relative seats' trains, then the Mexican)
    open_slot: np.ndarray  # (B,): the open double's train slot, -1: none


class VectorMexicanTrainGame(BatchedMatches):
    """``num_envs`` Mexican Train episodes with automatic reset.

    ``episode`` (``"round"``, the default as in the env, or ``"match"``), ``reward`` (``"zero_sum"``,
    ``"penalty"``, ``"win_loss"``) and ``options`` (every option of ``rules.mexican_train.
    MexicanTrainConfig``) mean what they mean in ``envs.mexican_train_v0.raw_env``, checked by the same
    ``games.MEXICAN_TRAIN.config``. ``dealer`` replaces the seeded shuffle (see ``Dealer``); the first
    player of a match's first round is drawn by lot from the seeded generator either way.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        dealer: Dealer | None = None,
        episode: str = "round",
        reward: str = "zero_sum",
        **options,
    ):
        super().__init__(MEXICAN_TRAIN, CompactMexicanTrainEncoder().slots, num_envs, dealer=dealer,
                         episode=episode, reward=reward, options=options)
        cfg = self.config
        if cfg.double_bonus != "cover":
            raise ValueError(
                f"VectorMexicanTrainGame plays double_bonus='cover' only, not {cfg.double_bonus!r} "
                "(several open doubles); use game.backend=fallback"
            )
        n, b = cfg.num_players, num_envs
        self._slots = {s.name: s.start for s in self.slots}
        self._bits = self._slots["hand_sizes"]  # the 0/1 slots end where the scaled ones begin
        # What each scaled slot's count is divided by: hand sizes, boneyard, scores, unseen per number.
        scales = [NUM_TILES] * (n + 1) + [cfg.max_match_points] * n + [NUMBERS] * NUMBERS
        self._scales = np.array(scales, np.float32)
        # The 0/1 flag slots after ``marked`` all lie within 64 bits of it (``_observe``).
        marked = self._slots["marked"]
        self._flag_shift = {name: np.uint64(self._slots[name] - marked) for name in _FLAG_SLOTS}
        self._rng = np.random.default_rng(seed)
        self._draw_action = NUM_TILES * (n + 1)
        self._set_aside = cfg.engine_source == "set_aside"
        self._runs = cfg.opening == "run"
        self._points = SCORE_PIPS[BLANK_SCORINGS.index(cfg.blank_scoring)]
        self._seats = np.arange(n)
        self._rotation = (self._seats[:, None] + self._seats) % n  # [me, r] = (me + r) % n
        self._following = np.roll(self._seats, -1)  # a gather from this beats ``% n``
        self._all_seats = np.uint64((1 << n) - 1)
        self._plan_mask(n)

        self._ar = np.arange(b)
        self._base = self._ar * n
        self._row_ends = self._ar * (n + 1)
        self._row_order = self._ar * NUM_TILES
        self._row_words = self._ar * self._mask_words
        self.hands = np.zeros((b, n, _WORDS), np.uint64)  # also read by ``vector.batch.hidden_hands``
        self._hands_flat = self.hands.reshape(-1)  # a view: (game, seat, word)
        self.hand_actions = np.zeros((b, n, self._mask_words), np.uint64)  # each hand on every slot
        self._hand_actions_rows = self.hand_actions.reshape(b * n, -1)  # a view: (game, seat) rows
        self.hand_count = np.zeros((b, n), np.int64)
        self.table = np.zeros((b, _WORDS), np.uint64)  # the engine and every train's tiles
        self.numbers_out = np.zeros((b, NUMBERS), np.int64)  # tiles holding each number on the table
        self.numbers_held = np.zeros((b, n, NUMBERS), np.int64)  # in each hand
        self.order = np.zeros((b, NUM_TILES), np.int64)  # the deal (set_aside: engine moved to the end)
        self.ptr = np.zeros(b, np.int64)  # the boneyard's next tile in ``order``
        self.ends = np.zeros((b, n + 1), np.int64)  # seats' trains, then the Mexican
        self.double_at = np.full((b, n + 1), _NOT_A_DOUBLE)  # the play count when its end double was laid
        self.marked = np.zeros(b, np.uint64)  # bit sets over seats from here on
        self.started = np.zeros(b, np.uint64)  # a tile lies on the seat's train
        self.self_started = np.zeros(b, np.uint64)  # the seat itself has played on its train
        self.first_turn_done = np.zeros(b, np.uint64)
        self.voids = np.zeros((b, n), np.uint64)  # bit sets over the numbers each seat is proven to lack
        self.open_train = np.full(b, -1, np.int64)  # the open double's train, -1: none
        self.plays = np.zeros(b, np.int64)
        self.seat = np.zeros(b, np.int64)
        self.nominal_first = np.zeros(b, np.int64)  # the round's first seat before the engine's placement
        self.can_draw = np.zeros(b, bool)
        self.drew = np.zeros(b, bool)
        self.progress = np.zeros(b, bool)
        self.in_run = np.zeros(b, bool)
        self.run_played = np.zeros(b, bool)
        self.run_double = np.zeros(b, bool)  # the run's last tile is a double still to cover
        self.no_progress = np.zeros(b, np.int64)
        self.round_index = np.zeros(b, np.int64)
        self.scores = np.zeros((b, n), np.int64)
        self._mask = np.zeros((b, self._mask_words), np.uint64)  # the legal actions' bit words

    def _plan_mask(self, n: int) -> None:
        """Tables of the mask's bit words: per tile, its action bits on every slot (a hand is kept
        spread so, ``hand_actions``); per (slot, end value), the action bits of the tiles holding the
        value on that slot."""
        stride = n + 1
        self._mask_words = -(-self.num_actions // 64)
        every_slot = (1 << stride) - 1
        tiles = [_words(every_slot << (stride * t), self._mask_words) for t in range(NUM_TILES)]
        self._tile_actions = np.stack([*tiles, np.zeros(self._mask_words, np.uint64)])  # row 91: no tile
        rows = [
            _words(sum(1 << (stride * t + k) for t in range(NUM_TILES) if SUIT[v] >> t & 1), self._mask_words)
            for k in range(stride) for v in range(NUMBERS)
        ]
        rows.append(np.zeros(self._mask_words, np.uint64))  # a closed slot
        self._slot_actions = np.stack(rows, axis=1)  # (word, slot * 13 + value)

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: np.ndarray | None = None) -> Batch:
        """Start a new episode in every game; ``deals`` (``(B, 91)`` permutations, see ``Dealer``)
        fixes the first rounds. Bad deals raise ``ValueError``."""
        given = None if deals is None else permutations(deals, self.num_envs, NUM_TILES)
        self._new_matches(self._ar, given)
        no_rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(no_rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """Apply one action per game for its seat to act; finished episodes are reset. ``actions`` is
        an integer array ``(num_envs,)``; any other, or an illegal action, raises ``ValueError`` and
        leaves every game as it was."""
        a = integer_array(actions, "actions", (self.num_envs,))
        word = self._mask.reshape(-1).take(self._row_words + (a >> 6), mode="clip")
        ok = (word >> (a & 63).astype(np.uint64) & _ONE).astype(bool) & (a >= 0) & (a < self.num_actions)
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            legal = np.flatnonzero(_unpack(self._mask[g], self.num_actions))
            raise ValueError(
                f"illegal action {int(a[g])} in game {g} (seat {int(self.seat[g])}); legal: {legal.tolist()}"
            )
        n, seat = self.num_players, self.seat
        play, draw = a < self._draw_action, a == self._draw_action
        passed, stop = a == self._draw_action + 1, a == self._draw_action + 2
        self._prove_voids(np.flatnonzero(passed), np.flatnonzero(draw))

        # The hand: a played tile leaves it, a drawn one joins it (one toggle does both).
        drawn = self.order.reshape(-1).take(self._row_order + np.minimum(self.ptr, NUM_TILES - 1))
        tile = np.where(play, a // (n + 1), np.where(draw, drawn, _NO_TILE))
        at = (self._base + seat) * _WORDS + _TILE_WORD.take(tile)
        self._hands_flat[at] ^= _TILE_BIT.take(tile)
        self._hand_actions_rows[self._base + seat] ^= self._tile_actions.take(tile, axis=0)
        gained = draw.astype(np.int64) - play
        self.hand_count.reshape(-1)[self._base + seat] += gained
        _count_numbers(self.numbers_held.reshape(-1), self._base + seat, tile, gained)
        self.ptr += draw
        self.can_draw &= ~draw
        self.drew |= draw
        seat_bit = _ONE << seat.astype(np.uint64)
        newly_marked = passed & ((self.marked & seat_bit) == 0)
        self.marked |= np.where(passed, seat_bit, 0)
        self.progress |= draw | newly_marked

        turn_over, domino = self._play(play, np.where(play, tile, _NO_TILE), a % (n + 1), seat_bit)
        turn_over |= passed | stop
        blocked = self._end_turns(turn_over, seat_bit)
        rewards = np.zeros((self.num_envs, n), np.float32)
        done = np.zeros(self.num_envs, bool)
        ended = np.flatnonzero(domino | blocked)
        if ended.size:
            rewards[ended], done[ended] = self._end_rounds(ended)
        return self._batch(rewards, done)

    # ----- moves -----------------------------------------------------------------------------
    def _prove_voids(self, passes: np.ndarray, draws: np.ndarray) -> None:
        """Voids as ``encoders.mexican_train_compact.proofs`` states them, from the table before the
        move: a draw clears the seat's set, a pass adds what it proves (module docstring there)."""
        self.voids[draws, self.seat[draws]] = 0
        if not passes.size:
            return
        seat, ends = self.seat[passes], self.ends[passes]
        bits = _ONE << ends.astype(np.uint64)  # each train's end as a number bit
        own = bits[np.arange(passes.size), seat]
        opened = (self.self_started[passes] >> seat.astype(np.uint64) & _ONE).astype(bool)
        opened |= not self.config.own_train_first
        lacks = own | np.where(opened, bits[:, -1], 0)
        marked = self.marked[passes]
        for s in range(self.num_players):
            other = opened & (seat != s) & (marked >> np.uint64(s) & _ONE).astype(bool)
            lacks |= np.where(other, bits[:, s], 0)
        double_at = self.double_at[passes]
        first_double = bits[np.arange(passes.size), double_at.argmin(axis=1)]
        lacks = np.where(double_at.min(axis=1) < _NOT_A_DOUBLE, first_double, lacks)
        if self._runs:  # a run proves only that a seat not yet started lacks the engine's number
            fresh = (self.self_started[passes] >> seat.astype(np.uint64) & _ONE) == 0
            lacks = np.where(self.in_run[passes], np.where(fresh, own, 0), lacks)
        self.voids[passes, seat] |= lacks

    def _play(
        self, play: np.ndarray, tile: np.ndarray, slot: np.ndarray, seat_bit: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Lay each played ``tile`` (``_NO_TILE`` where none is) on train ``slot`` (rules ``_play``),
        hands already updated; returns which turns end and which seats went out."""
        n, seat = self.num_players, self.seat
        train = np.where(slot == n, n, self._rotation[seat, np.minimum(slot, n - 1)])
        low, high = _LOW.take(tile), _HIGH.take(tile)
        double = play & (low == high)
        at = self._row_ends + train
        ends_flat, double_at = self.ends.reshape(-1), self.double_at.reshape(-1)
        ends_flat[at] = np.where(play, low + high - ends_flat.take(at), ends_flat.take(at))
        self.plays += play
        double_at[at] = np.where(play, np.where(double, self.plays, _NOT_A_DOUBLE), double_at.take(at))
        self.table.reshape(-1)[self._ar * _WORDS + _TILE_WORD.take(tile)] |= _TILE_BIT.take(tile)
        _count_numbers(self.numbers_out.reshape(-1), self._ar, tile, play.astype(np.int64))
        self.progress |= play
        own = np.where(play & (train == seat), seat_bit, 0)
        self.marked &= ~own
        self.self_started |= own
        train_bit = _ONE << np.minimum(train, n - 1).astype(np.uint64)
        self.started |= np.where(play & (train < n), train_bit, 0)
        out = play & (self.hand_count.reshape(-1).take(self._base + seat) == 0)

        in_run = play & self.in_run
        self.run_played |= in_run
        self.run_double = np.where(in_run, double, self.run_double)
        if self._runs:  # a run goes on while the seat has a tile for its train (a double only with a cover)
            end = ends_flat.take(self._row_ends + seat)
            fits = self.numbers_held.reshape(-1).take((self._base + seat) * NUMBERS + end)
            run_goes_on = in_run & (fits > _holds(self._hand(seat), _DOUBLES.take(end)))
        else:
            run_goes_on = np.zeros_like(play)
        covered = play & ~self.in_run & (self.open_train >= 0)
        owed = play & ~self.in_run & ~covered & double
        if self.config.unsatisfiable_double == "lapse":  # the double's every cover on the table: none owed
            owed &= self.numbers_out.reshape(-1).take(self._ar * NUMBERS + low) < NUMBERS
        self.open_train = np.where(covered, -1, np.where(owed, train, self.open_train))
        self.can_draw |= owed
        return play & ~out & ~run_goes_on & ~owed, out

    def _hand(self, seat: np.ndarray) -> list[np.ndarray]:
        """The words of each game's ``seat``'s hand."""
        at = (self._base + seat) * _WORDS
        return [self._hands_flat.take(at + w) for w in range(_WORDS)]

    def _end_turns(self, over: np.ndarray, seat_bit: np.ndarray) -> np.ndarray:
        """End the turns of the games where ``over`` is set (rules ``_end_turn``); returns which are
        blocked (``n`` turns in a row without progress)."""
        self.first_turn_done |= np.where(over, seat_bit, 0)
        streak = np.where(self.progress, 0, self.no_progress + 1)
        self.no_progress = np.where(over, streak, self.no_progress)
        blocked = over & (streak == self.num_players)
        nxt = over & ~blocked
        self._begin_turns(nxt, np.where(nxt, self._following.take(self.seat), self.seat))
        return blocked

    def _begin_turns(self, starting: np.ndarray, seat: np.ndarray) -> None:
        """Give the turn to ``seat`` in the games where ``starting`` is set (rules ``_begin_turn``)."""
        self.seat = seat
        self.can_draw |= starting
        self.drew &= ~starting
        self.progress &= ~starting
        first = (self.first_turn_done >> seat.astype(np.uint64) & _ONE) == 0
        self.in_run = np.where(starting, self._runs & first, self.in_run)
        self.run_played &= ~starting
        self.run_double &= ~starting

    def _set_hands(self, games: np.ndarray, held: np.ndarray) -> None:
        """Give ``games`` the hands ``held`` (``(k, n, 128)`` bool per tile), in every form kept."""
        n = self.num_players
        self.hands[games] = np.packbits(held, axis=-1, bitorder="little").view(np.uint64)
        on_slots = np.zeros((len(games), n, 64 * self._mask_words), bool)
        on_slots[..., : self._draw_action] = np.repeat(held[..., :NUM_TILES], n + 1, axis=-1)
        self.hand_actions[games] = np.packbits(on_slots, axis=-1, bitorder="little").view(np.uint64)
        self.hand_count[games] = held.sum(axis=2)
        self.numbers_held[games] = (held[:, :, :NUM_TILES, None] & _SUIT_TABLE).sum(axis=2)

    def set_positions(self, rows: np.ndarray, games: Sequence[MexicanTrainGame]) -> Batch:
        """Put the reference engine ``games[i]``, in the middle of a round, into row ``rows[i]`` (the
        other rows are left as they are) and return the batch of every row, no rewards: a search's
        sampled worlds (``MexicanTrainGame.at_position``) rolled out here. Every tile on the trains
        must have been laid by a move of the game's round history (the play order of the doubles is
        part of the state). The rows then play on exactly as the games would
        (``tests/vector/test_mexican_train_vector_vs_reference.py``)."""
        rows = np.asarray(rows, np.int64)
        if rows.shape != (len(games),) or len(set(rows.tolist())) != len(rows):
            raise ValueError(f"rows must be {len(games)} distinct row indices, one per game")
        if ((rows < 0) | (rows >= self.num_envs)).any():
            raise ValueError(f"rows must lie in 0..{self.num_envs - 1}, got {rows.tolist()}")
        n = self.num_players
        first = {id(game): i for i, game in reversed(list(enumerate(games)))}  # a game loads once
        loaded = sorted(first.values())
        play_orders = {}
        for i in loaded:  # every game checked before any row changes
            game = games[i]
            if replace(game.config, episode=self.config.episode) != self.config or game.is_terminal:
                raise ValueError(f"games[{i}] is not a live round of this engine's rules ({self.config})")
            play_orders[i] = self._play_order(game)
            if play_orders[i][0] != sum(len(train) for train in game.trains):
                raise ValueError(f"games[{i}]: a train holds tiles no move of the round's history laid "
                                 "(a scripted position)")
        held = np.zeros((len(loaded), n, 64 * _WORDS), bool)
        table = np.zeros((len(loaded), 64 * _WORDS), bool)
        for j, i in enumerate(loaded):
            game = games[i]
            for s, hand in enumerate(game.hands):
                held[j, s, list(iter_bits(hand))] = True
            table[j, DOUBLE_TILE[game.engine]] = True
            table[j, [t for train in game.trains for t, _s, _e in train]] = True
            self._load_turn(rows[i], game, *play_orders[i])
        self._set_hands(rows[loaded], held)
        self.table[rows[loaded]] = np.packbits(table, axis=-1, bitorder="little").view(np.uint64)
        self.numbers_out[rows[loaded]] = (table[:, :NUM_TILES, None] & _SUIT_TABLE).sum(axis=1)
        copies = [i for i, game in enumerate(games) if first[id(game)] != i]  # the same game again
        return self.copy_rows(self, rows[[first[id(games[i])] for i in copies]], rows[copies])

    def copy_rows(self, source: VectorMexicanTrainGame, source_rows: np.ndarray, rows: np.ndarray) -> Batch:
        """Give row ``rows[i]`` the state of ``source``'s row ``source_rows[i]`` (an engine of the same
        rules, or this one) and return the batch of every row, no rewards: a search moves the rows
        still playing to a smaller engine."""
        if source.config != self.config:
            raise ValueError("copy_rows: the source engine plays other rules")
        for name in _ROW_STATE:
            getattr(self, name)[rows] = getattr(source, name)[source_rows]
        n = self.num_players
        return self._batch(np.zeros((self.num_envs, n), np.float32), np.zeros(self.num_envs, bool))

    def _play_order(self, game: MexicanTrainGame) -> tuple[int, list[int]]:
        """The round's plays so far and, per train, the play count when its last tile was laid: the
        order in which open doubles were laid, which the rows keep."""
        stride = self.num_players + 1
        laid_at = [_NOT_A_DOUBLE] * stride
        plays = 0
        for seat, action in game.history:
            if action < self._draw_action:
                plays += 1
                laid_at[game.train_of(seat, action % stride)] = plays
        return plays, laid_at

    def _load_turn(self, row: int, game: MexicanTrainGame, plays: int, laid_at: list[int]) -> None:
        """``set_positions``'s per-row state other than the hands and the table: the boneyard, the
        trains, the markers and the turn (``plays`` and ``laid_at`` from ``_play_order``)."""
        n = self.num_players
        # The deal's order: the tiles out of the boneyard, the boneyard ending at the stock's end, then
        # the engine where it is set aside.
        aside = [DOUBLE_TILE[game.engine]] if self._set_aside else []
        elsewhere = set(game.boneyard) | set(aside)
        rest = [t for t in range(NUM_TILES) if t not in elsewhere]
        self.order[row] = rest + list(game.boneyard) + aside
        self.ptr[row] = len(rest)
        for train, laid in enumerate(game.trains):
            ends_in_double = bool(laid) and _IS_DOUBLE[laid[-1][0]]
            self.double_at[row, train] = laid_at[train] if ends_in_double else _NOT_A_DOUBLE
        self.ends[row] = game.ends
        self.marked[row] = _seat_bits(game.marked)
        self.started[row] = _seat_bits(bool(train) for train in game.trains[:n])
        own = [any(s == seat for _t, s, _e in game.trains[seat]) for seat in range(n)]
        self.self_started[row] = _seat_bits(own)
        self.first_turn_done[row] = _seat_bits(game.first_turn_done)
        self.voids[row] = known_voids(game.view(game.current))
        self.open_train[row] = game.open_doubles[0][0] if game.open_doubles else -1
        self.plays[row], self.seat[row], self.nominal_first[row] = plays, game.current, game.nominal_first
        self.can_draw[row], self.drew[row], self.progress[row] = game.can_draw, game.drew, game.progress
        self.in_run[row], self.run_played[row] = game.in_run, game.run_played
        self.run_double[row] = game.run_double >= 0
        self.no_progress[row], self.round_index[row] = game.no_progress, game.round_index
        self.scores[row] = game.scores

    # ----- rounds and matches ----------------------------------------------------------------
    def _end_rounds(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Score the rounds of ``games`` and deal on; returns their rewards and which episodes ended."""
        held = _unpack(self.hands[games], NUM_TILES)
        points = held @ self._points
        self.scores[games] += points
        played = self.round_index[games]
        over = played + 1 == self.config.last_round(played)
        self.round_index[games] += 1
        if self.reward == "win_loss":
            totals = self.scores[games]
            lowest = (totals == totals.min(axis=1, keepdims=True)) & over[:, None]
            rewards = zero_sum(lowest.astype(np.float64), self._seats)
        elif self.reward == "penalty":
            rewards = -points.astype(np.float64)
        else:
            rewards = zero_sum(-points.astype(np.float64), self._seats)
        if over.any():
            self._new_matches(games[over])
        later = games[~over]
        if later.size:
            self._start_rounds(later, deal_rows(later, None, self._dealer, self._rng, NUM_TILES),
                               self._following.take(self.nominal_first[later]))
        return rewards.astype(np.float32), over

    def _new_matches(self, games: np.ndarray, given: np.ndarray | None = None) -> None:
        """Zero the scores and deal the first round (``first_round``); its first seat by lot."""
        self.scores[games] = 0
        self.round_index[games] = self.config.draw_first_round(self._rng, games.size)
        deals = deal_rows(games, given, self._dealer, self._rng, NUM_TILES)
        self._start_rounds(games, deals, self._rng.integers(self.num_players, size=games.size))

    def _start_rounds(self, games: np.ndarray, deals: np.ndarray, nominal_first: np.ndarray) -> None:
        """Deal ``deals`` to ``games`` (rules ``_start_round``): engine set aside or placed by its
        holder (seats drawing for it in turn when nobody holds it), every train empty."""
        n, h, k = self.num_players, self.config.hand_size, games.size
        value = engine_value(self.round_index[games])
        engine = _DOUBLES.take(value)
        rows = np.arange(k)
        if self._set_aside:  # the engine moves to the end, the other tiles keep their order
            last = np.argsort(deals == engine[:, None], axis=1, kind="stable")
            deals = np.take_along_axis(deals, last, axis=1)
        held = np.zeros((k, n, 64 * _WORDS), bool)
        held[rows[:, None], np.repeat(self._seats, h)[None, :], deals[:, : self._dealt]] = True
        first, ptr = nominal_first, np.full(k, self._dealt)
        if not self._set_aside:
            at = (deals == engine[:, None]).argmax(axis=1)
            in_hand = at < self._dealt
            before = np.arange(self._dealt, NUM_TILES)[None, :] < at[:, None]  # drawn before the engine
            drawers = (nominal_first[:, None] + np.arange(NUM_TILES - self._dealt)[None, :]) % n
            r, j = np.nonzero(before)
            held[r, drawers[r, j], deals[r, self._dealt + j]] = True
            first = np.where(in_hand, at // h, (nominal_first + at - self._dealt) % n)
            held[rows, first, engine] = False
            ptr = np.where(in_hand, self._dealt, at + 1)
        self._set_hands(games, held)
        self.numbers_out[games] = 0
        self.numbers_out[games, value] = 1
        self.order[games] = deals
        self.ptr[games] = ptr
        self.table[games] = 0
        self.table.reshape(-1)[games * _WORDS + _TILE_WORD.take(engine)] = _TILE_BIT.take(engine)
        self.ends[games] = value[:, None]
        self.double_at[games] = _NOT_A_DOUBLE
        for bits in (self.marked, self.started, self.self_started, self.first_turn_done):
            bits[games] = 0
        self.voids[games] = 0
        self.open_train[games] = -1
        self.plays[games] = 0
        self.no_progress[games] = 0
        self.nominal_first[games] = nominal_first
        starting = np.zeros(self.num_envs, bool)
        starting[games] = True
        seat = self.seat.copy()
        seat[games] = first
        self._begin_turns(starting, seat)

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        n = self.num_players
        rel = self._base[:, None] + self._rotation.take(self.seat, axis=0)
        ends = np.empty((n + 1, self.num_envs), np.int64)
        ends[:n] = self.ends.reshape(-1).take(rel.T + self._ar)  # (game, seat) -> (game, train): + game
        ends[n] = self.ends[:, n]
        relative = (self.open_train - self.seat) % n
        open_slot = np.where(self.open_train < 0, -1, np.where(self.open_train == n, n, relative))
        actor = _Actor(rel, self._hand(self.seat), ends, open_slot)
        mask = self._legal_mask(actor)
        return Batch(self.seat.copy(), self._observe(actor), mask, rewards, done)

    def _rotated(self, seats: np.ndarray) -> np.ndarray:
        """Bit sets over seats -> over relative seats of the seat to act (bit ``r``: seat ``me + r``)."""
        me = self.seat.astype(np.uint64)
        return ((seats >> me) | (seats << (np.uint64(self.num_players) - me))) & self._all_seats

    def _legal_mask(self, actor: _Actor) -> np.ndarray:
        """Rules ``_legal`` for the whole batch: the train slots open to the seat to act, each adding
        the action bits of the tiles holding its end, kept where the hand holds them; failing a play,
        draw or pass; stop in a run that has played."""
        n, closed = self.num_players, (self.num_players + 1) * NUMBERS
        rel, _hand, ends, open_slot = actor
        in_run = self.in_run
        plays = np.ascontiguousarray(self._hand_actions_rows.take(rel[:, 0], axis=0).T)  # (word, B)
        if self._runs:  # a run plays a double only while it holds another tile to cover it
            suited = self.numbers_held.reshape(-1).take(rel[:, 0] * NUMBERS + ends[0])
            lone = np.where(in_run & (suited == 1), _DOUBLES.take(ends[0]), _NO_TILE)
            plays &= ~self._tile_actions.take(lone, axis=0).T
        no_open = open_slot < 0
        opened = ~in_run & no_open
        if self.config.own_train_first:
            opened &= (self.started >> self.seat.astype(np.uint64) & _ONE).astype(bool)
        marked = self._rotated(self.marked)
        covering = ~in_run & ~no_open
        allowed = [no_open | in_run]
        allowed += [opened & (marked >> np.uint64(k) & _ONE).astype(bool) for k in range(1, n)]
        allowed.append(opened)
        rows = [np.where(ok | (covering & (open_slot == k)), k * NUMBERS + ends[k], closed)
                for k, ok in enumerate(allowed)]
        fits = self._slot_actions.take(rows[0], axis=1)
        for row in rows[1:]:
            fits |= self._slot_actions.take(row, axis=1)
        plays &= fits
        playable = plays[0] != 0
        for word in plays[1:]:
            playable |= word != 0
        running = in_run & self.run_played
        can_draw = ~playable & ~running & self.can_draw & (self.ptr < self._stock_end)
        extra = [can_draw, ~playable & ~running & ~can_draw, running & ~self.run_double]  # draw, pass, stop
        for i, flag in enumerate(extra):
            w, bit = divmod(self._draw_action + i, 64)
            plays[w] |= flag.astype(np.uint64) << np.uint64(bit)
        self._mask = plays.T.copy()
        return _unpack(self._mask, self.num_actions).view(bool)

    def _observe(self, actor: _Actor) -> np.ndarray:
        """The compact observation of the seat to act (``encoders.mexican_train_compact``), whole batch:
        every 0/1 slot put into bit words at its offset, unpacked once; then the scaled slots."""
        b, n, at = self.num_envs, self.num_players, self._slots
        rel, hand, ends, open_slot = actor
        table = [self.table[:, w] for w in range(_WORDS)]
        unknown = [_FULL[w] & ~(table[w] | hand[w]) for w in range(_WORDS)]
        words = [np.zeros(b, np.uint64) for _ in range(-(-self._bits // 64))]
        _put(words, at["hand"], hand)
        _put(words, at["table"], table)
        _put(words, at["unknown"], unknown)
        for k in range(n + 1):
            _put(words, at["ends"] + NUMBERS * k, [_ONE << ends[k].astype(np.uint64)])
        # The small per-seat and per-slot flags lie together, under 64 bits: one word, one put.
        off = self._flag_shift
        open_bit = np.where(open_slot >= 0, _ONE << np.maximum(open_slot, 0).astype(np.uint64), 0)
        flags = (
            self._rotated(self.marked)
            | open_bit << off["open_doubles"]
            | open_bit << off["cover_first"]
            | self._rotated(self.first_turn_done) << off["first_turn_done"]
            | self.in_run.astype(np.uint64) << off["in_run"]
            | self.drew.astype(np.uint64) << off["drew"]
        )
        flags |= _ONE << off["to_act"]  # the seat to act is relative seat 0
        _put(words, at["marked"], [flags])
        voids = self.voids.reshape(-1)
        for r in range(1, n):
            _put(words, at["voids"] + NUMBERS * (r - 1), [voids.take(rel[:, r])])
            if self.config.open_hands:
                seat_hand = [self._hands_flat.take(rel[:, r] * _WORDS + w) for w in range(_WORDS)]
                _put(words, at["open_hands"] + NUM_TILES * (r - 1), seat_hand)
        for name, tiles in zip(("plan", "plan_first", "coverable"), _home_plans(hand, ends[0]), strict=True):
            _put(words, at[name], tiles)
        obs = np.empty((b, self.obs_dim), np.float32)
        obs[:, : self._bits] = _unpack(np.stack(words, axis=1), self._bits)
        # The scaled slots, in order: hand sizes, boneyard, scores, unseen per number; each count is
        # stored as float32 (exact) and divided in float32, as ``encoders.base.scaled`` does.
        counts = obs[:, self._bits:]
        counts[:, :n] = self.hand_count.reshape(-1).take(rel)
        counts[:, n] = self._stock_end - self.ptr
        counts[:, n + 1: 2 * n + 1] = self.scores.reshape(-1).take(rel)
        known = self.numbers_out + self.numbers_held.reshape(-1, NUMBERS).take(rel[:, 0], axis=0)
        counts[:, 2 * n + 1:] = NUMBERS - known
        counts /= self._scales
        return obs
