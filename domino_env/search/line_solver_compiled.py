"""The exact line-game endgame solver of ``line_solver`` compiled with numba, for a batch of positions.

``LineSolver`` (plain Python) is the readable reference; this is the same search on machine
integers: hands are ``uint64`` bit sets (tile sets of at most 64 tiles, double-nine and below), a
position's round result is ``(winning side or -1, points)`` since a round pays one side at most
(docs/rules.md 2.3), and the memo is a fixed-size transposition table of arrays that keeps whole
positions as keys (a slot whose key differs is simply overwritten), so it stays valid for the
solver's lifetime and is shared by every world and every move the search solves. Two sides:
alpha-beta on the margin with bounds in the table, where a line and its mirror (the ends swapped)
share an entry, as they share a value; more sides: max-n with ties to the lowest action id, as
``LineSolver.value`` (a mirror's ties fall on other moves, so it keeps its own entry). Both run
depth first on an explicit stack rather than by recursion, and generate moves in place from the
tiles that fit an end, without an array per node.
``tests/search/test_line_solver_compiled.py`` checks both against ``LineSolver`` on random endgames.

The compiled code is cached on disk by numba (``cache=True``): the first process to use it compiles
it (a few seconds), later ones load it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from domino_env.rules.line import LineConfig
from domino_env.search.line_solver import Position

MAX_TILES = 64  # one uint64 word per hand
_INF = 1 << 40
_HASH_MUL = np.uint64(0xBF58476D1CE4E5B9)
_HASH_SEED = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(31)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_SHIFT = np.uint64(58)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[(((1 << _i) * 0x03F79D71B4CB0A89) & (2**64 - 1)) >> 58] = _i


@njit(cache=True)
def _meta(left: int, right: int, mover: int, passes: int) -> int:
    """Ends, mover and passes packed in one integer (every field below 64)."""
    return (((left + 1) * 64 + right + 1) * 64 + mover) * 64 + passes


@njit(cache=True)
def _slot(hands, meta, table_mask):
    h = np.uint64(meta) * _HASH_SEED
    for s in range(hands.shape[0]):
        h = (h ^ hands[s]) * _HASH_MUL
        h ^= h >> _SHIFT
    return np.int64(h & table_mask)


@njit(cache=True)
def _found(hands, meta, slot, keys, metas):
    if metas[slot] != meta:
        return False
    for s in range(hands.shape[0]):
        if keys[slot, s] != hands[s]:
            return False
    return True


@njit(cache=True)
def _store(hands, meta, slot, keys, metas):
    metas[slot] = meta
    for s in range(hands.shape[0]):
        keys[slot, s] = hands[s]


@njit(cache=True)
def _hand_pips(hand, byte_pips):
    total = 0
    j = 0
    while hand != 0:  # a byte at a time, up to the hand's last tile
        total += byte_pips[j, np.int64(hand & np.uint64(255))]
        hand >>= np.uint64(8)
        j += 1
    return total


@njit(cache=True)
def _round_result(hands, winner, seat_side, byte_pips, minus_own):
    """``(side paid, points)`` when the round ends: seat ``winner`` went out, or -1 for blocked
    (``LineSolver.round_points``); side -1 when a blocked round's lowest count is shared by sides."""
    n = hands.shape[0]
    if winner < 0:
        low = _INF
        for s in range(n):
            p = _hand_pips(hands[s], byte_pips)
            if p < low:
                low, winner = p, s
        for s in range(n):
            if seat_side[s] != seat_side[winner] and _hand_pips(hands[s], byte_pips) == low:
                return -1, 0
    side = seat_side[winner]
    won = 0
    for s in range(n):
        if seat_side[s] != side:
            won += _hand_pips(hands[s], byte_pips)
    if minus_own:
        won -= _hand_pips(hands[winner], byte_pips)
    return side, won


@njit(cache=True)
def _placed_ends(t, side, left, right, low, high):
    """The open ends after tile ``t`` goes on ``side`` (0 left, 1 right); (-1, -1) if it does not fit."""
    if left < 0:
        return (low[t], high[t]) if side == 0 else (-1, -1)
    end = left if side == 0 else right
    if low[t] != end and high[t] != end:
        return -1, -1
    other = high[t] if low[t] == end else low[t]
    return (other, right) if side == 0 else (left, other)


@njit(cache=True)
def _playable(hand, left, right, end_tiles):
    """The tiles of ``hand`` that fit an open end; every tile on an empty line."""
    if left < 0:
        return hand
    return hand & (end_tiles[left] | end_tiles[right])


