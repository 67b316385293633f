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

import numpy as np

from domino_env.encoders.line_compact import compact_slots, scaled, slot_slices
from domino_env.envs.dominoes_v0 import EPISODES, REWARDS
from domino_env.rules.line import LineConfig
from domino_env.tiles import tile_set
from domino_env.vector.batch import Batch

Dealer = Callable[[np.ndarray], np.ndarray]
"""Given the ids of the games starting a round, return their deals: ``(k, T)`` permutations of the
tile indices; seat ``i`` gets columns ``i*h .. i*h+h-1``, the rest is the stock in drawing order."""


def _words(mask: int, num_words: int) -> np.ndarray:
    """A Python-int bit set as ``num_words`` little-endian ``uint64`` words."""
    return np.array([(mask >> (64 * w)) & (2**64 - 1) for w in range(num_words)], dtype=np.uint64)


def _unpack(words: np.ndarray, num_bits: int) -> np.ndarray:
    """``(..., W) uint64`` bit sets -> ``(..., num_bits) uint8`` 0/1 per bit."""
    return np.unpackbits(words.view(np.uint8), axis=-1, count=num_bits, bitorder="little")


_INTERLEAVE = [(np.uint64(s), np.uint64(m)) for s, m in (
    (16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
    (2, 0x3333333333333333), (1, 0x5555555555555555),
)]


def _spread(tiles: np.ndarray) -> np.ndarray:
    """Tile bit sets ``(B, W)`` -> action bit sets ``(B, 2W)`` with tile ``t`` at bit ``2t`` (side 0).

    Each 32-bit half of a word is spread over a whole word by the usual bit interleave."""
    x = np.stack([tiles & np.uint64(0xFFFFFFFF), tiles >> np.uint64(32)], axis=-1).reshape(tiles.shape[0], -1)
    for shift, magic in _INTERLEAVE:
        x = (x | (x << shift)) & magic
    return x


class VectorLineGame:
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
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        target = options.pop("target_score", "preset")
        if episode == "match" and target is None:
            raise ValueError("a match episode needs a target_score")
        self.config = cfg = LineConfig(**options, target_score=target if episode == "match" else None)
        self.episode, self.reward = episode, reward
        ts = tile_set(cfg.max_pips)
        n, t = cfg.num_players, ts.num_tiles
        self.num_envs, self.num_players, self.num_actions = num_envs, n, 2 * t + 2
        self.slots = compact_slots(cfg)
        self.obs_dim = self.slots[-1].start + self.slots[-1].length
        self._rng = np.random.default_rng(seed)
        self._dealer: Dealer = dealer or self._shuffle
        self._n_tiles, self._n_numbers = t, cfg.max_pips + 1
        self._dealt = n * cfg.hand_size
        self._stock_end = t - cfg.draw_reserve if cfg.variant == "draw" else self._dealt
        self._draw_when_stuck = cfg.draw_policy == "when_stuck"

        # Tile tables as arrays; row ``t`` (one past the last tile) is "no tile".
        nw = (t + 63) // 64
        self._full = _words(ts.full_mask, nw)
        self._tile_bits = np.stack([_words(1 << i, nw) for i in range(t)] + [np.zeros(nw, np.uint64)])
        self._suit_bits = np.stack([_words(m, nw) for m in ts.suit_mask])
        self._low = np.array(ts.low + (0,), dtype=np.int64)
        self._high = np.array(ts.high + (0,), dtype=np.int64)
        self._pips = np.array(ts.pips, dtype=np.int64)
        # Lead rank for "highest double, else heaviest tile (ties by the higher high end)".
        self._lead_rank = np.array(
            [ts.is_double(i) * 10**4 + ts.pips[i] * 100 + ts.high[i] for i in range(t)]
        )
        self._side = np.arange(n) % 2 if cfg.teams else np.arange(n)
        # _rotation[me, j] = (me + j) % n, the seat j places to the left of seat me.
        self._rotation = (np.arange(n)[:, None] + np.arange(n)) % n
        self._void_shifts = (np.arange(1, n, dtype=np.uint64) - np.uint64(1)) * np.uint64(cfg.max_pips + 1)

        b = num_envs
        self._ar = np.arange(b)
        self.hands = np.zeros((b, n, nw), np.uint64)
        self.line = np.zeros((b, nw), np.uint64)
        self.left = np.zeros(b, np.int64)
        self.right = np.zeros(b, np.int64)
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
        """Start a new episode in every game; ``deals`` (``(B, T)``) fixes the first round's deals."""
        self._new_matches(self._ar, deals)
        no_rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(no_rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """Apply one action per game for its seat to act; finished games are reset."""
        a = np.asarray(actions, dtype=np.int64)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        ok = (a >= 0) & (a < self.num_actions)
        ok[ok] = self._mask[ok.nonzero()[0], a[ok]]
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(a[g])} in game {g} (seat {int(self.seat[g])}); "
                f"legal: {np.flatnonzero(self._mask[g]).tolist()}"
            )
        t, n = self._n_tiles, self.num_players
        play, draw, passed = a < 2 * t, a == 2 * t, a == 2 * t + 1
        tile = np.where(play, a >> 1, t)
        side = a & 1
        seat = self.seat
        fi = self._ar * n + seat
        hands = self.hands.reshape(-1, self.hands.shape[-1])  # flat (game, seat) views
        counts, voids = self.counts.reshape(-1), self.voids.reshape(-1)

        # Plays: the tile leaves the hand for the line, and the matched end takes its other half.
        played = self._tile_bits[tile]
        drawn = self._tile_bits[np.where(draw, self.deal[self._ar, np.minimum(self.ptr, t - 1)], t)]
        hands[fi] = (hands[fi] & ~played) | drawn
        self.line |= played
        pips = self._low[tile] + self._high[tile]
        left = np.where(self.empty, self._low[tile], np.where(side == 0, pips - self.left, self.left))
        right = np.where(self.empty, self._high[tile], np.where(side == 1, pips - self.right, self.right))
        self.left = np.where(play, left, self.left)
        self.right = np.where(play, right, self.right)
        end_numbers = np.where(self.empty, 0, (1 << self.left) | (1 << self.right))
        self.empty &= ~play
        counts[fi] += draw.astype(np.int64) - play
        self.ptr += draw

        # Passes and draws: voids (see encoders.line_compact) and the run of passes.
        new_void = np.where(passed, voids[fi] | end_numbers, voids[fi])
        voids[fi] = np.where(draw, end_numbers if self._draw_when_stuck else 0, new_void)
        self.streak = np.where(play, 0, self.streak + passed)
        self.seat = np.where(draw, seat, (seat + 1) % n)

        rewards = np.zeros((self.num_envs, n), np.float32)
        done = np.zeros(self.num_envs, bool)
        ended = np.flatnonzero((play & (counts[fi] == 0)) | (self.streak == n))
        if ended.size:
            self._end_rounds(ended, seat[ended], play[ended], rewards, done)
        return self._batch(rewards, done)

    # ----- rounds and matches ----------------------------------------------------------------
    def _shuffle(self, games: np.ndarray) -> np.ndarray:
        return self._rng.random((games.size, self._n_tiles)).argsort(axis=1)

    def _new_matches(self, games: np.ndarray, deals: np.ndarray | None = None) -> None:
        self.scores[games] = 0
        deals = self._dealer(games) if deals is None else np.asarray(deals, dtype=np.int64)
        if self.config.first_leader == "random":
            leaders = self._rng.integers(self.num_players, size=games.size)
        else:
            best = self._lead_rank[deals[:, : self._dealt]].argmax(axis=1)
            leaders = best // self.config.hand_size
        self._start_rounds(games, deals, leaders)

    def _start_rounds(self, games: np.ndarray, deals: np.ndarray, leaders: np.ndarray) -> None:
        n, h = self.num_players, self.config.hand_size
        if deals.shape != (games.size, self._n_tiles):
            raise ValueError(f"deals must have shape ({games.size}, {self._n_tiles}), got {deals.shape}")
        self.deal[games] = deals
        dealt = self._tile_bits[deals[:, : self._dealt]].reshape(games.size, n, h, -1)
        self.hands[games] = np.bitwise_or.reduce(dealt, axis=2)
        self.line[games] = 0
        self.empty[games] = True
        self.ptr[games] = self._dealt
        self.counts[games] = h
        self.voids[games] = 0
        self.streak[games] = 0
        self.leader[games] = leaders
        self.seat[games] = leaders

    def _end_rounds(
        self, games: np.ndarray, last: np.ndarray, domino: np.ndarray, rewards: np.ndarray, done: np.ndarray
    ) -> None:
        """Score the rounds that ended (RULES.md 2.3), then deal on or start a new episode."""
        side = self._side
        pips = _unpack(self.hands[games], self._n_tiles).astype(np.int64) @ self._pips  # (k, n)
        low = pips.min(axis=1)
        lowest = pips == low[:, None]
        low_side = side[lowest.argmax(axis=1)]
        one_side = ~(lowest & (side[None, :] != low_side[:, None])).any(axis=1)
        winner = np.where(domino, side[last], np.where(one_side, low_side, -1))
        own = np.where(domino, 0, low) if self.config.scoring == "others_minus_own" else 0
        opponents = side[None, :] != winner[:, None]
        points = np.where(winner >= 0, (pips * opponents).sum(axis=1) - own, 0)
        won = (side[None, :] == winner[:, None]) & (winner[:, None] >= 0)
        self.scores[games] += won * points[:, None]
        target = self.config.target_score
        over = np.ones(games.size, bool) if target is None else self.scores[games].max(axis=1) >= target
        rewards[games] = self._rewards(points, won, over)
        done[games] = over
        if over.any():
            self._new_matches(games[over])
        later = games[~over]
        if later.size:
            self._start_rounds(later, self._dealer(later), (self.leader[later] + 1) % self.num_players)

    def _rewards(self, points: np.ndarray, won: np.ndarray, over: np.ndarray) -> np.ndarray:
        """``dominoes_v0``'s rewards, batched. Only the winning side scores, so its zero-sum
        ``p_k - (sum_j p_j - p_k) / (K - 1)`` is ``p`` for the winners and ``-p / (K - 1)`` for the rest."""
        value = points[:, None].astype(np.float64)
        if self.reward == "points":
            return np.where(won, value, 0.0).astype(np.float32)
        if self.reward == "win_loss":
            # In a match only the round winner can have reached the target, so it won the episode.
            value = np.where(over & won.any(axis=1), 1.0, 0.0)[:, None]
        return np.where(won, value, 0.0 - value / (self.config.num_sides - 1)).astype(np.float32)

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        self._mask = self._legal_mask()
        return Batch(self.seat.copy(), self._observe(), self._mask.copy(), rewards, done)

    def _legal_mask(self) -> np.ndarray:
        t = self._n_tiles
        hand = self.hands[self._ar, self.seat]
        empty = self.empty[:, None]
        on_left = np.where(empty, hand, hand & self._suit_bits[self.left])
        on_right = np.where(empty, 0, hand & self._suit_bits[self.right])
        playable = (on_left | on_right).any(axis=1)
        can_draw = (self.ptr < self._stock_end) & ~self.empty  # the opening is always a tile
        if self._draw_when_stuck:
            can_draw &= ~playable
        words = _spread(on_left) | (_spread(on_right) << np.uint64(1))
        word, bit = divmod(2 * t, 64)  # draw and pass share a word: 2T is even, so bit <= 62
        words[:, word] |= (can_draw.astype(np.uint64) << np.uint64(bit)) | (
            (~playable & ~can_draw).astype(np.uint64) << np.uint64(bit + 1)
        )
        return _unpack(words, self.num_actions).view(bool)

    def _observe(self) -> np.ndarray:
        """The compact observation of the seat to act (``encoders.line_compact``), whole batch.

        Bit-set slots are unpacked in one go, one-hot slots are single scattered ones, and the voids
        of all other seats are packed into one word (at most 3 x 13 bits) and unpacked."""
        cfg, lay = self.config, slot_slices(self.config)
        t, n, b, v = self._n_tiles, self.num_players, self.num_envs, self._n_numbers
        rel = self._ar[:, None] * n + self._rotation[self.seat]  # flat (game, relative seat)
        hands = self.hands.reshape(b * n, -1)
        mine = hands[rel[:, 0]]
        seen = mine | self.line
        if cfg.open_hands:
            seen = np.bitwise_or.reduce(self.hands, axis=1) | self.line
        unknown = self._full & ~seen
        obs = np.zeros((b, self.obs_dim), np.float32)
        obs[:, : 3 * t] = _unpack(np.stack([mine, self.line, unknown], axis=1), t).reshape(b, 3 * t)

        row = self._ar * self.obs_dim
        laid = ~self.empty
        ones = [
            (row + lay["left_end"].start + self.left)[laid],
            (row + lay["right_end"].start + self.right)[laid],
            row + lay["pass_streak"].start + self.streak,
            row + lay["leader"].start + (self.leader - self.seat) % n,
        ]
        obs.reshape(-1)[np.concatenate(ones)] = 1

        voids = self.voids.reshape(-1)[rel[:, 1:]].astype(np.uint64) << self._void_shifts
        obs[:, lay["voids"]] = _unpack(np.bitwise_or.reduce(voids, axis=1)[:, None], (n - 1) * v)
        unseen = np.bitwise_count(unknown[:, None, :] & self._suit_bits).sum(axis=2, dtype=np.int64)
        obs[:, lay["unseen"]] = scaled(unseen, v)
        obs[:, lay["hand_sizes"]] = scaled(self.counts.reshape(-1)[rel], t)
        obs[:, lay["stock"]] = scaled(self._stock_end - self.ptr, t)[:, None]
        target = cfg.target_score or 1
        obs[:, lay["scores"]] = scaled(np.minimum(self.scores.reshape(-1)[rel], target), target)
        if cfg.open_hands:
            obs[:, lay["open_hands"]] = _unpack(hands[rel[:, 1:]], t).reshape(b, -1)
        return obs
