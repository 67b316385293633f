"""Batched Block / Draw: ``num_envs`` independent line games stepped in lockstep with numpy.

State is a handful of arrays (per game: hands as bit sets, the line's bit set and two ends, the
dealt permutation and a stock pointer, seat, leader, pass streak, voids, scores), so one ``step`` is
a fixed sequence of whole-batch array operations with no Python loop over games; only games that
finish a round take a second, smaller pass (scoring and the next deal).

Bit sets are ``uint64`` words over the canonical tile index, ``W = ceil(T / 64)`` words per set:
one word up to double-nine (55 tiles), two for double-ten to double-twelve (91 tiles). Every tile
rule comes from ``tiles.tile_set`` (suit masks, halves, pips) and every option, its validation
and its defaults from ``rules.line.LineConfig``; results equal ``rules.line`` step by step
(``tests/vector/test_line_vector_vs_reference.py``). numpy rather than torch: on this CPU the same
batched bit operations ran about as fast in both, and numpy has ``unpackbits`` and ``uint64``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from domino_env.encoders.base import Slot, scaled
from domino_env.encoders.line_compact import compact_slots, slot_slices
from domino_env.games import DOMINOES, Game
from domino_env.rules.line import lead_rank
from domino_env.rules.rewards import zero_sum
from domino_env.rules.tiles import tile_set
from domino_env.vector.batch import Batch, bitwise_count, deal_rows, integer_array

Dealer = Callable[[np.ndarray], np.ndarray]
"""Given the ids of the games starting a round, return their deals: ``(k, T)`` permutations of the
tile indices; seat ``i`` gets columns ``i*h .. i*h+h-1``, the rest is the stock in drawing order."""


def _words(mask: int, num_words: int) -> np.ndarray:
    """A Python-int bit set as ``num_words`` little-endian ``uint64`` words."""
    return np.array([(mask >> (64 * w)) & (2**64 - 1) for w in range(num_words)], dtype=np.uint64)


def _unpack(words: np.ndarray, num_bits: int) -> np.ndarray:
    """``(..., W) uint64`` bit sets -> ``(..., num_bits) uint8`` 0/1 per bit."""
    return np.unpackbits(words.view(np.uint8), axis=-1, count=num_bits, bitorder="little")


# _SPREAD16[x]: the 16 bits of x moved to the even bits of 32 (bit i -> bit 2i).
_SPREAD16 = np.zeros(1 << 16, np.uint32)
for _i in range(16):
    _SPREAD16 |= ((np.arange(1 << 16, dtype=np.uint32) >> _i) & 1) << (2 * _i)


def _spread(tiles: np.ndarray) -> np.ndarray:
    """Tile bit sets ``(B, W)`` -> action bit sets ``(B, 2W)`` with tile ``t`` at bit ``2t`` (side 0).

    One lookup per 16-bit chunk (a 256 KiB table) instead of five shift-and-mask passes."""
    return _SPREAD16.take(tiles.view(np.uint16)).view(np.uint64)


def _any(words: np.ndarray) -> np.ndarray:
    """``(B, W)`` bit sets -> ``(B,)`` non-empty; a loop over the few words beats ``any(axis=1)``."""
    out = words[:, 0] != 0
    for w in range(1, words.shape[1]):
        out |= words[:, w] != 0
    return out


class BatchedMatches:
    """The options every batched line-family engine (``VectorLineGame``, ``TorchLineGame``,
    ``VectorFivesGame``, ``VectorMexicanTrainGame``) reads alike: ``game.config`` checks them as the
    single-game env does; then the sizes, the compact observation's slots (``compact_slots``), the
    ``dealer`` (the seeded generator is the engine's own), and where a deal's hands and its drawable
    stock end."""

    def __init__(
        self,
        game: Game,
        compact_slots: Callable[[Any], tuple[Slot, ...]],
        num_envs: int,
        *,
        dealer: Callable | None,
        episode: str,
        reward: str,
        options: dict[str, Any],
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.config = cfg = game.config(episode=episode, reward=reward, **options)
        self.episode, self.reward = episode, reward
        self.num_envs, self.num_players, self.num_actions = num_envs, cfg.num_players, cfg.num_actions
        self.slots = compact_slots(cfg)
        self.obs_dim = self.slots[-1].start + self.slots[-1].length
        self._dealer = dealer
        self._dealt = cfg.num_players * cfg.hand_size
        self._stock_end = self._dealt + cfg.drawable_stock
        self._has_stock = self._stock_end > self._dealt  # else nobody ever draws: skip that work


class VectorLineGame(BatchedMatches):
    """``num_envs`` Block/Draw episodes with automatic reset, as ``dominoes_v0`` would play them.

    ``episode`` (``"round"`` or ``"match"``), ``reward`` (``"zero_sum"``, ``"points"``,
    ``"win_loss"``) and ``options`` (those of ``rules.line.LineConfig``, presets included) mean what
    they mean in ``envs.dominoes_v0.raw_env``, rewards included. ``dealer`` replaces the seeded
    shuffle, e.g. to replay fixed deals for duplicate evaluation or differential tests.
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
        super().__init__(DOMINOES, compact_slots, num_envs, dealer=dealer, episode=episode, reward=reward,
                         options=options)
        cfg = self.config
        self._rng = np.random.default_rng(seed)
        ts = tile_set(cfg.max_pips)
        n, t = cfg.num_players, ts.num_tiles
        self._n_tiles, self._n_numbers = t, cfg.max_pips + 1
        self._draw_when_stuck = cfg.draw_policy == "when_stuck"

        # Tile tables as arrays; row ``t`` (one past the last tile) is "no tile".
        nw = (t + 63) // 64
        self._full = _words(ts.full_mask, nw)
        self._tile_bits = np.stack([_words(1 << i, nw) for i in range(t)] + [np.zeros(nw, np.uint64)])
        # Rows V and V + 1 are what the ends index while the line is empty: every tile / none fits.
        v = self._n_numbers
        suits = [_words(m, nw) for m in ts.suit_mask]
        self._suit_bits = np.stack(suits + [self._full, np.zeros(nw, np.uint64)])
        self._end_onehot = np.eye(v + 2, v, dtype=np.float32)  # one-hot rows; V and V + 1 are zeros
        # _void_bits[m]: void set m (V bits) as V floats, so the voids slot is one table gather.
        self._void_bits = _unpack(np.arange(1 << v, dtype=np.uint64)[:, None], v).astype(np.float32)
        # _byte_pips[j, x]: pips of the tiles whose bits are set in byte value x at byte j of a set.
        self._byte_pips = np.array([
            [sum(ts.pips[8 * j + i] for i in range(8) if x >> i & 1 and 8 * j + i < t) for x in range(256)]
            for j in range(-(-t // 8))
        ])
        self._low = np.array(ts.low + (0,), dtype=np.int64)
        self._high = np.array(ts.high + (0,), dtype=np.int64)
        self._lead_rank = np.array([lead_rank(ts, i) for i in range(t)])  # first_leader="highest_double"
        self._side = np.arange(n) % 2 if cfg.teams else np.arange(n)
        # _rotation[me, j] = (me + j) % n, the seat j places to the left of seat me.
        self._rotation = (np.arange(n)[:, None] + np.arange(n)) % n
        self._next_seat = np.roll(np.arange(n), -1)  # a gather from this beats ``% n``

        b = num_envs
        self._ar = np.arange(b)
        # Flat row offsets: 1-D gathers on flattened arrays are cheaper than 2-D fancy indexing.
        self._base = self._ar * n
        self._row_deal = self._ar * t
        self._row_mask = self._ar * self.num_actions
        self._row_obs = self._ar * self.obs_dim
        self.hands = np.zeros((b, n, nw), np.uint64)
        self._hands_flat = self.hands.reshape(b * n, nw)  # a view: (game, seat) rows
        self.line = np.zeros((b, nw), np.uint64)
        # The open ends; V and V + 1 while the line is empty (see ``_suit_bits``).
        self.left = np.full(b, v, np.int64)
        self.right = np.full(b, v + 1, np.int64)
        self.empty = np.ones(b, bool)
        self.deal = np.zeros((b, t), np.int64)
        self.ptr = np.zeros(b, np.int64)
        self.seat = np.zeros(b, np.int64)
        self.leader = np.zeros(b, np.int64)
        self.streak = np.zeros(b, np.int64)
        self.counts = np.zeros((b, n), np.int64)
        self.voids = np.zeros((b, n), np.int64)
        self.scores = np.zeros((b, n), np.int64)  # each seat's side's score
        self._mask = np.zeros((b, self.num_actions), bool)

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: np.ndarray | None = None) -> Batch:
        """Start a new episode in every game; ``deals`` (``(B, T)`` integers, each row a permutation
        of the tile ids) fixes the first round's deals. Bad deals raise ``ValueError``."""
        self._new_matches(self._ar, deals)
        no_rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(no_rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """Apply one action per game for its seat to act; finished games are reset. ``actions`` is
        an integer array ``(num_envs,)``; any other, or an illegal action, raises ``ValueError``."""
        a = integer_array(actions, "actions", (self.num_envs,))
        # One flat gather; "clip" keeps out-of-range ids inside the array, and the range test refuses them.
        ok = self._mask.reshape(-1).take(self._row_mask + a, mode="clip") & (a >= 0) & (a < self.num_actions)
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(a[g])} in game {g} (seat {int(self.seat[g])}); "
                f"legal: {np.flatnonzero(self._mask[g]).tolist()}"
            )
        t, n = self._n_tiles, self.num_players
        play, passed = a < 2 * t, a == 2 * t + 1
        tile = np.where(play, a >> 1, t)
        side = a & 1
        seat, empty = self.seat, self.empty
        fi = self._base + seat
        hands, counts, voids = self._hands_flat, self.counts.reshape(-1), self.voids.reshape(-1)

        # Plays: the tile leaves the hand for the line, and the matched end takes its other half.
        played = self._tile_bits.take(tile, axis=0)
        moved = played
        if self._has_stock:
            draw = a == 2 * t
            nxt = self.deal.reshape(-1).take(self._row_deal + np.minimum(self.ptr, t - 1))
            moved = played | self._tile_bits.take(np.where(draw, nxt, t), axis=0)
        hands[fi] ^= moved  # a played tile is in the hand and a drawn one is not: one toggle does both
        self.line |= played
        low, high = self._low[tile], self._high[tile]
        pips = low + high
        # The opening (side 0 on an empty line) sets both ends; later plays replace the matched one.
        self.left = np.where(play & (side == 0), np.where(empty, low, pips - self.left), self.left)
        right = np.where(empty, high, pips - self.right)
        self.right = np.where(play & ((side == 1) | empty), right, self.right)
        self.empty = empty & ~play
        held = counts[fi] - play
        if self._has_stock:
            held += draw
            self.ptr += draw
        counts[fi] = held

        # Passes and draws: voids (see encoders.line_compact) and the run of passes. Neither happens
        # on an empty line, so the ends of those games are real numbers here.
        ends = (1 << self.left) | (1 << self.right)
        void = voids[fi] | np.where(passed, ends, 0)
        if self._has_stock:
            void = np.where(draw, ends if self._draw_when_stuck else 0, void)
        voids[fi] = void
        self.streak = np.where(play, 0, self.streak + passed)
        self.seat = self._next_seat.take(seat)
        if self._has_stock:
            self.seat = np.where(draw, seat, self.seat)

        rewards = np.zeros((self.num_envs, n), np.float32)
        done = np.zeros(self.num_envs, bool)
        ended = np.flatnonzero((play & (held == 0)) | (self.streak == n))
        if ended.size:
            self._end_rounds(ended, seat[ended], play[ended], rewards, done)
        return self._batch(rewards, done)

    # ----- rounds and matches ----------------------------------------------------------------
    def _new_matches(self, games: np.ndarray, deals: np.ndarray | None = None) -> None:
        if self.config.target_score is not None:  # one-round episodes never score (see _end_rounds)
            self.scores[games] = 0
        deals = deal_rows(games, deals, self._dealer, self._rng, self._n_tiles)
        if self.config.first_leader == "random":
            leaders = self._rng.integers(self.num_players, size=games.size)
        else:
            best = self._lead_rank[deals[:, : self._dealt]].argmax(axis=1)
            leaders = best // self.config.hand_size
        self._start_rounds(games, deals, leaders)

    def _start_rounds(self, games: np.ndarray, deals: np.ndarray, leaders: np.ndarray) -> None:
        """Deal ``deals`` (from ``deal_rows``) to ``games``, led by ``leaders``."""
        n, h = self.num_players, self.config.hand_size
        self.deal[games] = deals
        dealt = self._tile_bits[deals[:, : self._dealt]].reshape(games.size, n, h, -1)
        self.hands[games] = np.bitwise_or.reduce(dealt, axis=2)
        self.line[games] = 0
        self.empty[games] = True
        self.left[games], self.right[games] = self._n_numbers, self._n_numbers + 1
        self.ptr[games] = self._dealt
        self.counts[games] = h
        self.voids[games] = 0
        self.streak[games] = 0
        self.leader[games] = leaders
        self.seat[games] = leaders

    def _end_rounds(
        self, games: np.ndarray, last: np.ndarray, domino: np.ndarray, rewards: np.ndarray, done: np.ndarray
    ) -> None:
        """Score the rounds that ended (docs/rules.md 2.3), then deal on or start a new episode."""
        side = self._side
        held = self.hands[games].view(np.uint8)[..., : self._byte_pips.shape[0]]  # (k, n, bytes)
        pips = self._byte_pips[np.arange(held.shape[-1]), held].sum(axis=-1)  # one lookup per byte
        low = pips.min(axis=1)
        lowest = pips == low[:, None]
        low_side = side[lowest.argmax(axis=1)]
        one_side = ~(lowest & (side[None, :] != low_side[:, None])).any(axis=1)
        winner = np.where(domino, side[last], np.where(one_side, low_side, -1))
        own = np.where(domino, 0, low) if self.config.scoring == "others_minus_own" else 0
        opponents = side[None, :] != winner[:, None]
        points = np.where(winner >= 0, (pips * opponents).sum(axis=1) - own, 0)
        won = (side[None, :] == winner[:, None]) & (winner[:, None] >= 0)
        target = self.config.target_score
        if target is None:  # one-round episodes: the match scores would be zeroed again at once
            over = np.ones(games.size, bool)
        else:
            self.scores[games] += won * points[:, None]
            over = self.scores[games].max(axis=1) >= target
        rewards[games] = self._rewards(points, winner, over)
        done[games] = over
        if over.any():
            self._new_matches(games[over])
        later = games[~over]
        if later.size:
            deals = deal_rows(later, None, self._dealer, self._rng, self._n_tiles)
            self._start_rounds(later, deals, (self.leader[later] + 1) % self.num_players)

    def _rewards(self, points: np.ndarray, winner: np.ndarray, over: np.ndarray) -> np.ndarray:
        """``dominoes_v0``'s rewards for rounds that ended with ``points`` to side ``winner`` (-1: none)."""
        side_values = np.zeros((winner.size, self.config.num_sides))
        won = np.flatnonzero(winner >= 0)
        # In a match only the round winner can have reached the target, so it won the episode.
        side_values[won, winner[won]] = over[won] if self.reward == "win_loss" else points[won]
        if self.reward == "points":
            return side_values[:, self._side].astype(np.float32)
        return zero_sum(side_values, self._side).astype(np.float32)

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        self._mask = self._legal_mask()
        return Batch(self.seat.copy(), self._observe(), self._mask.copy(), rewards, done)

    def _legal_mask(self) -> np.ndarray:
        t = self._n_tiles
        hand = self._hands_flat[self._base + self.seat]
        # While the line is empty the ends index "every tile" and "no tile", so no select is needed.
        on_left = hand & self._suit_bits.take(self.left, axis=0)
        on_right = hand & self._suit_bits.take(self.right, axis=0)
        playable = _any(on_left | on_right)
        words = _spread(on_left) | (_spread(on_right) << np.uint64(1))
        word, bit = divmod(2 * t, 64)  # draw and pass share a word: 2T is even, so bit <= 62
        stuck = ~playable
        if self._has_stock:
            can_draw = (self.ptr < self._stock_end) & ~self.empty  # the opening is always a tile
            if self._draw_when_stuck:
                can_draw &= stuck
            words[:, word] |= can_draw.astype(np.uint64) << np.uint64(bit)
            stuck &= ~can_draw
        words[:, word] |= stuck.astype(np.uint64) << np.uint64(bit + 1)
        return _unpack(words, self.num_actions).view(bool)

    def _observe(self) -> np.ndarray:
        """The compact observation of the seat to act (``encoders.line_compact``), whole batch.

        Bit-set slots are unpacked in one go, the ends, voids and one-hot counters come from small
        tables or single scattered ones, and ``unseen`` is a popcount per word."""
        cfg, lay = self.config, slot_slices(self.config)
        t, b, v = self._n_tiles, self.num_envs, self._n_numbers
        seat = self.seat
        rel = self._base[:, None] + self._rotation.take(seat, axis=0)  # flat (game, relative seat)
        mine = self._hands_flat[rel[:, 0]]
        seen = mine | self.line
        if cfg.open_hands:
            seen = np.bitwise_or.reduce(self.hands, axis=1) | self.line
        unknown = self._full & ~seen
        obs = np.zeros((b, self.obs_dim), np.float32)
        obs[:, : 3 * t] = _unpack(np.stack([mine, self.line, unknown], axis=1), t).reshape(b, 3 * t)
        obs[:, lay["left_end"]] = self._end_onehot.take(self.left, axis=0)
        obs[:, lay["right_end"]] = self._end_onehot.take(self.right, axis=0)
        # The pass streak is below n here (n passes end the round), and the leader is always set.
        leader = self._rotation[0].take(self.leader - seat)  # (leader - seat) % n without a division
        obs.reshape(-1)[np.concatenate([
            self._row_obs + lay["pass_streak"].start + self.streak,
            self._row_obs + lay["leader"].start + leader,
        ])] = 1

        voids = self.voids.reshape(-1).take(rel[:, 1:])
        obs[:, lay["voids"]] = self._void_bits.take(voids, axis=0).reshape(b, -1)
        # Per-word popcounts added up: a sum over the tiny word axis would cost ten times more.
        unseen = bitwise_count(unknown[:, None, 0] & self._suit_bits[:v, 0])
        for w in range(1, unknown.shape[1]):
            unseen += bitwise_count(unknown[:, None, w] & self._suit_bits[:v, w])
        obs[:, lay["unseen"]] = scaled(unseen, v)
        obs[:, lay["hand_sizes"]] = scaled(self.counts.reshape(-1).take(rel), t)
        if self._has_stock:  # without a stock the slot stays 0
            obs[:, lay["stock"]] = scaled(self._stock_end - self.ptr, t)[:, None]
        if cfg.target_score is not None:  # one-round scores are reset before anyone observes them
            target = cfg.target_score
            obs[:, lay["scores"]] = scaled(np.minimum(self.scores.reshape(-1).take(rel), target), target)
        if cfg.open_hands:
            obs[:, lay["open_hands"]] = _unpack(self._hands_flat[rel[:, 1:]], t).reshape(b, -1)
        return obs