@njit(cache=True)
def _lowest_tile(bits):
    """The index of the lowest set bit of a non-zero ``bits``."""
    return _DEBRUIJN_INDEX[((bits & (np.uint64(0) - bits)) * _DEBRUIJN) >> _DEBRUIJN_SHIFT]


@njit(cache=True)
def _window(sign, alpha, beta):
    """The search window of a child whose value counts ``sign`` times for the parent's side."""
    return (alpha, beta) if sign > 0 else (-beta, -alpha)


# Both searches run depth first on an explicit stack (a recursive numba call cost several times a
# node's own work): a row of ``frames`` per depth, the mover's hand on entry and the fitting tiles
# not tried yet in ``bits``. Columns: the position; the tile being tried (-1: the mover passes), its
# next side (2: take the next tile) and the ends of its first placement (a side giving the same ends
# is skipped); the table slot and key; the best value so far. Alpha-beta adds its window, the window
# on entry, the table's bounds, the place in its tile order and the sign of the child out; max-n
# the side paid, the points and the margin of its best result. The few lines that place a tile are
# written out in both loops: as a shared function they made the solve 10-25% slower (measured on
# recorded batches).
_LEFT, _RIGHT, _MOVER, _PASSES, _TILE, _PUT, _FIRST_LEFT, _FIRST_RIGHT, _SLOT, _META, _BEST = range(11)
_ALPHA, _BETA, _START_ALPHA, _LO, _HI, _ORDER, _SIGN = range(11, 18)
_BEST_SIDE, _BEST_WON = 11, 12
_COLUMNS = 18
_HAND, _UNTRIED = 0, 1


@njit(cache=True)
def _stack(hands):
    """Frames deep enough for any position of these hands: at most ``n - 1`` passes between plays."""
    depth = (MAX_TILES + 1) * hands.shape[1] + 1
    return np.empty((depth, _COLUMNS), np.int64), np.empty((depth, 2), np.uint64)


@njit(cache=True, inline="always")
def _push(frames, bits, d, hands, left, right, mover, passes, end_tiles, meta, slot):
    """Fill frame ``d`` with a position not in the table."""
    playable = _playable(hands[mover], left, right, end_tiles)
    frames[d, _LEFT], frames[d, _RIGHT], frames[d, _MOVER], frames[d, _PASSES] = left, right, mover, passes
    frames[d, _SLOT], frames[d, _META] = slot, meta
    bits[d, _HAND], bits[d, _UNTRIED] = hands[mover], playable
    frames[d, _TILE], frames[d, _PUT], frames[d, _BEST] = 0 if playable != 0 else -1, 2, -_INF


@njit(cache=True)
def _take_tile(frames, bits, d, hands, t, tile_bits):
    """Frame ``d`` tries tile ``t`` next: out of the mover's hand, on the left end first."""
    bits[d, _UNTRIED] ^= tile_bits[t]
    hands[frames[d, _MOVER]] = bits[d, _HAND] ^ tile_bits[t]
    frames[d, _TILE], frames[d, _PUT] = t, 0
    frames[d, _FIRST_LEFT], frames[d, _FIRST_RIGHT] = -1, -1


@njit(cache=True, inline="always")
def _enter_window(frames, bits, d, hands, left, right, mover, passes, alpha, beta, end_tiles, table):
    """Frame ``d`` for a position searched in ``(alpha, beta)``; ``True`` when the table's bounds
    already decide its value (put in the frame's best: the frame is done)."""
    keys, metas, lows, highs, table_mask = table
    meta = _meta(min(left, right), max(left, right), mover, passes)  # a line is worth its mirror's value
    slot = _slot(hands, meta, table_mask)
    lo, hi = -_INF, _INF
    if _found(hands, meta, slot, keys, metas):
        lo, hi = lows[slot], highs[slot]
        if lo >= beta or lo == hi:
            frames[d, _BEST] = lo
            return True
        if hi <= alpha:
            frames[d, _BEST] = hi
            return True
        alpha, beta = max(alpha, lo), min(beta, hi)
    _push(frames, bits, d, hands, left, right, mover, passes, end_tiles, meta, slot)
    frames[d, _ALPHA], frames[d, _BETA], frames[d, _START_ALPHA] = alpha, beta, alpha
    frames[d, _LO], frames[d, _HI], frames[d, _ORDER] = lo, hi, 0
    return False


