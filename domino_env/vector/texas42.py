"""Batched Texas 42: ``num_envs`` independent games stepped in lockstep with numpy.

Every hand, void set, legal-action set and played set is one ``int64`` bit set (28 tiles; the 63
action ids also fit one word), so a step is a fixed sequence of whole-array operations: bids,
declarations and plays each take the games in their phase, and only the games that finish a trick
or a hand take a further, smaller pass. The rules come from ``rules.texas42``: the per-declaration
schemes (``declared_scheme``: the suit each tile leads, the tiles following each suit, the power
of each tile per suit led) become arrays indexed by the declaration, the bid tables become arrays
indexed by the highest bid's action id. Sevens is one more scheme whose power is the pip distance
to 7 (its legal set is the closest tiles). Results equal ``texas42_v0.raw_env`` with the compact
encoder step by step (``tests/vector/test_texas42_vector_vs_reference.py``).
"""

from __future__ import annotations

import numpy as np

from domino_env.encoders.base import scaled
from domino_env.encoders.texas42_compact import compact_slots, slot_slices, suits_in_force
from domino_env.games import TEXAS42
from domino_env.rules.rewards import zero_sum
from domino_env.rules.texas42 import (
    BID,
    BID_MARKS,
    BID_PLUNGE,
    BIDS_OVER,
    COUNT,
    DECLARE,
    HAND_SIZE,
    NELLO,
    NUM_ACTIONS,
    NUM_BID_ACTIONS,
    NUM_SUITS,
    NUM_TILES,
    PASS,
    PLAY,
    PLAY_PHASE,
    PLUNGE_DOUBLES,
    PLUNGES_OVER,
    POINTS_PER_HAND,
    SEATS,
    SEVENS,
    SEVENS_MASKS,
    SEVENS_POWER,
    TILES,
    TRUMP,
    TRUMP_FOLLOWME,
    bid_marks,
    bid_value,
    contract_outcome,
    declared_scheme,
)
from domino_env.vector.batch import Batch, bitwise_count, deal_rows, integer_array
from domino_env.vector.line import Dealer

NO_DECLARATION = PLAY - TRUMP  # scheme row used before the declaration (suits are the numbers)
_SEVENS_ROW = SEVENS - TRUMP
_BID_IDS = np.arange(NUM_BID_ACTIONS)


def _unpack(words: np.ndarray, num_bits: int) -> np.ndarray:
    """``(...,)`` int64 bit sets -> ``(..., num_bits)`` uint8 0/1 per bit."""
    raw = np.ascontiguousarray(words)[..., None].view(np.uint8)
    return np.unpackbits(raw, axis=-1, count=num_bits, bitorder="little")


