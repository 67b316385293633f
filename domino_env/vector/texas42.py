"""Batched Texas 42: ``num_envs`` independent games stepped in lockstep with numpy.

Every form of the game (``rules.texas42.Variant``): four-player 42, three-player 42 (27 tiles, the
bidder alone against the other two) and Texas 88 (six seats, 56 tiles, a kitty and two discards).
Every hand, void set, kitty, discard set, played set and legal-tile set is one ``int64`` bit set (56
tiles at most); the legal actions are two words, the actions before the tiles and the tiles of the
phase's tile actions (``play``, or in 88 ``discard``), since 88's 149 ids do not fit one word (the
others' 63 or 64 do, and their mask is unpacked from the two words joined). A step
is a fixed sequence of whole-array operations: bids, discards, declarations and plays each take the
games in their phase, and only the games that finish a trick or a hand take a further, smaller pass.
The rules come from the variant's tables: the per-declaration schemes (``declared_scheme``: the suit
each tile leads, the tiles following each suit, the power of each tile per suit led) become arrays
indexed by the declaration, the bid tables arrays indexed by the highest bid's action id. Sevens is
one more scheme whose power is the pip distance to 7 (its legal set is the closest tiles). Results
equal ``texas42_v0.raw_env`` with the compact encoder step by step
(``tests/vector/test_texas42_vector_vs_reference.py``).
"""

from __future__ import annotations

import numpy as np

from domino_env.encoders.base import scaled
from domino_env.encoders.texas42 import mark_sides
from domino_env.encoders.texas42_compact import (
    _hand_scale,
    _suit_scale,
    compact_slots,
    slot_slices,
    suits_in_force,
)
from domino_env.games import TEXAS42
from domino_env.rules.rewards import zero_sum
from domino_env.rules.texas42 import (
    BID,
    DECLARE,
    DISCARD_PHASE,
    NUM_SUITS,
    PASS,
    PLAY,
    PLAY_PHASE,
    PLUNGE_DOUBLES,
    SEVENS,
    TRUMP,
    contract_outcome,
    declared_scheme,
)
from domino_env.vector.batch import Batch, bitwise_count, deal_rows, integer_array
from domino_env.vector.line import Dealer

# Every variant shares the layout of the ids from ``trump 0`` to ``sevens`` (11 declarations), so
# the scheme rows are the same: row k is declaration ``trump + k``, the last row the numbers.
NO_DECLARATION = PLAY - TRUMP  # scheme row used before the declaration (suits are the numbers)
_SEVENS_ROW = SEVENS - TRUMP
_PHASE_SLOTS = 3  # phase one-hot entries before the discard phase's (id DISCARD_PHASE, slot entry 3)


def _unpack(words: np.ndarray, num_bits: int) -> np.ndarray:
    """``(...,)`` int64 bit sets -> ``(..., num_bits)`` uint8 0/1 per bit."""
    raw = np.ascontiguousarray(words)[..., None].view(np.uint8)
    return np.unpackbits(raw, axis=-1, count=num_bits, bitorder="little")