@njit(cache=True, inline="always")
def _leave_window(frames, bits, d, hands, table):
    """Frame ``d``'s value is final: the mover's hand put back, the bounds it proves kept."""
    hands[frames[d, _MOVER]] = bits[d, _HAND]
    _store_bound(hands, frames[d, _META], frames[d, _SLOT], frames[d, _BEST], frames[d, _START_ALPHA],
                 frames[d, _BETA], frames[d, _LO], frames[d, _HI], table)


@njit(cache=True)
def _negamax(hands, left, right, mover, passes, alpha, beta, rules, table, frames, bits):
    """``LineSolver._negamax``: the mover's side's points minus the other side's, exact inside the
    window, else a bound on the same side of it. Good moves (heavy tiles) first: more cutoffs."""
    seat_side, low, high, tile_bits, byte_pips, minus_own, heavy_first, end_tiles = rules
    n = hands.shape[0]
    d = 0
    done = _enter_window(frames, bits, 0, hands, left, right, mover, passes, alpha, beta, end_tiles, table)
    while True:
        if done:  # frame d's value is known: back to its parent
            if d == 0:
                return frames[0, _BEST]
            d -= 1
            v = frames[d, _SIGN] * frames[d + 1, _BEST]  # the child's value for this side
            if frames[d, _TILE] < 0:  # a pass takes its child's value
                frames[d, _BEST] = v
                _leave_window(frames, bits, d, hands, table)
                continue
            if v > frames[d, _BEST]:
                frames[d, _BEST], frames[d, _ALPHA] = v, max(frames[d, _ALPHA], v)
            done = False
        mover = frames[d, _MOVER]
        side, nxt = seat_side[mover], (mover + 1) % n
        sign = 1 if seat_side[nxt] == side else -1
        if frames[d, _TILE] < 0:  # just entered, nothing fits: a pass, or the round is blocked
            if frames[d, _PASSES] + 1 == n:
                won_side, won = _round_result(hands, -1, seat_side, byte_pips, minus_own)
                frames[d, _BEST] = 0 if won_side < 0 else (won if won_side == side else -won)
                _leave_window(frames, bits, d, hands, table)
                done = True
                continue
            frames[d, _SIGN] = sign
            a, b = _window(sign, frames[d, _ALPHA], frames[d, _BETA])
            done = _enter_window(frames, bits, d + 1, hands, frames[d, _LEFT], frames[d, _RIGHT], nxt,
                                 frames[d, _PASSES] + 1, a, b, end_tiles, table)
            d += 1
            continue
        while True:  # frame d's moves until a child is pushed, a cutoff or the last
            if frames[d, _ALPHA] >= frames[d, _BETA] or (frames[d, _PUT] == 2 and bits[d, _UNTRIED] == 0):
                _leave_window(frames, bits, d, hands, table)
                done = True
                break
            if frames[d, _PUT] == 2:  # the next tile in the heavy-first order
                untried, k = bits[d, _UNTRIED], frames[d, _ORDER]
                while (untried & tile_bits[heavy_first[k]]) == 0:
                    k += 1
                frames[d, _ORDER] = k + 1
                _take_tile(frames, bits, d, hands, heavy_first[k], tile_bits)
            new_left, new_right = _placed_ends(frames[d, _TILE], frames[d, _PUT], frames[d, _LEFT],
                                               frames[d, _RIGHT], low, high)
            frames[d, _PUT] += 1
            if new_left < 0 or (new_left == frames[d, _FIRST_LEFT] and new_right == frames[d, _FIRST_RIGHT]):
                continue  # a side giving the ends of the first is kept once (LineSolver.children)
            frames[d, _FIRST_LEFT], frames[d, _FIRST_RIGHT] = new_left, new_right
            if hands[mover] != 0:
                frames[d, _SIGN] = sign
                a, b = _window(sign, frames[d, _ALPHA], frames[d, _BETA])
                done = _enter_window(frames, bits, d + 1, hands, new_left, new_right, nxt, 0, a, b, end_tiles,
                                     table)
                d += 1
                break
            won_side, won = _round_result(hands, mover, seat_side, byte_pips, minus_own)
            v = won if won_side == side else -won
            if v > frames[d, _BEST]:
                frames[d, _BEST], frames[d, _ALPHA] = v, max(frames[d, _ALPHA], v)


@njit(cache=True)
def _store_bound(hands, meta, slot, best, alpha, beta, lo, hi, table):
    """Narrow the position's known bounds ``lo, hi`` by ``best``, searched in ``(alpha, beta)``."""
    keys, metas, lows, highs, table_mask = table
    if best <= alpha:
        hi = best
    elif best >= beta:
        lo = best
    else:
        lo = hi = best
    _store(hands, meta, slot, keys, metas)
    lows[slot], highs[slot] = lo, hi


