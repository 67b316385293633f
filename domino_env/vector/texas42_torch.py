"""Batched Texas 42 in torch: the accelerator twin of ``vector/texas42.py``, same results step by step.

``VectorTexas42Game`` returns numpy arrays, so a policy on a GPU copies every observation over;
``TorchTexas42Game`` keeps every game on one device and returns ``Batch`` records of tensors there.
The state and the rules are the numpy engine's (its tables, built once, become tensors on the
device): hands, voids and legal sets are int64 bit sets. Where the numpy engine steps each phase on
the subset of games in it, a step here computes bids, declarations, plays, trick ends and scoring
for every game and keeps each game's result with ``torch.where``: a fixed sequence of whole-batch
operations that never asks the device which games are where, so nothing waits on a host read.

Deals are the one place a subset matters. On the CPU (where a host read costs nothing) only the
games starting a hand draw a deal; on an accelerator every game keeps its next deal drawn ahead and
a quarter of the batch is redrawn per step, which is enough: a game starts hands at least four
steps apart (four bids), so its deal is fresh again before it is needed. A ``dealer`` reads the
games starting a hand back to the host, as it must. Results equal ``texas42_v0.raw_env`` with the
compact encoder (``tests/vector/test_texas42_vector_vs_reference.py``).
"""

from __future__ import annotations

import numpy as np
import torch

from domino_env.encoders.texas42_compact import slot_slices
from domino_env.rules.texas42 import (
    BID,
    BID_MARKS,
    BID_PLUNGE,
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
    POINTS_PER_HAND,
    SEATS,
    SEVENS,
    TRUMP,
    contract_outcome,
)
from domino_env.vector.batch import Batch
from domino_env.vector.texas42 import _SEVENS_ROW, NO_DECLARATION, VectorTexas42Game
from domino_env.vector.torch_batch import (
    TorchDealer,
    deal_rows,
    integer_tensor,
    popcount,
    refuse_illegal,
    resolve_device,
    seeded_generator,
)

_DRAW_AHEAD_PERIOD = SEATS  # steps between two new hands of one game, at least (the four bids)

# The state: one int64 tensor, a row per field of the numpy engine and a column per game (per seat:
# hand and voids as bit sets, bid, tile in the trick; per team: marks, points and tricks this hand;
# then one row each), so a step reads contiguous rows and writes its new state in one piece, and a
# new hand is one ``torch.where``: it keeps the first rows (its deal, the marks, the shaker) and
# sets every later one to ``_FRESH`` (0 where not named). ``& 3`` below is ``% 4`` for four seats.
_LAYOUT = (
    ("hands", SEATS), ("marks", 2), ("shaker", 1),
    ("voids", SEATS), ("bids", SEATS), ("trick", SEATS), ("points", 2), ("tricks_won", 2),
    ("played", 1), ("phase", 1), ("seat", 1), ("bid", 1), ("bidder", 1), ("declarer", 1),
    ("declaration", 1), ("sitting_out", 1), ("scheme", 1), ("trick_len", 1), ("led", 1),
    ("best_power", 1), ("leader", 1), ("best_seat", 1),
)  # fmt: skip
_ENDS = np.cumsum([width for _, width in _LAYOUT])
_COLUMNS = {
    name: start if width == 1 else slice(start, start + width)
    for (name, width), start in zip(_LAYOUT, (_ENDS - [w for _, w in _LAYOUT]).tolist(), strict=True)
}
_NUM_COLUMNS, _FRESH_AT = int(_ENDS[-1]), _COLUMNS["voids"].start
_FRESH = dict.fromkeys(
    ("bids", "trick", "bid", "bidder", "declarer", "declaration", "sitting_out", "led"), -1
)
_FRESH.update(phase=BID, scheme=NO_DECLARATION, best_power=-2)


