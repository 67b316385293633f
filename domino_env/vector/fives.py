"""Batched All Fives / Fives and Threes: ``num_envs`` matches stepped in lockstep with numpy.

Per game the state is a few arrays: hands and the table as ``uint64`` bit sets over the 28
double-six tiles, the four ends (value, outer tile a double, arm started, share of the count), the
spinner's value, the count, the dealt permutation and a stock pointer, seat, leader, pass streak,
voids and scores. A step is a fixed sequence of whole-batch operations; only games that end a
hand take a second, smaller pass (hand points, the match check, the next deal). Every rule and
table comes from ``rules.fives`` (``games.FIVES.config`` validates the options; ``TILE_*``,
``COUNT_POINTS``, ``END_STRIDE``), and results equal ``rules.fives.FivesGame`` step by step
(``tests/vector/test_fives_vector_vs_reference.py``).

Rewards (per step, as ``envs.fives_v0`` pays them): with ``p_k`` the points side ``k`` scored
on this step (the count, and at a hand's end its hand points or chip-out bonus), ``zero_sum`` gives
seat ``i`` on side ``k`` ``p_k - mean of the other sides' p``, ``points`` gives ``p_k``, and
``win_loss`` pays only when the episode ends the same zero-sum formula over ``w_k = 1`` for every
side holding the highest total (the side that reached the target, in a match).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from domino_env.encoders.base import scaled
from domino_env.encoders.fives_compact import NUMBERS, compact_slots, score_scale, slot_slices
from domino_env.games import FIVES
from domino_env.rules.fives import (
    END_STRIDE,
    MAX_COUNT,
    NUM_TILES,
    TILE_HIGH,
    TILE_LOW,
    count_points_table,
)
from domino_env.rules.line import lead_rank
from domino_env.rules.rewards import zero_sum
from domino_env.rules.tiles import DOUBLE_SIX
from domino_env.vector.batch import Batch, bitwise_count, integer_array, permutations
from domino_env.vector.line import BatchedMatches

Dealer = Callable[[np.ndarray], "np.ndarray | tuple[np.ndarray, np.ndarray]"]
"""Given the ids of the games starting a hand, return their deals: ``(k, 28)`` permutations of the
tile ids (seat ``i`` gets columns ``i*h .. i*h+h-1``; All Fives draws the rest in order, Fives and
Threes leaves it out of play), or ``(deals, leaders)`` to fix also the leaders the rules draw by lot
(duplicate play and the differential test need them; leaders the rules decide are never replaced)."""

_NO_TILE = NUM_TILES  # row 28 of the tile tables: "no tile"
_CLOSED = NUMBERS  # row 7 of the per-number tables: an end that is not open
_EVERY = NUMBERS + 1  # row 8 of the suit table: every tile (the lead)


def _spread_table(stride: int) -> np.ndarray:
    """``table[x]``: the 16 bits of ``x`` moved to bits ``stride * i`` of a ``uint64``."""
    x = np.arange(1 << 16, dtype=np.uint64)
    out = np.zeros(1 << 16, np.uint64)
    for i in range(16):
        out |= ((x >> np.uint64(i)) & np.uint64(1)) << np.uint64(stride * i)
    return out


def _unpack(words: np.ndarray, num_bits: int) -> np.ndarray:
    """``(..., W) uint64`` bit sets -> ``(..., num_bits) uint8`` 0/1 per bit."""
    return np.unpackbits(words.view(np.uint8), axis=-1, count=num_bits, bitorder="little")


@njit(cache=True, inline="always")
def layout_after(tile, end, lead, ends, value, arm, sp, spins, both_halves, low, high):
    """A game's four ends, their shares of the count, the W and E arms, the count and the spinner's
    value after playing ``tile`` on ``end`` (the four cases of ``VectorFivesGame._place``) from
    ``ends``, ``value``, ``arm`` (its rows) and spinner ``sp``. Scalars, not arrays: they stay in
    registers, which made the compiled loop 40% faster."""
    e0, e1, e2, e3 = ends[0], ends[1], ends[2], ends[3]
    v0, v1, v2, v3 = value[0], value[1], value[2], value[3]
    a0, a1 = arm[0], arm[1]
    lo, hi = low[tile], high[tile]
    double = lo == hi
    spin = double and sp < 0 and spins
    if spin:
        sp = lo
    if lead:  # W and E open (all four at its value for a spinner); a plain lead's ends count
        e0 = e1 = e2 = e3 = lo
        v0 = v1 = v2 = v3 = 0
        a0 = a1 = False
        if not spin:
            twice = 1 if double and both_halves else 0
            e1, v0, v1 = hi, lo << twice, hi << twice
        return e0, e1, e2, e3, v0, v1, v2, v3, a0, a1, lo + hi, sp
    if spin:  # a later spinner: the line so far becomes the arm on its covered side
        e2 = e3 = lo
        if end == 0:
            e0, v0 = lo, 0
        else:
            e1, v1 = lo, 0
        a0, a1 = end == 1, end == 0
    else:  # on an arm: its outer number becomes the end (a double counts twice)
        outer = lo + hi - ends[end]
        share = outer << 1 if double and both_halves else outer
        if end == 0:
            e0, v0, a0 = outer, share, True
        elif end == 1:
            e1, v1, a1 = outer, share, True
        elif end == 2:
            e2, v2 = outer, share
        else:
            e3, v3 = outer, share
    total = v0 + v1 + v2 + v3
    count = total + 2 * sp if sp >= 0 and not (a0 and a1) else total  # a bare spinner counts twice
    return e0, e1, e2, e3, v0, v1, v2, v3, a0, a1, count, sp


@njit(cache=True, inline="always")
def _reply_on(v, base, held, may_spin, other, points, reply_table):
    """The most a tile (v, w), w in the bit set ``held``, scores laid on an end of number ``v`` of a
    layout counting ``base`` without that end (``reply_table``); where no spinner is down yet, the
    double (v, v) becomes it and scores with the ``other`` side end instead."""
    plain = held & ~(1 << v) if may_spin else held
    best = reply_table[(base * NUMBERS + v) * 128 + plain]
    if may_spin and held >> v & 1:
        best = max(best, points[other + 2 * v])
    return best


@njit(cache=True)
def _write_look_ahead(obs, play_at, reply_at, mask, unknown, ends, value, arm, spinner, plays, stride,
                      spins, both_halves, low, high, points, reply_table, fitting_bytes, play_scaled):
    """``encoders.fives_compact.look_ahead_points`` for every legal play of the batch, written into
    ``obs`` at ``play_at + action`` (what the play scores) and ``reply_at + action`` (the most a tile
    of ``unknown`` scores laid next), 0 for the other actions. A compiled loop: as whole-batch numpy
    over (game, play) pairs it took more than half of a step."""
    num_plays = stride * NUM_TILES
    fitting = np.empty(NUMBERS, np.int64)  # fitting[v]: bit w set where tile (v, w) is unknown
    for g in range(mask.shape[0]):
        obs[g, play_at : play_at + num_plays] = 0.0
        obs[g, reply_at : reply_at + num_plays] = 0.0
        bits = unknown[g]
        for v in range(NUMBERS):
            fitting[v] = 0
            for j in range(4):
                fitting[v] |= fitting_bytes[j, (bits >> np.uint64(8 * j)) & np.uint64(255), v]
        for tile in range(NUM_TILES):
            for end in range(stride):
                a = tile * stride + end
                if not mask[g, a]:
                    continue
                e0, e1, e2, e3, v0, v1, v2, v3, a0, a1, count, sp = layout_after(
                    tile, end, plays[g] == 0, ends[g], value[g], arm[g], spinner[g], spins, both_halves,
                    low, high)
                total = v0 + v1 + v2 + v3
                bare = 2 * sp if sp >= 0 else 0  # the spinner's count while an arm beside it is bare
                may_spin = sp < 0 and spins
                best = max(_reply_on(e0, total - v0 + (0 if a1 else bare), fitting[e0], may_spin, v1,
                                     points, reply_table),
                           _reply_on(e1, total - v1 + (0 if a0 else bare), fitting[e1], may_spin, v0,
                                     points, reply_table))
                if stride == 4 and sp >= 0 and a0 and a1:  # N and S open once both arms are started
                    best = max(best, reply_table[((total - v2) * NUMBERS + e2) * 128 + fitting[e2]],
                               reply_table[((total - v3) * NUMBERS + e3) * 128 + fitting[e3]])
                obs[g, play_at + a] = play_scaled[points[count]]
                obs[g, reply_at + a] = play_scaled[best]

class VectorFivesGame(BatchedMatches):
    """``num_envs`` All Fives / Fives and Threes episodes with automatic reset.

    ``episode`` (``"hand"`` or ``"match"``, the default), ``reward`` (``"zero_sum"``, ``"points"``,
    ``"win_loss"``; see the module docstring) and ``options`` (every option of
    ``rules.fives.FivesConfig``) mean what they mean in ``envs.fives_v0.raw_env``, checked by the
    same ``games.FIVES.config``. ``dealer`` replaces the seeded shuffle (see ``Dealer``).
    """

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        dealer: Dealer | None = None,
        episode: str = "match",
        reward: str = "zero_sum",
        **options,
    ):
        super().__init__(FIVES, compact_slots, num_envs, dealer=dealer, episode=episode, reward=reward,
                         options=options)
        cfg = self.config
        self._rng = np.random.default_rng(seed)
        n, b = cfg.num_players, num_envs
        self._stride = END_STRIDE[cfg.variant]
        self._draw_action = self._stride * NUM_TILES
        self._both_halves = cfg.double_count != "one_half"
        self._points = count_points_table(cfg)
        self._side = np.array([cfg.side_of(s) for s in range(n)])
        self._num_ends = self._stride  # All Fives W, E, N, S; Fives and Threes W, E
        self._spins = cfg.spinner == "first_double"
        self._partners_out = cfg.variant == "fives_and_threes" and cfg.teams  # a seat may be out mid-hand
        self._following = np.roll(np.arange(n), -1)  # a gather from this beats ``% n``

        # Tile tables with a "no tile" row 28; per-number tables with a "closed end" row 7.
        self._tile_bits = np.array([1 << t for t in range(NUM_TILES)] + [0], np.uint64)
        # _fitting_bytes[j][x, v]: bit w set where tile (v, w) is among the tiles 8j..8j+7 set in x.
        self._fitting_bytes = np.zeros((4, 256, NUMBERS), np.int64)
        for t in range(NUM_TILES):
            j, bit = divmod(t, 8)
            has = (np.arange(256) >> bit & 1).astype(bool)
            self._fitting_bytes[j, has, TILE_LOW[t]] |= 1 << int(TILE_HIGH[t])
            self._fitting_bytes[j, has, TILE_HIGH[t]] |= 1 << int(TILE_LOW[t])
        # _reply_table[(base * 7 + v) * 128 + m]: the most a tile (v, w), w in the bit set m, scores
        # laid on an end of number v of a layout counting ``base`` without that end (a double twice).
        base, v, m, w = np.ix_(np.arange(49), np.arange(NUMBERS), np.arange(128), np.arange(NUMBERS))
        count = np.minimum(base + (w << ((w == v) & self._both_halves)), 48)
        self._reply_table = (self._points[count] * (m >> w & 1)).max(axis=3).reshape(-1)
        self._low = np.append(TILE_LOW, 0).astype(np.int64)
        self._high = np.append(TILE_HIGH, 0).astype(np.int64)
        self._lead_rank = np.array([lead_rank(DOUBLE_SIX, t) for t in range(NUM_TILES)])
        self._suit_bits = np.array(list(DOUBLE_SIX.suit_mask) + [0], np.uint64)
        self._number_bit = np.array([1 << v for v in range(NUMBERS)] + [0], np.uint64)
        self._byte_pips = np.array([
            [sum(DOUBLE_SIX.pips[8 * j + i] for i in range(8) if x >> i & 1 and 8 * j + i < NUM_TILES)
             for x in range(256)]
            for j in range(4)
        ])
        self._spread = _spread_table(self._stride)
        # Where tiles 0-15 and 16-27 of a set land among the action words: (word, shift).
        self._chunk_at = [divmod(16 * self._stride * c, 64) for c in range(2)]
        self._mask_words = -(-self.num_actions // 64)
        # _suit_spread[w][v]: word w of the action bits (end 0) of suit v; rows 7 (closed) and 8 (all).
        suits = np.array(list(DOUBLE_SIX.suit_mask) + [0, DOUBLE_SIX.full_mask], np.uint64)
        self._suit_spread = self._spread_tiles(suits)
        self._count_scaled = scaled(np.arange(4 * 12 + 1), MAX_COUNT[cfg.variant])
        self._play_scaled = scaled(np.arange(cfg.max_play_points + 1), cfg.max_play_points)
        self._score_scale = score_scale(cfg)
        self._lay = slot_slices(cfg)
        self._bits = self._lay["count"].start  # the 0/1 slots end where the scaled ones begin
        self._bit_words = -(-self._bits // 64)
        self._full = np.uint64(DOUBLE_SIX.full_mask)
        self._pow2 = np.array([1 << i for i in range(64)], np.uint64)
        self._rotation = (np.arange(n)[:, None] + np.arange(n)) % n  # [me, j] = (me + j) % n

        self._ar = np.arange(b)
        self._base = self._ar * n
        self._row_mask = self._ar * self.num_actions
        self._row_deal = self._ar * NUM_TILES
        self._row_end = self._ar * 4
        self.hands = np.zeros((b, n), np.uint64)
        self._hands_flat = self.hands.reshape(-1)
        self.table = np.zeros(b, np.uint64)
        self.deal = np.zeros((b, NUM_TILES), np.int64)
        self.ptr = np.zeros(b, np.int64)
        self.ends = np.zeros((b, 4), np.int64)
        self.end_double = np.zeros((b, 4), bool)  # outer tile a double, not the spinner
        self.arm = np.zeros((b, 4), bool)  # a tile lies on that arm (the spinner's W/E sides, N, S)
        self.value = np.zeros((b, 4), np.int64)  # each end's share of the count (0 while not counted)
        self.spinner = np.full(b, -1, np.int64)  # the spinner's value, -1 while there is none
        self.plays = np.zeros(b, np.int64)
        self.lead_pips = np.zeros(b, np.int64)
        self.count = np.zeros(b, np.int64)
        self.forced = np.full(b, _NO_TILE, np.int64)  # highest_double: the first hand's forced lead
        self.seat = np.zeros(b, np.int64)
        self.leader = np.zeros(b, np.int64)
        self.streak = np.zeros(b, np.int64)
        self.voids = np.zeros((b, n), np.uint64)
        self.scores = np.zeros((b, n), np.int64)  # each seat's side's score
        self._mask = np.zeros((b, self.num_actions), bool)
        self._open = np.full((b, self._num_ends), _CLOSED)  # the open ends as of the last Batch

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: np.ndarray | None = None) -> Batch:
        """Start a new episode in every game; ``deals`` (``(B, 28)`` permutations) fixes the first
        hands. Bad deals raise ``ValueError``."""
        given = None if deals is None else permutations(deals, self.num_envs, NUM_TILES)
        self._new_matches(self._ar, given)
        no_rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(no_rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """Apply one action per game for its seat to act; finished games are reset. ``actions`` is
        an integer array ``(num_envs,)``; any other, or an illegal action, raises ``ValueError``
        and leaves every game as it was."""
        a = integer_array(actions, "actions", (self.num_envs,))
        ok = self._mask.reshape(-1).take(self._row_mask + a, mode="clip") & (a >= 0) & (a < self.num_actions)
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(a[g])} in game {g} (seat {int(self.seat[g])}); "
                f"legal: {np.flatnonzero(self._mask[g]).tolist()}"
            )
        cfg, n = self.config, self.num_players
        play, draw, passed = a < self._draw_action, a == self._draw_action, a == self._draw_action + 1
        tile = np.where(play, a // self._stride, _NO_TILE)
        seat = self.seat
        fi = self._base + seat
        scores_before = self.scores.copy()

        # Voids from the ends open before the move (encoders.fives_compact's rules).
        number_bits = self._number_bit.take(self._open)
        ends_bits = number_bits[:, 0] | number_bits[:, 1]
        for e in range(2, self._num_ends):
            ends_bits |= number_bits[:, e]
        voids = self.voids.reshape(-1)
        void = np.where(passed, voids[fi] | ends_bits, voids[fi])
        if self._has_stock:
            void = np.where(draw, ends_bits if cfg.draw_policy == "must_play" else 0, void)
        voids[fi] = void

        # The hand: a played tile leaves it, a drawn one joins it (one toggle does both).
        moved = self._tile_bits.take(tile)
        if self._has_stock:
            drawn = self.deal.reshape(-1).take(self._row_deal + np.minimum(self.ptr, NUM_TILES - 1))
            moved |= self._tile_bits.take(np.where(draw, drawn, _NO_TILE))
            self.ptr += draw
        self._hands_flat[fi] ^= moved
        self._place(play, tile, a % self._stride)

        # Play points, then the immediate target check.
        points = np.where(play, self._points.take(self.count), 0)
        over = self._award(self._ar, seat, points)
        self.streak = np.where(play, 0, self.streak + passed)
        domino = play & (self._hands_flat[fi] == 0) & ~over
        if self._partners_out:  # a Fives and Threes team goes out once both partners have
            domino &= self._hands_flat[self._base + (seat ^ 2)] == 0
            blocked = passed & (self.streak >= (self.hands != 0).sum(axis=1))
        else:  # nobody's hand is empty mid-hand
            blocked = passed & (self.streak >= n)
        self.seat = np.where(draw | domino | blocked | over, seat, self._next_seat(seat))

        ended = np.flatnonzero(domino | blocked)
        if ended.size:
            over[ended] = self._end_hands(ended, seat[ended], domino[ended])
        touched = (points > 0) | over  # the games whose scores may have changed
        touched[ended] = True
        rows = np.flatnonzero(touched)
        rewards = np.zeros((self.num_envs, n), np.float32)
        rewards[rows] = self._rewards(self.scores[rows] - scores_before[rows], self.scores[rows], over[rows])
        finished = np.flatnonzero(over)
        if finished.size:
            self._new_matches(finished)
        later = ended[~over[ended]]
        if later.size:
            self._next_hands(later, seat[later], domino[later])
        return self._batch(rewards, over)

    # ----- moves -----------------------------------------------------------------------------
    def _open_ends(self) -> np.ndarray:
        """``(B, E)`` each end's value where open, else 7 (the "closed" row of the number tables)."""
        started = self.plays > 0
        out = np.empty((self.num_envs, self._num_ends), np.int64)
        both = (self.spinner >= 0) & self.arm[:, 0] & self.arm[:, 1]  # N and S open after W and E
        for e in range(self._num_ends):
            out[:, e] = np.where(started if e < 2 else both, self.ends[:, e], _CLOSED)
        return out

    def _place(self, play: np.ndarray, tile: np.ndarray, end: np.ndarray) -> None:
        """Lay each played tile on its end (rules.fives ``_place``), then recount the layout.

        Most plays extend an arm: one gather and one scatter per end array over the flat
        ``(game, end)`` index. Leads and new spinners (a few games a step) take a second pass."""
        low, high = self._low.take(tile), self._high.take(tile)
        double = low == high
        lead = play & (self.plays == 0)
        spins = play & double & (self.spinner < 0) if self._spins else np.zeros_like(play)
        on_arm = play & ~lead & ~spins
        at = self._row_end + end
        ends, end_double = self.ends.reshape(-1), self.end_double.reshape(-1)
        arm, value = self.arm.reshape(-1), self.value.reshape(-1)
        old = ends.take(at)
        outer = low + high - old
        ends[at] = np.where(on_arm, outer, old)
        end_double[at] = np.where(on_arm, double, end_double.take(at))
        arm[at] |= on_arm
        value[at] = np.where(on_arm, outer << (double & self._both_halves), value.take(at))
        rare = np.flatnonzero(lead | spins)
        if rare.size:
            self._place_rare(rare, lead[rare], spins[rare], low[rare], high[rare], end[rare])
        self.table |= self._tile_bits.take(tile)
        self.plays += play
        # The count (rules.fives ``FivesGame.count``): the counted ends, plus the spinner's two
        # halves while one of its W/E sides is bare; the lead alone counts its pips.
        v = self.value
        total = v[:, 0] + v[:, 1]
        if self._num_ends == 4:
            total += v[:, 2] + v[:, 3]
            bare = (self.spinner >= 0) & ~(self.arm[:, 0] & self.arm[:, 1])
            total += np.where(bare, 2 * self.spinner, 0)
        self.count = np.where(self.plays <= 1, self.lead_pips, total)

    def _place_rare(
        self, games: np.ndarray, lead: np.ndarray, spins: np.ndarray, low: np.ndarray, high: np.ndarray,
        end: np.ndarray,
    ) -> None:
        """Leads and new spinners of ``games``; ``value`` is an end's share of the count (0: not counted)."""
        g, low_l, spin_l = games[lead], low[lead], spins[lead]
        # A lead opens W and E (a spinner all four, at its value); only a plain lead's ends count
        # (twice for a double under spinner="none"), and a new hand's ``value`` is 0 already.
        second = np.where(spin_l, low_l, high[lead])
        self.ends[g] = np.stack([low_l, second, low_l, low_l], axis=1)
        twice = (low_l == second) & ~spin_l
        self.end_double[g, :2] = twice[:, None]
        both = twice & self._both_halves
        self.value[g, :2] = np.where(spin_l[:, None], 0, np.stack([low_l << both, second << both], axis=1))
        self.lead_pips[g] = low_l + high[lead]
        late = ~lead & spins  # a later spinner: the line so far becomes the arm on its covered side
        g, e, low_s = games[late], end[late], low[late][:, None]
        cols = np.arange(4)[None, :]
        self.arm[g] = cols == (1 - e)[:, None]
        self.ends[g] = np.where((cols == e[:, None]) | (cols >= 2), low_s, self.ends[g])
        self.end_double[g, e] = False
        self.value[g, e] = 0
        self.spinner[games[spins]] = low[spins]

    def _award(self, games: np.ndarray, seat: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Credit ``points`` (in the score unit) to each ``seat``'s side in ``games``; returns which
        matches end at once on the target (``target_check="immediate"``; Fives and Threes always)."""
        cfg, target = self.config, self.config.target_score
        scores, at = self.scores.reshape(-1), self._base[games] + seat
        mine = scores.take(at)
        if cfg.exact_target:  # a score passing an exact target is not counted
            points = np.where(mine + points > target, 0, points)
        total = mine + points
        scores[at] = total
        if cfg.teams:  # partners share a score
            scores[self._base[games] + (seat ^ 2)] = total
        if target is None or cfg.target_check == "end_of_hand":
            return np.zeros(games.size, bool)
        return total >= target

    def _next_seat(self, seat: np.ndarray) -> np.ndarray:
        """The next seat still holding tiles (only Fives and Threes partners go out mid-hand)."""
        n = self.num_players
        nxt = self._following.take(seat)
        if self._partners_out:
            for k in range(2, n):
                nxt = np.where(self._hands_flat[self._base + nxt] == 0, (seat + k) % n, nxt)
        return nxt

    # ----- hands and matches -----------------------------------------------------------------
    def _end_hands(self, games: np.ndarray, last: np.ndarray, domino: np.ndarray) -> np.ndarray:
        """Hand points of the hands that ended (rules.fives ``_end_hand``); returns which matches end."""
        cfg, side, k, n = self.config, self._side, games.size, self.num_players
        if cfg.is_all_fives:
            held = self.hands[games].view(np.uint8).reshape(k, n, 8)[..., :4]
            pips = self._byte_pips[np.arange(4), held].sum(axis=-1)
            low = pips.min(axis=1)
            lowest = pips == low[:, None]
            first = lowest.argmax(axis=1)
            one_side = ~(lowest & (side[None, :] != side[first][:, None])).any(axis=1)
            seat = np.where(domino, last, first)
            won = (pips * (side[None, :] != side[seat][:, None])).sum(axis=1)
            if cfg.blocked_scoring == "others_minus_own":
                won -= np.where(domino, 0, low)
            if cfg.hand_rounding == "nearest5":
                won = 5 * ((won + 2) // 5)
            if cfg.score_unit == "fives":
                won //= 5
            points = np.where(domino | one_side, won, 0)
        else:
            seat, points = last, np.where(domino, cfg.chip_out_bonus, 0)
        over = self._award(games, seat, points)
        target = cfg.target_score
        if target is None:
            return np.ones(k, bool)
        if cfg.target_check == "end_of_hand":  # a shared top total plays another hand
            totals = self.scores[games, : cfg.num_sides]
            top = totals.max(axis=1)
            over |= (top >= target) & ((totals == top[:, None]).sum(axis=1) == 1)
        return over

    def _rewards(self, gained: np.ndarray, scores: np.ndarray, over: np.ndarray) -> np.ndarray:
        """Every seat's reward for this step (module docstring) in games whose scores are ``scores``
        after gaining ``gained`` (per seat, partners alike), ``over`` where the episode ended."""
        sides = self.config.num_sides
        if self.reward == "win_loss":
            totals = scores[:, :sides]
            values = (totals == totals.max(axis=1, keepdims=True)) & over[:, None]
        else:
            values = gained[:, :sides]
        if self.reward == "points":
            return values[:, self._side].astype(np.float32)
        return zero_sum(values, self._side).astype(np.float32)

    def _deals(self, games: np.ndarray, given: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """Deals for ``games`` (``reset``'s, the dealer's or a seeded shuffle) and any fixed leaders."""
        if given is not None:
            return given, None
        if self._dealer is None:
            return self._rng.random((games.size, NUM_TILES)).argsort(axis=1), None
        out = self._dealer(games)
        deals, leaders = out if isinstance(out, tuple) else (out, None)
        deals = permutations(deals, games.size, NUM_TILES)
        if leaders is not None:
            leaders = integer_array(leaders, "leaders", (games.size,))
            if ((leaders < 0) | (leaders >= self.num_players)).any():
                raise ValueError(f"leaders must be seats 0..{self.num_players - 1}, got {leaders.tolist()}")
        return deals, leaders

    def _by_lot(self, size: int, leaders: np.ndarray | None) -> np.ndarray:
        """Leaders drawn by lot: the dealer's when it fixed them, else from the seeded generator."""
        return self._rng.integers(self.num_players, size=size) if leaders is None else leaders

    def _new_matches(self, games: np.ndarray, given: np.ndarray | None = None) -> None:
        """Zero the scores and deal the first hand (rules.fives ``_next_leader``, first hand)."""
        self.scores[games] = 0
        deals, leaders = self._deals(games, given)
        forced = np.full(games.size, _NO_TILE)
        if self.config.lead_rule == "highest_double":
            best = self._lead_rank[deals[:, : self._dealt]].argmax(axis=1)
            leaders, forced = best // self.config.hand_size, deals[np.arange(games.size), best]
        else:
            leaders = self._by_lot(games.size, leaders)
        self._start_hands(games, deals, leaders)
        self.forced[games] = forced

    def _next_hands(self, games: np.ndarray, last: np.ndarray, domino: np.ndarray) -> None:
        """Deal the next hand: All Fives' winner leads (by lot after a block), else the next seat."""
        deals, leaders = self._deals(games, None)
        cfg = self.config
        if cfg.is_all_fives and cfg.next_leader == "winner":
            leaders = np.where(domino, last, self._by_lot(games.size, leaders))
        else:
            leaders = (self.leader[games] + 1) % self.num_players
        self._start_hands(games, deals, leaders)
        self.forced[games] = _NO_TILE

    def _start_hands(self, games: np.ndarray, deals: np.ndarray, leaders: np.ndarray) -> None:
        """Deal ``deals`` to ``games`` and clear their tables, led by ``leaders``."""
        n, h = self.num_players, self.config.hand_size
        self.deal[games] = deals
        dealt = self._tile_bits[deals[:, : self._dealt]].reshape(games.size, n, h)
        self.hands[games] = np.bitwise_or.reduce(dealt, axis=2)
        self.table[games] = 0
        self.ptr[games] = self._dealt
        self.end_double[games] = False
        self.arm[games] = False
        self.value[games] = 0
        self.spinner[games] = -1
        self.plays[games] = 0
        self.lead_pips[games] = 0
        self.count[games] = 0
        self.streak[games] = 0
        self.voids[games] = 0
        self.leader[games] = leaders
        self.seat[games] = leaders

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        self._open = self._open_ends()
        self._mask = self._legal_mask()
        return Batch(self.seat.copy(), self._observe(), self._mask.copy(), rewards, done)

    def _spread_tiles(self, tiles: np.ndarray) -> list[np.ndarray]:
        """Tile bit sets ``(B,)`` -> action words with tile ``t`` at bit ``stride * t`` (end 0)."""
        chunks = tiles.view(np.uint16).reshape(-1, 4)
        words = [np.zeros(tiles.size, np.uint64) for _ in range(self._mask_words)]
        for c, (w, shift) in enumerate(self._chunk_at):  # tiles 0-15, then 16-27
            words[w] |= self._spread.take(chunks[:, c]) << np.uint64(shift)
        return words

    def _legal_mask(self) -> np.ndarray:
        """The hand is spread to action bits once; each end keeps the bits of its suit (a table
        row per open value: row 7 a closed end, row 8 every tile for the lead) shifted by the end.
        Every operation is on whole-batch 1-D arrays: numpy pays per inner loop, so a ``(B, 4)``
        operation costs about what four ``(B,)`` ones do."""
        hand = self._hands_flat.take(self._base + self.seat)
        empty = self.plays == 0
        if self.config.lead_rule == "highest_double":  # the first hand's leader leads its top tile
            hand = np.where(empty & (self.forced < _NO_TILE), self._tile_bits.take(self.forced), hand)
        spread = self._spread_tiles(hand)
        words = [np.zeros(self.num_envs, np.uint64) for _ in spread]
        for e in range(self._num_ends):
            row = np.where(empty, _EVERY, self._open[:, 0]) if e == 0 else self._open[:, e]
            for w, suit in enumerate(self._suit_spread):
                words[w] |= (spread[w] & suit.take(row)) << np.uint64(e)
        playable = words[0] != 0
        for w in words[1:]:
            playable |= w != 0
        stuck = ~playable
        word, bit = divmod(self._draw_action, 64)
        if self._has_stock:
            can_draw = (self.ptr < self._stock_end) & ~empty
            if self.config.draw_policy == "must_play":
                can_draw &= stuck
            words[word] |= can_draw.astype(np.uint64) << np.uint64(bit)
            stuck &= ~can_draw
        words[word] |= stuck.astype(np.uint64) << np.uint64(bit + 1)
        return _unpack(np.stack(words, axis=1), self.num_actions).view(bool)

    def _observe(self) -> np.ndarray:
        """The compact observation of the seat to act (``encoders.fives_compact``), whole batch.

        Every 0/1 slot (they come first) is shifted into ``uint64`` words at its bit offset and the
        words are unpacked once; the scaled slots after them are written whole."""
        cfg, lay, b, n = self.config, self._lay, self.num_envs, self.num_players
        rel = self._base[:, None] + self._rotation.take(self.seat, axis=0)  # flat (game, relative seat)
        mine = self._hands_flat.take(rel[:, 0])
        seen = mine | self.table
        if cfg.open_hands:
            seen = np.bitwise_or.reduce(self.hands, axis=1) | self.table
        unknown = self._full & ~seen
        leader = self._rotation[0].take(self.leader - self.seat)  # (leader - seat) % n without a division
        ends = self._number_bit.take(self._open)
        for e in range(1, self._num_ends):
            ends[:, 0] |= ends[:, e] << np.uint64(NUMBERS * e)
        pieces = [
            (lay["hand"].start, mine), (lay["table"].start, self.table), (lay["unknown"].start, unknown),
            (lay["ends"].start, ends[:, 0]),
            (lay["spinner"].start, self._number_bit.take(np.where(self.spinner >= 0, self.spinner, _CLOSED))),
            (lay["pass_streak"].start, self._pow2.take(self.streak) | self._pow2.take(n + leader)),
        ]
        pieces += [(lay["end_doubles"].start + e, self.end_double[:, e] & (self._open[:, e] < _CLOSED))
                   for e in range(self._num_ends)]
        pieces += [(lay["arms"].start + e, self.arm[:, e]) for e in range(self._num_ends)]
        voids = self.voids.reshape(-1)
        pieces += [(lay["voids"].start + NUMBERS * (r - 1), voids.take(rel[:, r])) for r in range(1, n)]
        if cfg.open_hands:
            pieces += [(lay["open_hands"].start + NUM_TILES * (r - 1), self._hands_flat.take(rel[:, r]))
                       for r in range(1, n)]
        words = [np.zeros(b, np.uint64) for _ in range(self._bit_words)]
        for offset, bits in pieces:
            w, shift = divmod(offset, 64)
            bits = bits.astype(np.uint64, copy=False)
            words[w] |= bits << np.uint64(shift)
            if shift and w + 1 < len(words):
                words[w + 1] |= bits >> np.uint64(64 - shift)
        obs = np.empty((b, self.obs_dim), np.float32)
        obs[:, : self._bits] = _unpack(np.stack(words, axis=1), self._bits)
        obs[:, lay["count"].start] = self._count_scaled.take(self.count)
        obs[:, lay["unseen"]] = scaled(bitwise_count(unknown[:, None] & self._suit_bits[:NUMBERS]), NUMBERS)
        obs[:, lay["hand_sizes"]] = scaled(bitwise_count(self._hands_flat.take(rel)), NUM_TILES)
        obs[:, lay["stock"].start] = scaled(np.maximum(self._stock_end - self.ptr, 0), NUM_TILES)
        scale = self._score_scale
        obs[:, lay["scores"]] = scaled(np.minimum(self.scores.reshape(-1).take(rel), scale), scale)
        _write_look_ahead(
            obs, lay["play_points"].start, lay["reply_points"].start, self._mask, unknown, self.ends,
            self.value, self.arm, self.spinner, self.plays, self._stride, self._spins, self._both_halves,
            self._low, self._high, self._points, self._reply_table, self._fitting_bytes, self._play_scaled,
        )
        return obs