@njit(cache=True)
def _scaled_margin(won_side, won, side, num_sides):
    """``margin`` times ``num_sides - 1``, an integer: what max-n compares."""
    if won_side < 0:
        return 0
    return won * (num_sides - 1) if won_side == side else -won


@njit(cache=True, inline="always")
def _enter_max_n(frames, bits, d, hands, left, right, mover, passes, end_tiles, table):
    """Frame ``d`` for a position; ``True`` when the table holds its value (put in the frame's best:
    the frame is done)."""
    keys, metas, won_sides, wons, table_mask = table
    meta = _meta(left, right, mover, passes)
    slot = _slot(hands, meta, table_mask)
    if _found(hands, meta, slot, keys, metas):
        frames[d, _BEST_SIDE], frames[d, _BEST_WON] = won_sides[slot], wons[slot]
        return True
    _push(frames, bits, d, hands, left, right, mover, passes, end_tiles, meta, slot)
    frames[d, _BEST_SIDE], frames[d, _BEST_WON] = -1, 0
    return False


@njit(cache=True, inline="always")
def _leave_max_n(frames, bits, d, hands, table):
    """Frame ``d``'s value is final: the mover's hand put back, the value kept in the table."""
    keys, metas, won_sides, wons, _mask = table
    hands[frames[d, _MOVER]] = bits[d, _HAND]
    slot = frames[d, _SLOT]
    _store(hands, frames[d, _META], slot, keys, metas)
    won_sides[slot], wons[slot] = frames[d, _BEST_SIDE], frames[d, _BEST_WON]


@njit(cache=True)
def _max_n(hands, left, right, mover, passes, num_sides, rules, table, frames, bits):
    """``LineSolver.value`` as ``(side paid or -1, points)``: each mover maximizes its side's margin
    (the frame's best), ties to the lowest action id."""
    seat_side, low, high, tile_bits, byte_pips, minus_own, _heavy_first, end_tiles = rules
    n = hands.shape[0]
    d = 0
    done = _enter_max_n(frames, bits, 0, hands, left, right, mover, passes, end_tiles, table)
    while True:
        if done:  # frame d's value is known: back to its parent
            if d == 0:
                return frames[0, _BEST_SIDE], frames[0, _BEST_WON]
            won_side, won = frames[d, _BEST_SIDE], frames[d, _BEST_WON]
            d -= 1
            m = _scaled_margin(won_side, won, seat_side[frames[d, _MOVER]], num_sides)
            if frames[d, _TILE] < 0 or m > frames[d, _BEST]:  # a pass takes its child's value
                frames[d, _BEST_SIDE], frames[d, _BEST_WON], frames[d, _BEST] = won_side, won, m
            if frames[d, _TILE] < 0:
                _leave_max_n(frames, bits, d, hands, table)
                continue
            done = False
        mover = frames[d, _MOVER]
        if frames[d, _TILE] < 0:  # just entered, nothing fits: a pass, or the round is blocked
            if frames[d, _PASSES] + 1 == n:
                frames[d, _BEST_SIDE], frames[d, _BEST_WON] = _round_result(
                    hands, -1, seat_side, byte_pips, minus_own)
                _leave_max_n(frames, bits, d, hands, table)
                done = True
            else:
                done = _enter_max_n(frames, bits, d + 1, hands, frames[d, _LEFT], frames[d, _RIGHT],
                                    (mover + 1) % n, frames[d, _PASSES] + 1, end_tiles, table)
                d += 1
            continue
        while True:  # frame d's moves until a child is pushed
            if frames[d, _PUT] == 2:  # the next tile, the lowest action id first
                if bits[d, _UNTRIED] == 0:
                    _leave_max_n(frames, bits, d, hands, table)
                    done = True
                    break
                _take_tile(frames, bits, d, hands, _lowest_tile(bits[d, _UNTRIED]), tile_bits)
            new_left, new_right = _placed_ends(frames[d, _TILE], frames[d, _PUT], frames[d, _LEFT],
                                               frames[d, _RIGHT], low, high)
            frames[d, _PUT] += 1
            if new_left < 0 or (new_left == frames[d, _FIRST_LEFT] and new_right == frames[d, _FIRST_RIGHT]):
                continue  # a side giving the ends of the first is kept once (LineSolver.children)
            frames[d, _FIRST_LEFT], frames[d, _FIRST_RIGHT] = new_left, new_right
            if hands[mover] != 0:
                done = _enter_max_n(frames, bits, d + 1, hands, new_left, new_right, (mover + 1) % n, 0,
                                    end_tiles, table)
                d += 1
                break
            won_side, won = _round_result(hands, mover, seat_side, byte_pips, minus_own)
            m = _scaled_margin(won_side, won, seat_side[mover], num_sides)
            if m > frames[d, _BEST]:
                frames[d, _BEST_SIDE], frames[d, _BEST_WON], frames[d, _BEST] = won_side, won, m