class VectorTexas42Game:
    """``num_envs`` Texas 42 episodes with automatic reset, as ``texas42_v0.raw_env`` plays them.

    ``reward`` and ``options`` (those of ``rules.texas42.Texas42Config.make``: ``preset``,
    ``forced_bid``, ``nello``, ``plunge``, ``sevens``, ``episode``, ...) mean what they mean in
    ``texas42_v0.raw_env``. ``dealer`` replaces the seeded shuffle of every deal (reshakes and later
    hands included), e.g. to replay fixed deals; ``reset(deals, shakers)`` fixes the first ones.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        dealer: Dealer | None = None,
        reward: str = "zero_sum",
        preset: str = "standard",
        **options,
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.config = cfg = TEXAS42.config(reward=reward, preset=preset, **options)
        if cfg.num_players != SEATS:
            raise ValueError(
                f"VectorTexas42Game plays four-player 42 only (preset 'standard' or 'n42pa', num_players=4); "
                f"got preset={preset!r}, num_players={cfg.num_players}: use texas42_v0.env for three-player "
                "42 and Texas 88"
            )
        self.reward = reward
        self.num_envs, self.num_players, self.num_actions = num_envs, SEATS, NUM_ACTIONS
        self.slots = compact_slots(cfg)
        self.obs_dim = self.slots[-1].start + self.slots[-1].length
        self._rng = np.random.default_rng(seed)
        self._dealer = dealer

        # Tables. Scheme row k is declaration TRUMP + k; row NO_DECLARATION is the numbers.
        rows = [declared_scheme(TRUMP + k, cfg) for k in range(NO_DECLARATION)]
        rows.append(declared_scheme(SEVENS, cfg))
        self._lead = np.array([s.lead for s in rows], np.int64)
        self._follow = np.array([s.follow for s in rows], np.int64)
        power = np.array([s.power for s in rows], np.int64)
        power[_SEVENS_ROW] = SEVENS_POWER  # Sevens: closest to 7 wins, whatever was led
        self._power = power.reshape(-1)
        self._suits = np.array(
            [suits_in_force(TRUMP + k, cfg) for k in range(NO_DECLARATION)] + [suits_in_force(-1, cfg)],
            np.int64,
        )
        self._bids_over = np.array([BIDS_OVER[bid_value(a)] for a in _BID_IDS], np.int64)
        self._plunges_over = np.array([PLUNGES_OVER[bid_value(a)] for a in _BID_IDS], np.int64)
        self._bid_value = np.array([bid_value(a) for a in _BID_IDS], np.int64)
        self._bid_marks = np.array([bid_marks(a) for a in _BID_IDS], np.int64)
        self._count = np.array(COUNT + (0,), np.int64)  # index -1 (no tile) counts 0
        self._sevens_masks = np.array(SEVENS_MASKS, np.int64)
        self._tile_bits = np.int64(1) << np.arange(NUM_TILES, dtype=np.int64)
        self._full = np.int64(TILES.full_mask)
        self._doubles = np.int64(TILES.doubles_mask)
        trumps = sum(1 << a for a in range(TRUMP, TRUMP_FOLLOWME + 1))
        contracts = (1 << NELLO) * (cfg.nello is not None) | (1 << SEVENS) * cfg.sevens
        self._declare_masks = np.array([trumps, trumps | contracts], np.int64)
        self._sides = np.array([cfg.side_of(s) for s in range(SEATS)])  # the teams, as texas42_v0's
        self._rotation = (np.arange(SEATS)[:, None] + np.arange(SEATS)) % SEATS  # [me, r] = (me + r) % 4
        self._void_shifts = np.arange(SEATS - 1, dtype=np.int64) * NUM_SUITS

        b = num_envs
        self._ar = np.arange(b)

        def zeros(*shape: int) -> np.ndarray:
            return np.zeros((b, *shape), np.int64)

        # Per game, the fields of rules.texas42.Texas42Game: per seat its hand and voids (bit sets),
        # its bid and its tile in the trick (-1: none); the hand's played tiles (bit set), phase,
        # seat to act, shaker, winning bid/bidder, declarer, declaration, Nello partner (-1: none),
        # scheme row, the trick's length, leader, suit led and best power/seat so far, and per team
        # points and tricks this hand and marks this game. ``_legal``: the legal-action bit sets.
        self.hands, self.voids, self.bids, self.trick = zeros(SEATS), zeros(SEATS), zeros(SEATS), zeros(SEATS)
        self.points, self.tricks_won, self.marks = zeros(2), zeros(2), zeros(2)
        self.played, self.phase, self.seat, self.shaker = zeros(), zeros(), zeros(), zeros()
        self.bid, self.bidder, self.declarer, self.declaration = zeros(), zeros(), zeros(), zeros()
        self.sitting_out, self.scheme, self.trick_len, self.leader = zeros(), zeros(), zeros(), zeros()
        self.led, self.best_power, self.best_seat = zeros(), zeros(), zeros()
        self._legal = zeros()

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: np.ndarray | None = None, shakers: np.ndarray | None = None) -> Batch:
        """New episodes everywhere; ``deals`` ``(B, 28)`` (each row a permutation of the tile ids:
        seat ``i`` gets columns ``7i..7i+6``) and ``shakers`` ``(B,)`` (seats) fix the first hands
        (later ones come from the dealer). Bad deals or shakers raise ``ValueError``."""
        if shakers is not None:
            shakers = integer_array(shakers, "shakers", (self.num_envs,))
            if ((shakers < 0) | (shakers >= SEATS)).any():
                raise ValueError(f"shakers must be seats 0..{SEATS - 1}, got {shakers.tolist()}")
        self._new_episodes(self._ar, deals, shakers)
        return self._batch(np.zeros((self.num_envs, SEATS), np.float32), np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """Apply one action per game for its seat to act; finished episodes are reset. ``actions``
        is an integer array ``(num_envs,)``; any other, or an illegal action, raises ``ValueError``."""
        a = integer_array(actions, "actions", (self.num_envs,))
        ok = (a >= 0) & (a < NUM_ACTIONS)
        ok &= (self._legal >> np.where(ok, a, 0)) & 1 == 1
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            legal = [i for i in range(NUM_ACTIONS) if int(self._legal[g]) >> i & 1]
            raise ValueError(
                f"illegal action {int(a[g])} in game {g} (seat {int(self.seat[g])}); legal: {legal}"
            )
        rewards = np.zeros((self.num_envs, SEATS), np.float32)
        done = np.zeros(self.num_envs, bool)
        phase = self.phase
        bidding, declaring = np.flatnonzero(phase == BID), np.flatnonzero(phase == DECLARE)
        playing = np.flatnonzero(phase == PLAY_PHASE)
        if playing.size:
            self._play(playing, a[playing] - PLAY, rewards, done)
        if bidding.size:
            self._bid(bidding, a[bidding])
        if declaring.size:
            self._declare(declaring, a[declaring])
        return self._batch(rewards, done)

    # ----- phases ----------------------------------------------------------------------------
    def _bid(self, g: np.ndarray, a: np.ndarray) -> None:
        seat = self.seat[g]
        self.bids[g, seat] = a
        raised = a != PASS
        self.bid[g] = np.where(raised, a, self.bid[g])
        bidder = self.bidder[g] = np.where(raised, seat, self.bidder[g])
        last = seat == self.shaker[g]
        self.seat[g] = (seat + 1) % SEATS
        won = g[last & (bidder >= 0)]
        if won.size:
            self.phase[won] = DECLARE
            plunge = self.bid[won] >= BID_PLUNGE
            declarer = self.declarer[won] = (self.bidder[won] + 2 * plunge) % SEATS
            self.seat[won] = declarer
        void = g[last & (bidder < 0)]  # four passes: a reshake inside the episode
        if void.size:
            self._start_hands(void, self._deals(void), (self.shaker[void] + 1) % SEATS)

    def _declare(self, g: np.ndarray, a: np.ndarray) -> None:
        self.declaration[g] = a
        self.scheme[g] = a - TRUMP
        self.sitting_out[g] = np.where(a == NELLO, (self.bidder[g] + 2) % SEATS, -1)
        self.phase[g] = PLAY_PHASE
        self.seat[g] = self.declarer[g]

    def _play(self, g: np.ndarray, tile: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
        seat, k = self.seat[g], self.scheme[g]
        bit = self._tile_bits[tile]
        self.hands[g, seat] ^= bit
        self.played[g] |= bit
        first = self.trick_len[g] == 0
        led = self.led[g] = np.where(first, self._lead[k, tile], self.led[g])
        self.leader[g] = np.where(first, seat, self.leader[g])
        follows = (self._follow[k, led] >> tile) & 1 == 1
        void = ~first & ~follows & (k != _SEVENS_ROW)
        self.voids[g, seat] |= void.astype(np.int64) << led
        power = self._power[(k * NUM_SUITS + led) * NUM_TILES + tile]
        better = power > self.best_power[g]  # ties keep the earlier tile (only possible in Sevens)
        self.best_power[g] = np.where(better, power, self.best_power[g])
        best_seat = self.best_seat[g] = np.where(better, seat, self.best_seat[g])
        self.trick[g, seat] = tile
        length = self.trick_len[g] + 1
        out = self.sitting_out[g]
        full = length == SEATS - (out >= 0)
        nxt = (seat + 1) % SEATS
        nxt = np.where(nxt == out, (nxt + 1) % SEATS, nxt)
        self.seat[g] = np.where(full, best_seat, nxt)
        self.trick_len[g] = np.where(full, 0, length)
        if full.any():
            self._end_tricks(g[full], rewards, done)

    def _end_tricks(self, g: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
        team = self.best_seat[g] & 1
        self.points[g, team] += 1 + self._count[self.trick[g]].sum(axis=1)
        self.tricks_won[g, team] += 1
        self.trick[g] = -1
        self.best_power[g] = -2
        bid, bt = self.bid[g], self.bidder[g] & 1
        decided, made = contract_outcome(
            self.config.variant,
            bid,
            self._bid_value[bid],
            self.declaration[g] == NELLO,
            (self.points[g, bt], self.points[g, 1 - bt]),
            (self.tricks_won[g, bt], self.tricks_won[g, 1 - bt]),
            self.config.stop_when_decided,
        )
        if decided.any():
            self._score(g[decided], made[decided], rewards, done)

    def _score(self, g: np.ndarray, made: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
        """Marks to the team that won the hand, ``texas42_v0``'s rewards, then the next hand or episode."""
        won = np.where(made, self.bidder[g] & 1, 1 - (self.bidder[g] & 1))
        m = self._bid_marks[self.bid[g]]
        self.marks[g, won] += m
        marks = self.marks[g]
        over = (marks.max(axis=1) >= self.config.target_marks) | (self.config.episode == "hand")
        rewards[g] = self._rewards(won, m, marks, over)
        done[g] = over
        if over.any():
            self._new_episodes(g[over])
        later = g[~over]
        if later.size:
            self._start_hands(later, self._deals(later), (self.shaker[later] + 1) % SEATS)

    def _rewards(self, won: np.ndarray, m: np.ndarray, marks: np.ndarray, over: np.ndarray) -> np.ndarray:
        """``texas42_v0``'s rewards for hands whose ``m`` marks went to team ``won``, as its
        ``_apply`` computes them: per-team values through ``rewards.zero_sum`` (``marks``: as they are)."""
        if self.reward == "win_loss":  # only at the episode's end: 1 to the team with the most marks
            team_values = (marks == marks.max(axis=1, keepdims=True)) & over[:, None]
        else:
            team_values = np.zeros(marks.shape, np.int64)
            team_values[np.arange(won.size), won] = m
        if self.reward == "marks":
            return team_values[:, self._sides].astype(np.float32)
        return zero_sum(team_values, self._sides).astype(np.float32)

    # ----- deals -----------------------------------------------------------------------------
    def _new_episodes(
        self, g: np.ndarray, deals: np.ndarray | None = None, shakers: np.ndarray | None = None
    ) -> None:
        self.marks[g] = 0
        shakers = self._rng.integers(SEATS, size=g.size) if shakers is None else shakers
        self._start_hands(g, self._deals(g, deals), shakers)

    def _deals(self, g: np.ndarray, given: np.ndarray | None = None) -> np.ndarray:
        return deal_rows(g, given, self._dealer, self._rng, NUM_TILES)

    def _start_hands(self, g: np.ndarray, deals: np.ndarray, shakers: np.ndarray) -> None:
        self.hands[g] = self._tile_bits[deals].reshape(g.size, SEATS, HAND_SIZE).sum(axis=2)
        self.shaker[g] = shakers
        self.seat[g] = (shakers + 1) % SEATS
        self.phase[g] = BID
        self.scheme[g] = NO_DECLARATION
        for name in ("played", "voids", "points", "tricks_won", "trick_len"):
            getattr(self, name)[g] = 0
        for name in ("bids", "bid", "bidder", "declarer", "declaration", "sitting_out", "trick", "led"):
            getattr(self, name)[g] = -1
        self.best_power[g] = -2

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        self._legal = self._legal_bits()
        mask = _unpack(self._legal, NUM_ACTIONS).view(bool)
        return Batch(self.seat.copy(), self._observe(), mask, rewards, done)

    def _legal_bits(self) -> np.ndarray:
        """Every game's legal actions as one int64 bit set (``Texas42Game.legal_mask``, batched)."""
        cfg, phase, seat = self.config, self.phase, self.seat
        hand = self.hands[self._ar, seat]
        tiles = hand & self._follow[self.scheme, self.led]
        tiles = np.where((tiles == 0) | (self.trick_len == 0), hand, tiles)
        if cfg.sevens:
            sevens = np.flatnonzero(self.declaration == SEVENS)
            if sevens.size:
                closest = np.zeros(sevens.size, np.int64)
                for m in self._sevens_masks[::-1]:
                    here = hand[sevens] & m
                    closest = np.where(here != 0, here, closest)
                tiles[sevens] = closest
        bid = np.maximum(self.bid, 0)
        bids = self._bids_over[bid]
        pass_ok = (
            np.ones(self.num_envs, bool) if not cfg.forced_bid else (seat != self.shaker) | (self.bid >= 0)
        )
        bids |= pass_ok.astype(np.int64) << PASS
        if cfg.plunge:
            four = bitwise_count(hand & self._doubles) >= PLUNGE_DOUBLES
            bids |= np.where(four, self._plunges_over[bid], 0)
        declare = self._declare_masks[((self.bid >= BID_MARKS) & (self.bid < BID_PLUNGE)).astype(np.int64)]
        return np.where(phase == PLAY_PHASE, tiles << PLAY, np.where(phase == BID, bids, declare))

    def _observe(self) -> np.ndarray:
        """The compact observation of the seat to act (``encoders.texas42_compact``), whole batch."""
        cfg, lay = self.config, slot_slices(self.config)
        b, me = self.num_envs, self.seat
        rel = self._rotation[me]  # (B, 4): the seat at each relative position
        hands = self.hands[self._ar[:, None], rel]
        mine = hands[:, 0]
        known = mine | self.played
        if cfg.open_hands:
            known |= np.bitwise_or.reduce(self.hands, axis=1)
        unknown = self._full & ~known
        obs = np.zeros((b, self.obs_dim), np.float32)
        bulk = np.stack([mine, unknown, self.played], axis=1)
        obs[:, : 3 * NUM_TILES] = _unpack(bulk, NUM_TILES).reshape(b, -1)
        voids = np.bitwise_or.reduce(self.voids[self._ar[:, None], rel[:, 1:]] << self._void_shifts, axis=1)
        obs[:, lay["voids"]] = _unpack(voids, lay["voids"].stop - lay["voids"].start)
        if cfg.open_hands:
            obs[:, lay["open_hands"]] = _unpack(hands[:, 1:], NUM_TILES).reshape(b, -1)

        row = self._ar * self.obs_dim
        relative = (np.arange(SEATS)[None, :] - me[:, None]) % SEATS  # [g, seat] -> relative seat
        trick = self.trick >= 0
        leader = np.where(self.trick_len > 0, self.leader, me)
        in_play = self.phase == PLAY_PHASE

        def seat_hot(name: str, seats: np.ndarray) -> np.ndarray:
            return row + lay[name].start + (seats - me) % SEATS

        ones = [
            (row[:, None] + lay["trick"].start + relative * NUM_TILES + self.trick)[trick],
            seat_hot("trick_leader", leader)[in_play],
            row + lay["phase"].start + self.phase,
            seat_hot("to_act", me),
            seat_hot("shaker", self.shaker),
            (row[:, None] + lay["bids"].start + relative * (NUM_BID_ACTIONS + 1) + self.bids + 1).reshape(-1),
        ]
        for name, seats in (
            ("bidder", self.bidder),
            ("declarer", self.declarer),
            ("sitting_out", self.sitting_out),
        ):
            ones.append(seat_hot(name, seats)[seats >= 0])
        declared = self.declaration >= 0
        ones.append((row + lay["declaration"].start + self.declaration - TRUMP)[declared])
        obs.reshape(-1)[np.concatenate(ones)] = 1

        unseen = bitwise_count(unknown[:, None] & self._suits[self.scheme]).astype(np.int64)
        obs[:, lay["unseen"]] = scaled(unseen, HAND_SIZE)
        obs[:, lay["hand_sizes"]] = scaled(bitwise_count(hands).astype(np.int64), HAND_SIZE)
        team = np.stack([me & 1, 1 - (me & 1)], axis=1)
        at = self._ar[:, None], team
        obs[:, lay["tricks"]] = scaled(self.tricks_won[at], HAND_SIZE)
        obs[:, lay["points"]] = scaled(self.points[at], POINTS_PER_HAND)
        target = cfg.target_marks
        obs[:, lay["marks"]] = scaled(np.minimum(self.marks[at], target), target)
        return obs