class TorchTexas42Game:
    """``num_envs`` Texas 42 episodes with automatic reset on ``device``, as ``VectorTexas42Game``.

    Options, defaults and checks are ``VectorTexas42Game``'s (``reward``, ``preset``, ``forced_bid``,
    ``nello``, ``plunge``, ``sevens``, ``episode``, ...). ``check_actions=False`` skips the legality
    check of ``step`` (a host read per step) for callers whose actions come from the mask. Deals come
    from a generator seeded with ``seed`` on the device; ``dealer`` replaces it (it gets the host
    array of the games starting a hand, and is called once per step with all of them).

    The numpy engine's per-game attributes (``hands`` ``(B, 4)`` int64 bit sets, ``marks``,
    ``shaker``, ``seat``, ``phase``, ...) are views of the state tensor, taken when read;
    ``hand_tiles`` unpacks ``hands``.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        dealer: TorchDealer | None = None,
        reward: str = "zero_sum",
        preset: str = "standard",
        device: str | torch.device | None = None,
        check_actions: bool = True,
        **options,
    ):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        try:  # the numpy engine checks the options and builds the tables, once
            tables = VectorTexas42Game(1, reward=reward, preset=preset, **options)
        except ValueError as error:
            raise ValueError(str(error).replace("VectorTexas42Game", "TorchTexas42Game")) from None
        if tables.config.num_players != SEATS:
            raise ValueError(
                f"TorchTexas42Game plays four-player 42 only, not {tables.config.variant.name} "
                f"(preset={preset!r}, num_players={tables.config.num_players}): use the numpy "
                "VectorTexas42Game (backend 'vector') for three-player 42 and Texas 88"
            )
        self.device = dev = resolve_device(device)
        self.config = cfg = tables.config
        self.reward, self.check_actions = reward, check_actions
        self.num_envs, self.num_players, self.num_actions = num_envs, SEATS, NUM_ACTIONS
        self.slots, self.obs_dim = tables.slots, tables.obs_dim
        self._generator = seeded_generator(seed, dev)
        self._dealer = dealer
        self._draw_ahead = dealer is None and dev.type != "cpu"
        self._steps = 0

        def tensor(values: object) -> torch.Tensor:
            return torch.as_tensor(np.asarray(values, np.int64), device=dev)

        self._lead = tensor(tables._lead).reshape(-1)  # [scheme * 28 + tile]
        self._follow = tensor(tables._follow).reshape(-1)  # [scheme * 9 + suit]
        self._power = tensor(tables._power)  # [(scheme * 9 + suit) * 28 + tile]
        self._suits = tensor(tables._suits.T)  # [suit, scheme]
        # Per highest bid (-1 reads as pass): the bids over it, the Plunges over it, the declarations.
        declare = tables._declare_masks[
            ((_bid_ids() >= BID_MARKS) & (_bid_ids() < BID_PLUNGE)).astype(np.int64)
        ]
        self._bid_table = tensor(np.stack([tables._bids_over, tables._plunges_over, declare], axis=1))
        self._bid_value, self._bid_marks = tensor(tables._bid_value), tensor(tables._bid_marks)
        self._count = tensor(np.roll(tables._count, 1))  # [tile + 1]: index 0 (no tile) counts 0
        self._sevens_masks = tensor(tables._sevens_masks)
        self._tile_bits = tensor(tables._tile_bits)
        self._full, self._doubles = int(tables._full), int(tables._doubles)
        self._seat_ids, self._team_ids = tensor(np.arange(SEATS)), tensor(np.arange(2))
        self._void_shifts = tensor(tables._void_shifts)
        self._pass_bit = 1 << PASS

        # Observation: every 0/1 slot is a bit field at a fixed offset (``_pieces`` place them in
        # int64 words, a byte table unpacks those), then the scaled counts.
        lay = slot_slices(cfg)
        self._scaled_at = lay["unseen"].start
        to_act = lay["to_act"].start  # relative seat 0: always the seat to act
        self._one = torch.ones((), dtype=torch.int64, device=dev)
        self._tile_bits_or_none = tensor(np.concatenate([[0], tables._tile_bits]))  # [tile + 1]
        specs = [(lay[name].start, lay[name].stop - lay[name].start) for name in _FIELDS]
        specs += [(lay["trick"].start + r * NUM_TILES, NUM_TILES) for r in range(SEATS)]
        specs += [(lay["bids"].start + r * (NUM_BID_ACTIONS + 1), NUM_BID_ACTIONS + 1) for r in range(SEATS)]
        specs += [(lay[name].start, SEATS) for name in _SEAT_FIELDS]
        if cfg.open_hands:
            specs += [(lay["open_hands"].start + r * NUM_TILES, NUM_TILES) for r in range(SEATS - 1)]
        # Pieces grouped by word, each group padded with empty pieces (mask 0) to one length, so the
        # words are one sum: ``(words * per_word, B) -> (words, B)``.
        num_words = -(-self._scaled_at // 64)
        groups = [[p[:4] for p in _pieces(specs) if p[4] == w] for w in range(num_words)]
        self._per_word = max(map(len, groups))
        padded = [p for g in groups for p in g + [(0, 0, 0, 0)] * (self._per_word - len(g))]
        src, *shifts = map(tensor, zip(*padded, strict=True))
        self._pieces = (src, *(shift[:, None] for shift in shifts))
        template = np.zeros((num_words, 1), np.int64)
        template[to_act // 64, 0] = 1 << to_act % 64
        self._words_template = tensor(template)
        bytes_ = np.arange(256, dtype=np.uint8)[:, None]
        bits_of_bytes = np.unpackbits(bytes_, axis=1, bitorder="little")
        self._byte_bits = torch.as_tensor(bits_of_bytes, device=dev)
        # Counts' columns for an odd seat: suits and hand sizes stay, team pairs swap (my team first).
        self._flip_teams = tensor([*range(NUM_SUITS + SEATS), *(NUM_SUITS + SEATS + (np.arange(6) ^ 1))])
        self._byte_bools = torch.as_tensor(bits_of_bytes.astype(bool), device=dev)
        target = cfg.target_marks
        scales = [HAND_SIZE] * (NUM_SUITS + SEATS + 2) + [POINTS_PER_HAND] * 2 + [target] * 2
        self._scales = torch.tensor(scales, dtype=torch.float32, device=dev)[:, None]
        self._caps = tensor([[1 << 62]] * (len(scales) - 2) + [[target]] * 2)  # marks saturate at the target

        fresh = np.zeros(_NUM_COLUMNS, np.int64)  # a new hand's state, after the deal
        for name, value in _FRESH.items():
            fresh[_COLUMNS[name]] = value
        fresh = fresh[_FRESH_AT:, None]
        # Per-seat rewards from per-team values (2, B) in one exact product: ``rewards.zero_sum`` (two
        # teams: mine less theirs) or, for "marks", my team's value.
        sides = np.arange(2)[:, None] == tables._sides
        weights = sides if reward == "marks" else np.where(sides, 1.0, -1.0)
        self._reward_weights = torch.as_tensor(weights.astype(np.float32), device=dev)
        self._fresh = tensor(fresh)
        self._state = torch.zeros((_NUM_COLUMNS, num_envs), dtype=torch.int64, device=dev)  # a row per field
        self._legal = torch.zeros(num_envs, dtype=torch.int64, device=dev)
        self._next_hands = torch.zeros((SEATS, num_envs), dtype=torch.int64, device=dev)  # drawn ahead
        self._next_shakers = torch.zeros(num_envs, dtype=torch.int64, device=dev)

    @property
    def hand_tiles(self) -> torch.Tensor:
        """``(B, 4, 28)`` bool: the tiles in every seat's hand (``hands`` unpacked)."""
        return (self.hands[:, :, None] & self._tile_bits) != 0

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: object = None, shakers: object = None) -> Batch:
        """New episodes everywhere; ``deals`` ``(B, 28)`` (each row a permutation of the tile ids:
        seat ``i`` gets columns ``7i..7i+6``) and ``shakers`` ``(B,)`` fix the first hands (later ones
        come from the generator or the dealer). Bad deals or shakers raise ``ValueError``."""
        b, dev = self.num_envs, self.device
        if shakers is not None:
            shakers = integer_tensor(shakers, "shakers", (b,), dev)
            if bool(((shakers < 0) | (shakers >= SEATS)).any()):
                raise ValueError(f"shakers must be seats 0..{SEATS - 1}, got {shakers.tolist()}")
        games = torch.arange(b, device=dev)
        hands = self._hands_of(deal_rows(games, deals, self._dealer, self._generator, NUM_TILES))
        if shakers is None:
            shakers = torch.randint(SEATS, (b,), generator=self._generator, device=dev)
        self._state = self._fresh_rows(hands, torch.zeros((2, b), dtype=torch.int64, device=dev), shakers)
        if self._draw_ahead:
            self._redraw(0, b)
        zeros = torch.zeros((b, SEATS), dtype=torch.float32, device=dev)
        return self._batch(zeros, torch.zeros(b, dtype=torch.bool, device=dev))

    def step(self, actions: object) -> Batch:
        """Apply one action per game for its seat to act; finished episodes are reset. ``actions``:
        integers ``(num_envs,)``, a tensor or array-like; a wrong dtype or shape, or (with
        ``check_actions``) an illegal action, raises ``ValueError`` and changes nothing."""
        a = integer_tensor(actions, "actions", (self.num_envs,), self.device)
        if self.check_actions:
            legal = ((self._legal >> a.clamp(0, NUM_ACTIONS)) & 1 == 1) & (a >= 0)  # bit 63 is never set
            if not bool(legal.all()):
                refuse_illegal(self._mask(), a)
        if self._draw_ahead:  # the quarter of the games redrawn this step (see the module docstring)
            quarter = -(-self.num_envs // _DRAW_AHEAD_PERIOD)
            start = self._steps % _DRAW_AHEAD_PERIOD * quarter
            if start < self.num_envs:  # (with fewer than four games, some quarters are empty)
                self._redraw(start, min(start + quarter, self.num_envs))
        self._steps += 1

        cfg, state = self.config, self._state
        rows = _rows(state)
        seat, phase, shaker, scheme = rows["seat"], rows["phase"], rows["shaker"], rows["scheme"]
        bidding, declaring, playing = phase == BID, phase == DECLARE, phase == PLAY_PHASE
        at_seat = self._seat_ids[:, None] == seat  # (4, B): the acting seat's row

        # Bids (rules.texas42: a raise takes the bid; after the shaker, declare or reshake).
        bids = torch.where(bidding & at_seat, a, rows["bids"])
        raised = bidding & (a != PASS)
        bid = torch.where(raised, a, rows["bid"])
        bidder = torch.where(raised, seat, rows["bidder"])
        last = bidding & (seat == shaker)
        won = last & (bidder >= 0)
        reshake = last & (bidder < 0)
        declarer = torch.where(won, (bidder + 2 * (bid >= BID_PLUNGE)) & 3, rows["declarer"])

        # Declarations.
        declaration = torch.where(declaring, a, rows["declaration"])
        scheme = torch.where(declaring, a - TRUMP, scheme)
        sitting_out = torch.where(declaring & (a == NELLO), (bidder + 2) & 3, rows["sitting_out"])

        # Plays (every game computes one; only the playing games keep it).
        tile = (a - PLAY).clamp(0, NUM_TILES - 1)
        bit = torch.where(playing, self._tile_bits.index_select(0, tile), 0)
        trick_len = rows["trick_len"]
        first = playing & (trick_len == 0)
        led = torch.where(first, self._lead.index_select(0, scheme * NUM_TILES + tile), rows["led"])
        leader = torch.where(first, seat, rows["leader"])
        suit = led.clamp(min=0)
        row = scheme * NUM_SUITS + suit
        follows = (self._follow.index_select(0, row) >> tile) & 1 == 1
        void = playing & ~first & ~follows & (scheme != _SEVENS_ROW)
        voids = rows["voids"] | (at_seat & void).long() << suit
        power = self._power.index_select(0, row * NUM_TILES + tile)
        better = playing & (power > rows["best_power"])  # ties keep the earlier tile (Sevens only)
        best_power = torch.where(better, power, rows["best_power"])
        best_seat = torch.where(better, seat, rows["best_seat"])
        trick = torch.where(playing & at_seat, tile, rows["trick"])
        hands = rows["hands"] ^ (at_seat * bit)
        played = rows["played"] | bit
        length = trick_len + playing
        full = playing & (length == SEATS - (sitting_out >= 0).long())
        nxt = (seat + 1) & 3
        nxt = torch.where(nxt == sitting_out, (nxt + 1) & 3, nxt)
        seat = torch.where(full, best_seat, torch.where(won | declaring, declarer, nxt))
        phase = phase + won + declaring  # BID -> DECLARE -> PLAY_PHASE

        # Trick ends: points and the trick to its winner's team, then the contract's outcome.
        team_won = full & (self._team_ids[:, None] == (best_seat & 1))  # (2, B)
        gain = 1 + self._count.index_select(0, (trick + 1).reshape(-1)).reshape(SEATS, -1).sum(dim=0)
        points = rows["points"] + team_won * gain
        tricks_won = rows["tricks_won"] + team_won
        bid_team = bidder.clamp(min=0) & 1
        odd = bid_team == 1  # the bidding team is team 1: its values are the second row
        ours, theirs = torch.where(odd, points.flip(0), points)
        our_tricks, their_tricks = torch.where(odd, tricks_won.flip(0), tricks_won)
        bid_id = bid.clamp(min=0)
        decided, made = contract_outcome(
            cfg.variant,
            bid_id,
            self._bid_value.index_select(0, bid_id),
            declaration == NELLO,
            (ours, theirs),
            (our_tricks, their_tricks),
            cfg.stop_when_decided,
        )
        decided = full & decided
        trick = torch.where(full, -1, trick)
        best_power = torch.where(full, -2, best_power)

        # Scoring: marks to the team that won the hand, the rewards, then the next hand or episode.
        marks_won = self._bid_marks.index_select(0, bid_id)
        winner = (self._team_ids[:, None] == torch.where(made, bid_team, 1 - bid_team)) & decided  # (2, B)
        marks = rows["marks"] + winner * marks_won
        over = decided
        if cfg.episode != "hand":
            over = decided & (marks.amax(dim=0) >= cfg.target_marks)
        rewards = self._rewards(winner, marks_won, marks, over)
        marks = torch.where(over, 0, marks)
        scalars = [played, phase, seat, bid, bidder, declarer, declaration, sitting_out, scheme]
        scalars += [torch.where(full, 0, length), led, best_power, leader, best_seat]
        pieces = [hands, marks, shaker[None], voids, bids, trick, points, tricks_won, torch.stack(scalars)]
        state = torch.cat(pieces)

        fresh = reshake | decided  # a new hand: a reshake, the next hand or a new episode
        shakers = (shaker + 1) & 3  # a reshake or the next hand: the next shaker
        if self._draw_ahead:  # every game computes a new hand, the fresh ones keep it
            shakers = torch.where(over, self._next_shakers, shakers)
            state = torch.where(fresh, self._fresh_rows(self._next_hands, marks, shakers), state)
        else:  # only the fresh games draw (a host read: free on the CPU, needed by a dealer)
            games = fresh.nonzero()[:, 0]
            if games.numel():
                deals = deal_rows(games, None, self._dealer, self._generator, NUM_TILES)
                drawn = torch.randint(SEATS, (games.numel(),), generator=self._generator, device=self.device)
                shakers = torch.where(over[games], drawn, shakers[games])
                new = self._fresh_rows(self._hands_of(deals), marks[:, games], shakers)
                state.index_copy_(1, games, new)
        self._state = state
        return self._batch(rewards, over)

    # ----- helpers ---------------------------------------------------------------------------
    def _rewards(
        self, winner: torch.Tensor, marks_won: torch.Tensor, marks: torch.Tensor, over: torch.Tensor
    ) -> torch.Tensor:
        """``texas42_v0``'s rewards (the numpy engine's ``_rewards``): team values through
        ``rewards.zero_sum``; zero in the games whose hand did not end."""
        if self.reward == "win_loss":  # only at the episode's end: 1 to the team with the most marks
            values = ((marks == marks.amax(dim=0)) & over).float()
        else:
            values = (winner * marks_won).float()  # zero where no hand ended
        return values.T @ self._reward_weights  # exact: small integers

    def _fresh_rows(self, hands: torch.Tensor, marks: torch.Tensor, shakers: torch.Tensor) -> torch.Tensor:
        """The state of new hands: dealt ``hands`` ``(4, k)``, ``marks`` ``(2, k)`` so far, shaken by
        ``shakers``."""
        state = torch.cat([hands, marks, shakers[None], self._fresh.expand(-1, hands.shape[1])])
        state[_COLUMNS["seat"]] = (shakers + 1) & 3  # the seat left of the shaker bids first
        return state

    def _hands_of(self, deals: torch.Tensor) -> torch.Tensor:
        """Deals ``(k, 28)`` -> hands ``(4, k)`` bit sets (seat ``i``: columns ``7i..7i+6``)."""
        return self._tile_bits.index_select(0, deals.T.reshape(-1)).reshape(SEATS, HAND_SIZE, -1).sum(dim=1)

    def _redraw(self, start: int, stop: int) -> None:
        """Draw the next deal and shaker of games ``start .. stop - 1`` ahead."""
        keys = torch.rand((stop - start, NUM_TILES), generator=self._generator, device=self.device)
        self._next_hands[:, start:stop] = self._hands_of(keys.argsort(dim=1))
        self._next_shakers[start:stop] = torch.randint(
            SEATS, (stop - start,), generator=self._generator, device=self.device
        )

    # ----- observation and mask --------------------------------------------------------------
    def _mask(self) -> torch.Tensor:
        """The legal-action bit sets unpacked, ``(B, 63)`` bool: one table lookup per byte."""
        table = self._byte_bools.index_select(0, self._legal.view(torch.uint8).long())
        return table.reshape(self.num_envs, 64)[:, :NUM_ACTIONS].contiguous()

    def _batch(self, rewards: torch.Tensor, done: torch.Tensor) -> Batch:
        self._legal = self._legal_bits()
        return Batch(self.seat.clone(), self._observe(), self._mask(), rewards, done)

    def _legal_bits(self) -> torch.Tensor:
        """Every game's legal actions as one int64 bit set (the numpy engine's ``_legal_bits``)."""
        cfg, phase, seat = self.config, self.phase, self.seat
        hand = self._state[_COLUMNS["hands"]].gather(0, seat[None])[0]
        tiles = hand & self._follow.index_select(0, self.scheme * NUM_SUITS + self.led.clamp(min=0))
        tiles = torch.where((tiles == 0) | (self.trick_len == 0), hand, tiles)
        if cfg.sevens:  # the tiles closest to 7 pips
            here = hand[:, None] & self._sevens_masks
            closest = here.gather(1, (here != 0).long().argmax(dim=1, keepdim=True))[:, 0]
            tiles = torch.where(self.declaration == SEVENS, closest, tiles)
        bid = self.bid.clamp(min=0)
        table = self._bid_table.index_select(0, bid)  # (B, 3): bids over, Plunges over, declarations
        bids = table[:, 0]
        if cfg.forced_bid:
            bids = bids | ((seat != self.shaker) | (self.bid >= 0)).long() << PASS
        else:
            bids = bids | self._pass_bit
        if cfg.plunge:
            four = popcount(hand & self._doubles) >= PLUNGE_DOUBLES
            bids = bids | torch.where(four, table[:, 1], 0)
        return torch.where(phase == PLAY_PHASE, tiles << PLAY, torch.where(phase == BID, bids, table[:, 2]))

    def _observe(self) -> torch.Tensor:
        """The compact observation of the seat to act (``encoders.texas42_compact``), whole batch.

        Every 0/1 slot is a bit field at a fixed offset: the fields go into int64 words in a few
        whole-batch steps (``_pieces``), one table lookup per byte unpacks the words, and the scaled
        counts follow: the observation is written once, without a zero fill or a scatter."""
        cfg, b, state = self.config, self.num_envs, self._state
        rows = _rows(state)
        me, played, phase, declaration = rows["seat"], rows["played"], rows["phase"], rows["declaration"]
        rel = (self._seat_ids[:, None] + me) & 3  # (4, B): the seat at each relative position
        hands = rows["hands"].gather(0, rel)
        known = hands[0] | played
        if cfg.open_hands:
            known = known | hands[1] | hands[2] | hands[3]
        unknown = self._full & ~known
        voids = (rows["voids"].gather(0, rel[1:]) << self._void_shifts[:, None]).sum(dim=0)  # disjoint bits
        trick = self._tile_bits_or_none.index_select(0, (rows["trick"].gather(0, rel) + 1).reshape(-1))
        bids = self._one << (rows["bids"].gather(0, rel) + 1)
        leader = torch.where(rows["trick_len"] > 0, rows["leader"], me)
        seats = torch.stack(
            [leader, *(rows[name] for name in ("shaker", "bidder", "declarer", "sitting_out"))]
        )
        shown = seats >= 0
        shown[0] = phase == PLAY_PHASE
        declared = (declaration >= 0).long() << (declaration - TRUMP).clamp(min=0)
        fields = [
            torch.stack([hands[0], unknown, played, voids, self._one << phase, declared]),
            trick.reshape(SEATS, b),
            bids,
            shown.long() << ((seats - me) & 3),
        ]
        if cfg.open_hands:
            fields.append(hands[1:])
        src, right, keep, left = self._pieces
        pieces = ((torch.cat(fields).index_select(0, src) >> right) & keep) << left  # disjoint bits
        words = (pieces.reshape(-1, self._per_word, b).sum(dim=1) + self._words_template).T.contiguous()
        bits = self._byte_bits.index_select(0, words.view(torch.uint8).reshape(-1).long()).reshape(b, -1)
        obs = torch.empty((b, self.obs_dim), dtype=torch.float32, device=self.device)
        at = self._scaled_at
        obs[:, :at] = bits[:, :at]

        # Scaled counts: unseen per suit, hand sizes, then tricks, points and marks (my team first).
        suits = self._suits.index_select(1, rows["scheme"])
        counts = _popcount28(torch.cat([unknown & suits, hands]))
        counts = torch.cat([counts, rows["tricks_won"], rows["points"], rows["marks"]])
        counts = torch.where(me & 1 == 1, counts.index_select(0, self._flip_teams), counts)
        obs[:, at:] = (counts.minimum(self._caps).float() / self._scales).T
        return obs


def _bid_ids() -> np.ndarray:
    return np.arange(NUM_BID_ACTIONS)


_FIELDS = ("hand", "unknown", "played", "voids", "phase", "declaration")  # one value each, in order
_SEAT_FIELDS = ("trick_leader", "shaker", "bidder", "declarer", "sitting_out")  # one-hot relative seats


def _pieces(specs: list[tuple[int, int]]) -> list[tuple[int, int, int, int, int]]:
    """Fields ``(offset, width)`` (bit positions in the observation) -> pieces ``(field, right shift,
    mask, left shift, word)``: word ``word`` gets ``(value >> right & mask) << left`` (a field
    crossing a 64-bit boundary makes two pieces)."""
    pieces = []
    for field, (offset, width) in enumerate(specs):
        word, shift = divmod(offset, 64)
        pieces.append((field, 0, (1 << min(width, 64 - shift)) - 1, shift, word))
        if shift + width > 64:
            pieces.append((field, 64 - shift, (1 << (shift + width - 64)) - 1, 0, word + 1))
    return pieces


_SPLIT = [width for _, width in _LAYOUT[: _LAYOUT.index(("played", 1))]]  # rows per seat or team
_SPLIT_AT = sum(_SPLIT)


def _rows(state: torch.Tensor) -> dict[str, torch.Tensor]:
    """Every field of ``state`` by name, as views: ``(k, B)`` per seat or team, ``(B,)`` else."""
    fields = (*state[:_SPLIT_AT].split(_SPLIT), *state[_SPLIT_AT:].unbind(0))
    rows = dict(zip(_COLUMNS, fields, strict=True))
    rows["shaker"] = rows["shaker"][0]
    return rows


def _popcount28(words: torch.Tensor) -> torch.Tensor:
    """Set bits per element of an int64 tensor of values below ``2**28`` (as int32): ``popcount``
    on 32-bit words, half the memory traffic."""
    x = words.int()
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    x = x + (x >> 8)
    return (x + (x >> 16)) & 0x3F


def _column(name: str) -> property:
    index = _COLUMNS[name]
    if isinstance(index, int):
        return property(lambda self: self._state[index], doc=f"``{name}`` ``(B,)``: a view of the state.")
    return property(lambda self: self._state[index].T, doc=f"``{name}`` ``(B, k)``: a view of the state.")


for _name in _COLUMNS:
    setattr(TorchTexas42Game, _name, _column(_name))