@njit(cache=True)
def _solve_two_sides(hands, left, right, mover, passes, sides, rules, table):
    """Exact margin of ``sides[b]`` at every position ``b`` of a two-sided game."""
    out = np.empty(hands.shape[0])
    frames, bits = _stack(hands)
    for b in range(hands.shape[0]):
        v = _negamax(hands[b].copy(), left[b], right[b], mover[b], passes[b], -_INF, _INF, rules, table,
                     frames, bits)
        out[b] = v if rules[0][mover[b]] == sides[b] else -v
    return out


@njit(cache=True)
def _solve_many_sides(hands, left, right, mover, passes, sides, num_sides, rules, table):
    """Exact margin of ``sides[b]`` at every position ``b`` of a game of three sides or more."""
    out = np.empty(hands.shape[0])
    frames, bits = _stack(hands)
    for b in range(hands.shape[0]):
        own = hands[b].copy()
        won_side, won = _max_n(own, left[b], right[b], mover[b], passes[b], num_sides, rules, table,
                               frames, bits)
        out[b] = _scaled_margin(won_side, won, sides[b], num_sides) / (num_sides - 1)
    return out


def solver_rules(config: LineConfig) -> tuple:
    """The rules tables the compiled search reads: each seat's side, tile halves and bits, pips per
    byte of a hand, the scoring, alpha-beta's tile order (heaviest first), the tiles of each pip."""
    ts, n = config.tiles, config.num_players
    byte_pips = np.zeros((8, 256), np.int64)
    for j in range(8):
        for x in range(256):
            tiles = [8 * j + i for i in range(8) if x >> i & 1 and 8 * j + i < ts.num_tiles]
            byte_pips[j, x] = sum(ts.pips[t] for t in tiles)
    return (
        np.array([config.side_of(s) for s in range(n)], np.int64),
        np.array(ts.low, np.int64), np.array(ts.high, np.int64),
        np.array([1 << t for t in range(ts.num_tiles)], np.uint64),
        byte_pips, np.int64(config.scoring == "others_minus_own"),
        np.argsort([-p for p in ts.pips], kind="stable").astype(np.int64),
        np.array([sum(1 << t for t in range(ts.num_tiles) if e in (ts.low[t], ts.high[t]))
                  for e in range(config.max_pips + 1)], np.uint64),
    )


class CompiledLineSolver:
    """Exact margins of batches of endgame positions of one ``LineConfig`` (module docstring).

    ``table_bits``: the transposition table holds ``2 ** table_bits`` positions (about 56 bytes each).
    2**14 (0.9 MB) keeps it in the cache: at budget 100 the search took 10% less time a move in Block
    2p than with 2**18, 7% in Block 4p teams, 2% in Draw 3p boardpan (same positions, one process)."""

    def __init__(self, config: LineConfig, table_bits: int = 14):
        if not self.supports(config):
            raise ValueError(f"the compiled solver takes sets of at most {MAX_TILES} tiles, "
                             f"got double-{config.max_pips} ({config.tiles.num_tiles} tiles)")
        n = config.num_players
        self.num_sides = config.num_sides
        self._rules = solver_rules(config)
        size = 1 << table_bits
        self._table = (np.zeros((size, n), np.uint64), np.full(size, -1, np.int64),
                       np.zeros(size, np.int64), np.zeros(size, np.int64), np.uint64(size - 1))

    @staticmethod
    def supports(config: LineConfig) -> bool:
        return config.tiles.num_tiles <= MAX_TILES

    def margins(self, positions: Sequence[Position], sides: Sequence[int]) -> np.ndarray:
        """Exact margin of ``sides[i]`` at ``positions[i]`` (``LineSolver.margin_of``), as float64."""
        if not positions:
            return np.zeros(0)
        hands = np.array([p[0] for p in positions], np.uint64)
        left, right, mover, passes = (np.array([p[k] for p in positions], np.int64) for k in range(1, 5))
        sides = np.asarray(sides, np.int64)
        if self.num_sides == 2:
            return _solve_two_sides(hands, left, right, mover, passes, sides, self._rules, self._table)
        return _solve_many_sides(hands, left, right, mover, passes, sides, self.num_sides, self._rules,
                                 self._table)