class VectorTexas42Game:
    """``num_envs`` Texas 42 episodes with automatic reset, as ``texas42_v0.raw_env`` plays them.

    ``reward`` and ``options`` (those of ``rules.texas42.Texas42Config.make``: ``preset`` (``texas88``
    too), ``num_players`` (3 or 4), ``forced_bid``, ``nello``, ``plunge``, ``sevens``, ``episode``, ...)
    mean what they mean in ``texas42_v0.raw_env``. ``dealer`` replaces the seeded shuffle of every deal
    (reshakes and later hands included), e.g. to replay fixed deals; ``reset(deals, shakers)`` fixes
    the first ones.
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
        self.variant = v = cfg.variant
        self.reward = reward
        n = self.num_players = cfg.num_players
        self.num_envs, self.num_actions, self.num_tiles = num_envs, v.num_actions, v.num_tiles
        self.slots = compact_slots(cfg)
        self.obs_dim = self.slots[-1].start + self.slots[-1].length
        self._rng = np.random.default_rng(seed)
        self._dealer = dealer

        # Tables. Scheme row k is declaration v.trump + k; row NO_DECLARATION is the numbers.
        rows = [declared_scheme(v.trump + k, cfg) for k in range(NO_DECLARATION)]
        rows.append(declared_scheme(v.sevens, cfg))
        self._lead = np.array([s.lead for s in rows], np.int64)
        self._follow = np.array([s.follow for s in rows], np.int64)
        power = np.array([s.power for s in rows], np.int64)
        power[_SEVENS_ROW] = v.sevens_power  # Sevens: closest to 7 wins, whatever was led
        self._power = power.reshape(-1)
        self._suits = np.array(
            [suits_in_force(v.trump + k, cfg) for k in range(NO_DECLARATION)] + [suits_in_force(-1, cfg)],
            np.int64,
        )
        bid_ids = range(v.num_bid_actions)
        self._bids_over = np.array([v.bids_over[v.bid_value(a)] for a in bid_ids], np.int64)
        self._plunges_over = np.array([v.plunges_over[v.bid_value(a)] for a in bid_ids], np.int64)
        self._bid_value = np.array([v.bid_value(a) for a in bid_ids], np.int64)
        self._bid_marks = np.array([v.bid_marks(a) for a in bid_ids], np.int64)
        self._count = np.array(v.count + (0,), np.int64)  # index -1 (no tile) counts 0
        self._sevens_masks = np.array(v.sevens_masks, np.int64)
        self._tile_bits = np.int64(1) << np.arange(v.num_tiles, dtype=np.int64)
        self._full, self._doubles = np.int64(v.full_mask), np.int64(v.doubles_mask)
        self._count_mask = np.int64(v.count_mask)
        contracts = (1 << v.nello) * (cfg.nello is not None) | (1 << v.sevens) * cfg.sevens
        self._declare_masks = np.array([v.declare_mask, v.declare_mask | contracts], np.int64)
        self._sides = np.array([cfg.side_of(s) for s in range(n)])  # mark-holding sides, as texas42_v0's
        self._mark_sides = np.array(mark_sides(cfg))  # [me]: the sides of the marks slot, mine first
        self._rotation = (np.arange(n)[:, None] + np.arange(n)) % n  # [me, r] = (me + r) % n
        self._void_shifts = np.arange(n - 1, dtype=np.int64) * NUM_SUITS

        b = num_envs
        self._ar = np.arange(b)

        def zeros(*shape: int) -> np.ndarray:
            return np.zeros((b, *shape), np.int64)

        # Per game, the fields of rules.texas42.Texas42Game: per seat its hand and voids (bit sets),
        # its bid and its tile in the trick (-1: none); the kitty and the bid winner's discards (88,
        # bit sets); the hand's played tiles (bit set), phase, seat to act, shaker, winning
        # bid/bidder, declarer, declaration, Nello partner (-1: none), scheme row, the trick's length,
        # leader, suit led and best power/seat so far, per side (the bidder's side first with three
        # players, else the teams) points and tricks this hand, and marks per mark-holding side.
        # The legal actions: the bit set of the ids before the tiles, and the tiles of the phase's
        # tile actions, which start at ``_tile_action`` (``play``, or in 88 ``discard``).
        self.hands, self.voids, self.bids, self.trick = zeros(n), zeros(n), zeros(n), zeros(n)
        self.points, self.tricks_won, self.marks = zeros(2), zeros(2), zeros(v.num_sides)
        self.kitty, self.discarded = zeros(), zeros()
        self.played, self.phase, self.seat, self.shaker = zeros(), zeros(), zeros(), zeros()
        self.bid, self.bidder, self.declarer, self.declaration = zeros(), zeros(), zeros(), zeros()
        self.sitting_out, self.scheme, self.trick_len, self.leader = zeros(), zeros(), zeros(), zeros()
        self.led, self.best_power, self.best_seat = zeros(), zeros(), zeros()
        self._legal_ids, self._legal_tiles, self._tile_action = zeros(), zeros(), zeros()

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: np.ndarray | None = None, shakers: np.ndarray | None = None) -> Batch:
        """New episodes everywhere; ``deals`` ``(B, num_tiles)`` (each row a permutation of the tile
        ids: seat ``i`` gets the ``i``-th run of ``hand_size`` columns, Texas 88's kitty the last two)
        and ``shakers`` ``(B,)`` (seats) fix the first hands (later ones come from the dealer). Bad
        deals or shakers raise ``ValueError``."""
        if shakers is not None:
            shakers = integer_array(shakers, "shakers", (self.num_envs,))
            if ((shakers < 0) | (shakers >= self.num_players)).any():
                raise ValueError(f"shakers must be seats 0..{self.num_players - 1}, got {shakers.tolist()}")
        self._new_episodes(self._ar, deals, shakers)
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        return self._batch(rewards, np.zeros(self.num_envs, bool))

    def step(self, actions: np.ndarray) -> Batch:
        """Apply one action per game for its seat to act; finished episodes are reset. ``actions``
        is an integer array ``(num_envs,)``; any other, or an illegal action, raises ``ValueError``."""
        a = integer_array(actions, "actions", (self.num_envs,))
        v = self.variant
        before_tiles = (a >= 0) & (a < v.play)
        tile = a - self._tile_action
        is_tile = (tile >= 0) & (tile < v.num_tiles)
        ok = before_tiles & ((self._legal_ids >> np.where(before_tiles, a, 0)) & 1 == 1)
        ok |= is_tile & ((self._legal_tiles >> np.where(is_tile, tile, 0)) & 1 == 1)
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(a[g])} in game {g} (seat {int(self.seat[g])}); "
                f"legal: {self._legal_list(g)}"
            )
        rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        done = np.zeros(self.num_envs, bool)
        phase = self.phase
        bidding, declaring = np.flatnonzero(phase == BID), np.flatnonzero(phase == DECLARE)
        playing, discarding = np.flatnonzero(phase == PLAY_PHASE), np.flatnonzero(phase == DISCARD_PHASE)
        if playing.size:
            self._play(playing, tile[playing], rewards, done)
        if bidding.size:
            self._bid(bidding, a[bidding])
        if discarding.size:
            self._discard(discarding, tile[discarding])
        if declaring.size:
            self._declare(declaring, a[declaring])
        return self._batch(rewards, done)

    def _legal_list(self, g: int) -> list[int]:
        """Game ``g``'s legal action ids, for an error message."""
        ids, tiles = int(self._legal_ids[g]), int(self._legal_tiles[g])
        start = int(self._tile_action[g])
        return [i for i in range(self.variant.play) if ids >> i & 1] + [
            start + t for t in range(self.num_tiles) if tiles >> t & 1
        ]

    # ----- sides -----------------------------------------------------------------------------
    def _side(self, bidder: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The side of ``seats`` this hand (broadcast against the games' ``bidder``): its team
        (``seat % 2``), or with three players 0 for the (highest) bidder and 1 for the others."""
        if self.variant.lone_bidder:
            return (seats != bidder).astype(np.int64)
        return seats % 2

    # ----- phases ----------------------------------------------------------------------------
    def _bid(self, g: np.ndarray, a: np.ndarray) -> None:
        v, n = self.variant, self.num_players
        seat = self.seat[g]
        self.bids[g, seat] = a
        raised = a != PASS
        self.bid[g] = np.where(raised, a, self.bid[g])
        bidder = self.bidder[g] = np.where(raised, seat, self.bidder[g])
        last = seat == self.shaker[g]
        self.seat[g] = (seat + 1) % n
        won = g[last & (bidder >= 0)]
        if won.size:
            plunge = self.bid[won] >= v.bid_plunge
            declarer = self.declarer[won] = (self.bidder[won] + v.partner_offset * plunge) % n
            self.seat[won] = declarer
            self.phase[won] = DISCARD_PHASE if v.kitty_size else DECLARE
            self.hands[won, self.bidder[won]] |= self.kitty[won]  # Texas 88: the bid winner takes the kitty
        void = g[last & (bidder < 0)]  # everyone passed: a reshake inside the episode
        if void.size:
            self._start_hands(void, self._deals(void), (self.shaker[void] + 1) % n)

    def _discard(self, g: np.ndarray, tile: np.ndarray) -> None:
        bit = self._tile_bits[tile]
        self.hands[g, self.seat[g]] ^= bit
        discarded = self.discarded[g] = self.discarded[g] | bit
        self.phase[g[bitwise_count(discarded) == self.variant.kitty_size]] = DECLARE

    def _declare(self, g: np.ndarray, a: np.ndarray) -> None:
        v = self.variant
        self.declaration[g] = a
        self.scheme[g] = a - v.trump
        nello_partner = (self.bidder[g] + v.partner_offset) % self.num_players
        self.sitting_out[g] = np.where((a == v.nello) & (v.partner_offset > 0), nello_partner, -1)
        self.phase[g] = PLAY_PHASE
        self.seat[g] = self.declarer[g]

    def _play(self, g: np.ndarray, tile: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
        n, num_tiles = self.num_players, self.num_tiles
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
        power = self._power[(k * NUM_SUITS + led) * num_tiles + tile]
        better = power > self.best_power[g]  # ties keep the earlier tile (Sevens; identical 88 tiles)
        self.best_power[g] = np.where(better, power, self.best_power[g])
        best_seat = self.best_seat[g] = np.where(better, seat, self.best_seat[g])
        self.trick[g, seat] = tile
        length = self.trick_len[g] + 1
        out = self.sitting_out[g]
        full = length == n - (out >= 0)
        nxt = (seat + 1) % n
        nxt = np.where(nxt == out, (nxt + 1) % n, nxt)
        self.seat[g] = np.where(full, best_seat, nxt)
        self.trick_len[g] = np.where(full, 0, length)
        if full.any():
            self._end_tricks(g[full], rewards, done)

    def _end_tricks(self, g: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
        v, bidder = self.variant, self.bidder[g]
        side = self._side(bidder, self.best_seat[g])
        self.points[g, side] += v.trick_value + self._count[self.trick[g]].sum(axis=1)
        self.tricks_won[g, side] += 1
        self.trick[g] = -1
        self.best_power[g] = -2
        bid, bt = self.bid[g], self._side(bidder, bidder)
        decided, made = contract_outcome(
            v,
            bid,
            self._bid_value[bid],
            self.declaration[g] == v.nello,
            (self.points[g, bt], self.points[g, 1 - bt]),
            (self.tricks_won[g, bt], self.tricks_won[g, 1 - bt]),
            self.config.stop_when_decided,
        )
        if decided.any():
            self._score(g[decided], made[decided], rewards, done)

    def _score(self, g: np.ndarray, made: np.ndarray, rewards: np.ndarray, done: np.ndarray) -> None:
        """Marks to every seat of the side that won the hand (side ``k`` holds seat ``k``: a team, or
        with three players a player), ``texas42_v0``'s rewards, then the next hand or episode."""
        bidder = self.bidder[g]
        bt = self._side(bidder, bidder)
        won = np.where(made, bt, 1 - bt)
        sides = self._side(bidder[:, None], np.arange(self.num_players))
        hand_marks = self._bid_marks[self.bid[g]][:, None] * (sides == won[:, None])
        self.marks[g] += hand_marks[:, : self.variant.num_sides]
        marks = self.marks[g]
        over = (marks.max(axis=1) >= self.config.target_marks) | (self.config.episode == "hand")
        rewards[g] = self._rewards(hand_marks, marks, over)
        done[g] = over
        if over.any():
            self._new_episodes(g[over])
        later = g[~over]
        if later.size:
            self._start_hands(later, self._deals(later), (self.shaker[later] + 1) % self.num_players)

    def _rewards(self, hand_marks: np.ndarray, marks: np.ndarray, over: np.ndarray) -> np.ndarray:
        """``texas42_v0``'s rewards for hands that gave ``hand_marks`` (by seat), as its ``_apply``
        computes them: per-side values through ``rewards.zero_sum`` (``marks``: as they are)."""
        if self.reward == "marks":
            return hand_marks.astype(np.float32)
        if self.reward == "win_loss":  # only at the episode's end: 1 to the side(s) with the most marks
            side_values = (marks == marks.max(axis=1, keepdims=True)) & over[:, None]
        else:
            side_values = hand_marks[:, : self.variant.num_sides]
        return zero_sum(side_values, self._sides).astype(np.float32)

    # ----- deals -----------------------------------------------------------------------------
    def _new_episodes(
        self, g: np.ndarray, deals: np.ndarray | None = None, shakers: np.ndarray | None = None
    ) -> None:
        self.marks[g] = 0
        shakers = self._rng.integers(self.num_players, size=g.size) if shakers is None else shakers
        self._start_hands(g, self._deals(g, deals), shakers)

    def _deals(self, g: np.ndarray, given: np.ndarray | None = None) -> np.ndarray:
        return deal_rows(g, given, self._dealer, self._rng, self.num_tiles)

    def _start_hands(self, g: np.ndarray, deals: np.ndarray, shakers: np.ndarray) -> None:
        n, size = self.num_players, self.variant.hand_size
        bits = self._tile_bits[deals]
        self.hands[g] = bits[:, : n * size].reshape(g.size, n, size).sum(axis=2)
        self.kitty[g] = bits[:, n * size :].sum(axis=1)
        self.shaker[g] = shakers
        self.seat[g] = (shakers + 1) % n
        self.phase[g] = BID
        self.scheme[g] = NO_DECLARATION
        for name in ("played", "voids", "points", "tricks_won", "trick_len", "discarded"):
            getattr(self, name)[g] = 0
        for name in ("bids", "bid", "bidder", "declarer", "declaration", "sitting_out", "trick", "led"):
            getattr(self, name)[g] = -1
        self.best_power[g] = -2

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: np.ndarray, done: np.ndarray) -> Batch:
        v = self.variant
        self._legal_ids, self._legal_tiles = self._legal_bits()
        discarding = self.phase == DISCARD_PHASE
        self._tile_action = np.where(discarding, v.discard, v.play)
        if v.kitty_size:  # Texas 88's 149 ids: the two words side by side, discards after the plays
            mask = np.zeros((self.num_envs, self.num_actions), bool)
            mask[:, : v.play] = _unpack(self._legal_ids, v.play)
            tiles = _unpack(self._legal_tiles, self.num_tiles).view(bool)
            mask[:, v.discard :] = tiles & discarding[:, None]
            mask[:, v.play : v.discard] = tiles & ~discarding[:, None]
        else:  # 63 or 64 ids: one word (no tile is legal outside the play phase), one unpacking
            mask = _unpack(self._legal_ids | self._legal_tiles << v.play, self.num_actions).view(bool)
        return Batch(self.seat.copy(), self._observe(), mask, rewards, done)

    def _legal_bits(self) -> tuple[np.ndarray, np.ndarray]:
        """Every game's legal actions (``Texas42Game.legal_mask``, batched): the bit set of the ids
        before the tiles, and the bit set of the legal tiles (played, or in 88 discarded)."""
        cfg, v, phase, seat = self.config, self.variant, self.phase, self.seat
        hand = self.hands[self._ar, seat]
        tiles = hand & self._follow[self.scheme, self.led]
        tiles = np.where((tiles == 0) | (self.trick_len == 0), hand, tiles)
        if cfg.sevens:
            sevens = np.flatnonzero(self.declaration == v.sevens)
            if sevens.size:
                closest = np.zeros(sevens.size, np.int64)
                for m in self._sevens_masks[::-1]:
                    here = hand[sevens] & m
                    closest = np.where(here != 0, here, closest)
                tiles[sevens] = closest
        tiles = np.where(phase == PLAY_PHASE, tiles, 0)
        if v.kitty_size:  # non-count tiles; any tile once none is left
            plain = hand & ~self._count_mask
            tiles = np.where(phase == DISCARD_PHASE, np.where(plain == 0, hand, plain), tiles)
        bid = np.maximum(self.bid, 0)
        bids = self._bids_over[bid]
        pass_ok = (
            np.ones(self.num_envs, bool) if not cfg.forced_bid else (seat != self.shaker) | (self.bid >= 0)
        )
        bids |= pass_ok.astype(np.int64) << PASS
        if cfg.plunge:
            four = bitwise_count(hand & self._doubles) >= PLUNGE_DOUBLES
            bids |= np.where(four, self._plunges_over[bid], 0)
        contracts = (self.bid >= v.bid_marks_at) & (self.bid < v.bid_plunge)
        declare = self._declare_masks[contracts.astype(np.int64)]
        ids = np.where(phase == BID, bids, np.where(phase == DECLARE, declare, 0))
        return ids, tiles

    def _observe(self) -> np.ndarray:
        """The compact observation of the seat to act (``encoders.texas42_compact``), whole batch."""
        cfg, v, lay = self.config, self.variant, slot_slices(self.config)
        b, n, num_tiles, me = self.num_envs, self.num_players, self.num_tiles, self.seat
        rel = self._rotation[me]  # (B, n): the seat at each relative position
        hands = self.hands[self._ar[:, None], rel]
        mine = hands[:, 0]
        known = mine | self.played
        bulk = [mine]
        if v.kitty_size:  # Texas 88: the bid winner sees its own discards
            my_discards = np.where(me == self.bidder, self.discarded, 0)
            known |= my_discards
            bulk.append(my_discards)
        if cfg.open_hands:
            known |= np.bitwise_or.reduce(self.hands, axis=1)
        unknown = self._full & ~known
        bulk += [unknown, self.played]  # the first slots: hand, (discards), unknown, played
        obs = np.zeros((b, self.obs_dim), np.float32)
        obs[:, : len(bulk) * num_tiles] = _unpack(np.stack(bulk, axis=1), num_tiles).reshape(b, -1)
        voids = np.bitwise_or.reduce(self.voids[self._ar[:, None], rel[:, 1:]] << self._void_shifts, axis=1)
        obs[:, lay["voids"]] = _unpack(voids, lay["voids"].stop - lay["voids"].start)
        if cfg.open_hands:
            obs[:, lay["open_hands"]] = _unpack(hands[:, 1:], num_tiles).reshape(b, -1)

        row = self._ar * self.obs_dim
        relative = (np.arange(n)[None, :] - me[:, None]) % n  # [g, seat] -> relative seat
        trick = self.trick >= 0
        leader = np.where(self.trick_len > 0, self.leader, me)
        in_play = self.phase == PLAY_PHASE

        def seat_hot(name: str, seats: np.ndarray) -> np.ndarray:
            return row + lay[name].start + (seats - me) % n

        categories = v.num_bid_actions + 1
        ones = [
            (row[:, None] + lay["trick"].start + relative * num_tiles + self.trick)[trick],
            seat_hot("trick_leader", leader)[in_play],
            row + lay["phase"].start + np.minimum(self.phase, _PHASE_SLOTS),
            seat_hot("to_act", me),
            seat_hot("shaker", self.shaker),
            (row[:, None] + lay["bids"].start + relative * categories + self.bids + 1).reshape(-1),
        ]
        for name, seats in (
            ("bidder", self.bidder),
            ("declarer", self.declarer),
            ("sitting_out", self.sitting_out),
        ):
            ones.append(seat_hot(name, seats)[seats >= 0])
        declared = self.declaration >= 0
        ones.append((row + lay["declaration"].start + self.declaration - v.trump)[declared])
        obs.reshape(-1)[np.concatenate(ones)] = 1

        unseen = bitwise_count(unknown[:, None] & self._suits[self.scheme]).astype(np.int64)
        obs[:, lay["unseen"]] = scaled(unseen, _suit_scale(v))
        obs[:, lay["hand_sizes"]] = scaled(bitwise_count(hands).astype(np.int64), _hand_scale(v))
        my_side = self._side(self.bidder, me)
        at = self._ar[:, None], np.stack([my_side, 1 - my_side], axis=1)
        obs[:, lay["tricks"]] = scaled(self.tricks_won[at], v.num_tricks)
        obs[:, lay["points"]] = scaled(self.points[at], v.points_per_hand)
        target = cfg.target_marks
        marks = self.marks[self._ar[:, None], self._mark_sides[me]]
        obs[:, lay["marks"]] = scaled(np.minimum(marks, target), target)
        return obs
