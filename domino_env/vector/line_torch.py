"""Batched Block / Draw in torch: ``vector/line.py``'s twin, so rollouts can stay on an accelerator.

Same options, rules and results as ``VectorLineGame`` (``tests/vector/test_line_vector_vs_reference.py``
holds both equal to ``rules.line`` step by step), but every game's state is a tensor on one device and
each ``Batch`` holds tensors there: a policy on the GPU reads observations and masks, and returns
actions, without a copy to the host.

State is a row of uint8 flags per (game, seat) hand, twice over: one column per tile (the
observation's slots) and one per action (tile ``t`` at columns ``2t`` and ``2t + 1``, so the legal
mask is one ``&`` with a row of a fits-the-ends table), plus the line and ``(B,)`` / ``(B, P)`` tensors
for the ends, stock pointer, seat, leader, pass streak, tiles and pips held, voids and scores. A play
or a draw is one scattered write per table. Measured on the CPU, these whole-row gathers and
contiguous ops beat both int64 bit sets (unpacking them costs more than the rest of the step) and
one owner code per tile (broadcast comparisons are slow in torch's CPU kernels).

Rounds that end are scored, and new ones dealt, off the CPU for the whole batch under a mask with
``torch.where``, so ``step`` reads nothing back from the device except to check actions
(``check_actions``) and to hand game ids to a ``dealer``; on the CPU, where that read is free, only
the rows of the games concerned are scored and shuffled. Both ways give the same games bit for bit.
Every float of the observation is looked up in a table of the values ``encoders.base.scaled``
gives (a CUDA division by a scalar multiplies by its reciprocal), so it is the same on every device.
On the CPU, run it with ``torch.set_num_threads(1)`` when cores are few or shared: its many small
ops ran ten times slower with two contended threads.
"""

from __future__ import annotations

import numpy as np
import torch

from domino_env.encoders.base import scaled
from domino_env.encoders.line_compact import compact_slots, slot_slices
from domino_env.games import DOMINOES
from domino_env.rules.line import lead_rank
from domino_env.rules.tiles import tile_set
from domino_env.vector.batch import Batch
from domino_env.vector.line import BatchedMatches
from domino_env.vector.torch_batch import (
    TorchDealer,
    deal_rows,
    integer_tensor,
    permutations,
    refuse_illegal,
    resolve_device,
    seeded_generator,
    shuffled_deals,
)


class TorchLineGame(BatchedMatches):
    """``num_envs`` Block/Draw episodes with automatic reset on ``device``, as ``VectorLineGame`` plays them.

    ``episode``, ``reward`` and ``options`` mean what they mean there (and in ``dominoes_v0``).
    ``dealer`` replaces the seeded shuffle (``torch_batch.TorchDealer``). ``check_actions=False``
    trusts the caller to pass legal actions (e.g. sampled from the mask) and skips the one host
    read per step that the check costs; an illegal action then plays nonsense, never out of bounds.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        dealer: TorchDealer | None = None,
        device: str | torch.device | None = None,
        check_actions: bool = True,
        episode: str = "round",
        reward: str = "zero_sum",
        **options,
    ):
        super().__init__(DOMINOES, compact_slots, num_envs, dealer=dealer, episode=episode, reward=reward,
                         options=options)
        cfg = self.config
        self.device = dev = resolve_device(device)
        self.check_actions = check_actions
        ts = tile_set(cfg.max_pips)
        n, t, v = cfg.num_players, ts.num_tiles, cfg.max_pips + 1
        self._generator = seeded_generator(seed, dev)
        # Games that end a round are picked by a mask (``torch.where`` over the batch) off the CPU,
        # with no host read; on the CPU that read is free and picking their rows is cheaper.
        self._select_by_mask = dev.type != "cpu"
        self._n_tiles, self._n_numbers, self._hand = t, v, cfg.hand_size
        self._draw_when_stuck = cfg.draw_policy == "when_stuck"
        self._target = cfg.target_score
        # A hand row holds each tile twice (its two actions), padded to whole int64 words that also
        # hold the draw and pass columns: the legal mask is one ``&`` with a row of ``_fits``.
        self._width = width = -(-self.num_actions // 8) * 8

        def tensor(values: object, dtype: torch.dtype = torch.int64) -> torch.Tensor:
            return torch.as_tensor(np.asarray(values), dtype=dtype, device=dev)

        # Per tile, row ``t`` (one past the last) is "no tile": halves and pips 0.
        self._low = tensor(ts.low + (0,))
        self._high = tensor(ts.high + (0,))
        self._pips = tensor(ts.pips + (0,))
        self._lead_rank = tensor([lead_rank(ts, i) for i in range(t)])
        suit = np.array([[m >> i & 1 for i in range(t)] for m in ts.suit_mask], np.uint8)  # (V, T)
        # The ends index V and V + 1 while the line is empty: every tile fits on the left, none on the
        # right. _fits[l * (V + 2) + r, 2 * t + s]: tile t fits on side s of a line with ends l, r.
        fits_end = np.concatenate([suit, np.ones((1, t), np.uint8), np.zeros((1, t), np.uint8)])
        fits = np.zeros(((v + 2) ** 2, width), np.uint8)
        fits[:, 0 : 2 * t : 2] = np.repeat(fits_end, v + 2, axis=0)
        fits[:, 1 : 2 * t : 2] = np.tile(fits_end, (v + 2, 1))
        self._fits = tensor(fits, torch.uint8)
        onehot = np.eye(v + 2, v, dtype=np.float32)  # rows V and V + 1 are zeros
        self._ends_onehot = tensor(
            np.concatenate([np.repeat(onehot, v + 2, axis=0), np.tile(onehot, (v + 2, 1))], axis=1),
            torch.float32,
        )
        self._suit = tensor(suit.T, torch.float32)  # (T, V): unknown tiles per number are one matmul
        self._void_bits = tensor(
            (np.arange(1 << v)[:, None] >> np.arange(v) & 1).astype(np.float32), torch.float32
        )
        # Exact float32 quotients of ``scaled``, looked up rather than divided (a CUDA division by a
        # scalar multiplies by its reciprocal, which can differ in the last bit).
        self._per_number = tensor(scaled(np.arange(v + 1), v), torch.float32)
        self._per_tile = tensor(scaled(np.arange(t + 1), t), torch.float32)
        if self._target is not None:
            self._per_target = tensor(scaled(np.arange(self._target + 1), self._target), torch.float32)
        # _streak_leader[streak * P + leader]: the pass_streak and leader one-hots, side by side.
        eye = np.eye(n, dtype=np.float32)
        self._streak_leader = tensor(
            np.concatenate([np.repeat(eye, n, axis=0), np.tile(eye, (n, 1))], axis=1), torch.float32
        )
        self._side = tensor(np.arange(n) % 2 if cfg.teams else np.arange(n))
        self._side_ids = torch.arange(cfg.num_sides, device=dev)
        self._others = torch.tensor(float(cfg.num_sides - 1), dtype=torch.float64, device=dev)
        self._rotation = tensor((np.arange(n)[:, None] + np.arange(n)) % n)  # [me, j] = (me + j) % n
        self._next_seat = tensor(np.roll(np.arange(n), -1))

        b = num_envs
        self._ar = torch.arange(b, device=dev)
        self._row_tiles = self._ar * t
        self._row_seats = self._ar * n
        # Hands: a uint8 row per (game, seat), tile t at columns 2t and 2t + 1. Plays and draws write
        # one (row, tile) pair; a game that does neither writes the spare pair at the end.
        self._hand_store = torch.zeros(b * n * width + 2, dtype=torch.uint8, device=dev)
        self._hand_rows = self._hand_store[:-2].view(b * n, width)
        self._spare_pair = b * n * width // 2
        # The same hands one column per tile (the observation's slots), and the line; one spare each.
        self._tile_store = torch.zeros(b * n * t + 1, dtype=torch.uint8, device=dev)
        self._tile_rows = self._tile_store[:-1].view(b * n, t)
        self._line_store = torch.zeros(b * t + 1, dtype=torch.uint8, device=dev)
        self._line = self._line_store[:-1].view(b, t)
        self.deal = torch.zeros((b, t), dtype=torch.int64, device=dev)

        def zeros(*shape: int) -> torch.Tensor:
            return torch.zeros(shape, dtype=torch.int64, device=dev)

        # The open ends; V and V + 1 while the line is empty (see ``_fits``).
        self.left = torch.full((b,), v, dtype=torch.int64, device=dev)
        self.right = torch.full((b,), v + 1, dtype=torch.int64, device=dev)
        self.empty = torch.ones(b, dtype=torch.bool, device=dev)
        self.ptr, self.seat, self.leader, self.streak = zeros(b), zeros(b), zeros(b), zeros(b)
        self.counts, self.pips, self.voids = zeros(b, n), zeros(b, n), zeros(b, n)  # per seat
        self.scores = zeros(b, n)  # each seat's side's score
        self._mask = torch.zeros((b, self.num_actions), dtype=torch.bool, device=dev)

    @property
    def hands(self) -> torch.Tensor:
        """``(B, P, T)`` bool: the tiles each seat holds, over the canonical tile index (a copy)."""
        return self._tile_rows.view(self.num_envs, self.num_players, -1) != 0

    hand_tiles = hands  # the name the torch engines share (``torch_batch.hidden_hands``)

    @property
    def line(self) -> torch.Tensor:
        """``(B, T)`` bool: the tiles on the line (a copy)."""
        return self._line != 0

    # ----- public API ------------------------------------------------------------------------
    def reset(self, deals: object = None) -> Batch:
        """Start a new episode in every game; ``deals`` (``(B, T)`` integers, each row a permutation
        of the tile ids) fixes the first round's deals. Bad deals raise ``ValueError``."""
        b, dev = self.num_envs, self.device
        if deals is not None:
            deals = permutations(deals, b, self._n_tiles, dev)
        everyone = torch.ones(b, dtype=torch.bool, device=dev)
        if self._target is not None:
            self.scores.zero_()
        self._draw_leaders()
        self._next_rounds(everyone if self._select_by_mask else self._ar, everyone, deals)
        no_rewards = torch.zeros((b, self.num_players), dtype=torch.float32, device=dev)
        return self._batch(no_rewards, torch.zeros(b, dtype=torch.bool, device=dev))

    def step(self, actions: object) -> Batch:
        """Apply one action per game for its seat to act; finished games are reset. ``actions`` is an
        integer tensor or array ``(num_envs,)``; any other, or an illegal action (``check_actions``),
        raises ``ValueError`` and leaves every game as it was."""
        a = integer_tensor(actions, "actions", (self.num_envs,), self.device)
        if self.check_actions:
            refuse_illegal(self._mask, a)
        else:
            a = a.clamp(0, self.num_actions - 1)
        t, n = self._n_tiles, self.num_players
        play, passed = a < 2 * t, a == 2 * t + 1
        tile = torch.where(play, a >> 1, t)
        side = a & 1
        seat, empty = self.seat, self.empty
        fi = self._row_seats + seat

        # A play moves its tile from the hand to the line, a draw the next stock tile to the hand.
        moved, sign = tile, -play.long()
        if self._has_stock:
            draw = a == 2 * t
            nxt = self.deal.view(-1).index_select(0, self._row_tiles + self.ptr.clamp(max=t - 1))
            moved = torch.where(draw, nxt, tile)
            sign = sign + draw
            self.ptr = self.ptr + draw
        held_now = (sign > 0).to(torch.uint8)
        pair = torch.where(moved < t, fi * (self._width // 2) + moved, self._spare_pair)
        self._hand_store.view(-1, 2).index_put_((pair,), held_now[:, None])
        cell = torch.where(moved < t, fi * t + moved, self._tile_store.numel() - 1)
        self._tile_store.index_put_((cell,), held_now)
        on_line = torch.where(play, self._row_tiles + tile, self._line_store.numel() - 1)
        self._line_store.index_put_((on_line,), torch.ones((), dtype=torch.uint8, device=self.device))
        self.counts.view(-1).index_add_(0, fi, sign)
        self.pips.view(-1).index_add_(0, fi, sign * self._pips.index_select(0, moved))
        held = self.counts.view(-1).index_select(0, fi)

        low, high = self._low.index_select(0, tile), self._high.index_select(0, tile)
        both = low + high
        # The opening (side 0 on an empty line) sets both ends; later plays replace the matched one.
        self.left = torch.where(play & (side == 0), torch.where(empty, low, both - self.left), self.left)
        right = torch.where(empty, high, both - self.right)
        self.right = torch.where(play & ((side == 1) | empty), right, self.right)
        self.empty = empty & ~play

        # Passes and draws: voids (see encoders.line_compact) and the run of passes. Neither happens
        # on an empty line, so the ends of those games are real numbers here.
        ends = (1 << self.left) | (1 << self.right)
        void = self.voids.view(-1).index_select(0, fi) | torch.where(passed, ends, 0)
        if self._has_stock:
            void = torch.where(draw, ends if self._draw_when_stuck else 0, void)
        self.voids.view(-1).index_put_((fi,), void)
        self.streak = torch.where(play, 0, self.streak + passed)
        self.seat = self._next_seat.index_select(0, seat)
        if self._has_stock:
            self.seat = torch.where(draw, seat, self.seat)

        ended = (play & (held == 0)) | (self.streak == n)
        self._draw_leaders()
        if self._select_by_mask:
            rewards, done = self._end_rounds(ended, seat, play)
        elif bool(ended.any()):
            games = ended.nonzero()[:, 0]
            rows, over = self._end_rounds(games, seat.index_select(0, games), play.index_select(0, games))
            rewards = torch.zeros((self.num_envs, n), dtype=torch.float32, device=self.device)
            rewards[games] = rows
            done = torch.zeros_like(ended)
            done[games] = over
        else:
            rewards = torch.zeros((self.num_envs, n), dtype=torch.float32, device=self.device)
            done = ended
        return self._batch(rewards, done)

    # ----- rounds and matches ----------------------------------------------------------------
    def _draw_leaders(self) -> None:
        """Under ``first_leader="random"``, a leader for every game on every reset and step, used where
        an episode starts: the same draws however the games starting one are picked (see below)."""
        if self.config.first_leader == "random":
            shape, generator = (self.num_envs,), self._generator
            self._random_leaders = torch.randint(
                self.num_players, shape, generator=generator, device=self.device
            )

    # ``games`` picks the games a round ends or starts in: a ``(B,)`` bool mask (every per-game value
    # is computed for the whole batch and kept where the mask is set), or ``(k,)`` game ids (values
    # for those rows only). The two give the same games, bit for bit.
    def _rows(self, values: torch.Tensor, games: torch.Tensor) -> torch.Tensor:
        return values if games.dtype == torch.bool else values.index_select(0, games)

    def _put(self, state: torch.Tensor, games: torch.Tensor, fresh: torch.Tensor | int) -> None:
        """Overwrite the rows of ``games`` in ``state`` (in place) with ``fresh``, one row per game picked."""
        if games.dtype == torch.bool:
            state.copy_(torch.where(games.view(-1, *(1,) * (state.dim() - 1)), fresh, state))
        else:
            state[games] = fresh

    def _end_rounds(
        self, games: torch.Tensor, last: torch.Tensor, domino: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Score the rounds of ``games`` (docs/rules.md 2.3), then deal on or start a new episode.
        ``last``/``domino``: the seat that moved last and whether it went out, one per game picked.
        Returns the rewards and the episodes over, one row per game picked."""
        side, pips = self._side, self._rows(self.pips, games)
        low, low_seat = pips.min(dim=1)
        lowest = pips == low[:, None]
        low_side = side.index_select(0, low_seat)
        one_side = ~(lowest & (side[None, :] != low_side[:, None])).any(dim=1)
        winner = torch.where(domino, side.index_select(0, last), torch.where(one_side, low_side, -1))
        ended = games if games.dtype == torch.bool else torch.ones_like(domino)
        winner = torch.where(ended, winner, -1)
        points = (pips * (side[None, :] != winner[:, None])).sum(dim=1)
        if self.config.scoring == "others_minus_own":
            points = points - torch.where(domino, 0, low)
        points = torch.where(winner >= 0, points, 0)
        if self._target is None:  # one-round episodes: the match scores would be zeroed again at once
            over = ended
        else:
            scores = self._rows(self.scores, games) + (side[None, :] == winner[:, None]) * points[:, None]
            over = ended & (scores.amax(dim=1) >= self._target)
            self._put(self.scores, games, torch.where(over[:, None], 0, scores))
        rewards = self._rewards(points, winner, over)
        self._next_rounds(games, over)
        return rewards, over

    def _rewards(self, points: torch.Tensor, winner: torch.Tensor, over: torch.Tensor) -> torch.Tensor:
        """``dominoes_v0``'s rewards for rounds that ended with ``points`` to side ``winner`` (-1: none)."""
        # In a match only the round winner can have reached the target, so it won the episode.
        value = over.long() if self.reward == "win_loss" else points
        side_values = torch.where(self._side_ids[None, :] == winner[:, None], value[:, None], 0).double()
        mine = side_values.index_select(1, self._side)
        if self.reward == "points":
            return mine.float()
        return (mine - (side_values.sum(dim=1, keepdim=True) - mine) / self._others).float()

    def _next_rounds(
        self, games: torch.Tensor, new_match: torch.Tensor, given: torch.Tensor | None = None
    ) -> None:
        """Deal the picked ``games`` a new round (``new_match``: the first of a new episode, led as
        ``first_leader`` says; later rounds are led by the seat after the last leader)."""
        n, h = self.num_players, self._hand
        deals = given if given is not None else self._new_deals(games, new_match)
        k = deals.shape[0]
        if self.config.first_leader == "random":
            first = self._rows(self._random_leaders, games)
        else:
            ranks = self._lead_rank.index_select(0, deals[:, : self._dealt].reshape(-1)).view(k, -1)
            first = torch.div(ranks.argmax(dim=1), h, rounding_mode="floor")
        leaders = torch.where(
            new_match, first, self._next_seat.index_select(0, self._rows(self.leader, games))
        )
        held = deals[:, : self._dealt].reshape(k * n, h)
        hands = torch.zeros((k * n, self._width), dtype=torch.uint8, device=self.device)
        hands.scatter_(1, torch.cat([2 * held, 2 * held + 1], dim=1), 1)
        pips = self._pips.index_select(0, held.reshape(-1)).view(k, n, h).sum(dim=2)
        put = self._put
        put(self.deal, games, deals)
        put(self._hand_rows.view(self.num_envs, n, -1), games, hands.view(k, n, -1))
        put(
            self._tile_rows.view(self.num_envs, n, -1),
            games,
            hands[:, 0 : 2 * self._n_tiles : 2].view(k, n, -1),
        )
        put(self._line, games, 0)
        put(self.counts, games, h)
        put(self.pips, games, pips)
        put(self.voids, games, 0)
        put(self.left, games, self._n_numbers)
        put(self.right, games, self._n_numbers + 1)
        put(self.empty, games, True)
        put(self.ptr, games, self._dealt)
        put(self.streak, games, 0)
        put(self.leader, games, leaders)
        put(self.seat, games, leaders)

    def _new_deals(self, games: torch.Tensor, new_match: torch.Tensor) -> torch.Tensor:
        """A deal per game picked: from the generator, or the ``dealer`` asked as ``VectorLineGame``
        asks it, first for the new episodes, then for the next rounds."""
        t = self._n_tiles
        if self._dealer is None:
            return shuffled_deals(new_match.numel(), t, self._generator)
        by_mask = games.dtype == torch.bool
        deals = (
            self.deal.clone()
            if by_mask
            else torch.empty((games.numel(), t), dtype=torch.int64, device=self.device)
        )
        ids = self._ar if by_mask else games
        starting = games if by_mask else torch.ones_like(new_match)
        for group in (starting & new_match, starting & ~new_match):
            rows = group.nonzero()[:, 0]
            if rows.numel():
                deals[rows] = deal_rows(ids.index_select(0, rows), None, self._dealer, self._generator, t)
        return deals

    # ----- observation and mask --------------------------------------------------------------
    def _batch(self, rewards: torch.Tensor, done: torch.Tensor) -> Batch:
        rows = self._row_seats + self.seat
        ends = self.left * (self._n_numbers + 2) + self.right
        self._mask = self._legal_mask(self._hand_rows.index_select(0, rows), ends)
        obs = self._observe(self._tile_rows.index_select(0, rows), ends)
        return Batch(self.seat.clone(), obs, self._mask.clone(), rewards, done)

    def _legal_mask(self, mine: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
        t = self._n_tiles
        plays = self._fits.index_select(0, ends) & mine
        stuck = plays.view(torch.int64).amax(dim=1) == 0  # whole words: no tile fits
        if self._has_stock:
            can_draw = (self.ptr < self._stock_end) & ~self.empty  # the opening is always a tile
            if self._draw_when_stuck:
                can_draw = can_draw & stuck
            stuck = stuck & ~can_draw
            plays[:, 2 * t] = can_draw
        plays[:, 2 * t + 1] = stuck
        return plays[:, : self.num_actions].view(torch.bool)

    def _observe(self, hand: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
        """The compact observation of the seat to act (``encoders.line_compact``), whole batch;
        ``hand`` is its hand row, ``ends`` the row of the open ends in the tables."""
        cfg, lay = self.config, slot_slices(self.config)
        b, n, t = self.num_envs, self.num_players, self._n_tiles
        obs = torch.empty((b, self.obs_dim), dtype=torch.float32, device=self.device)
        seen = self._tile_rows.view(b, n, t).amax(dim=1) if cfg.open_hands else hand
        unknown = (seen | self._line) ^ 1
        obs[:, : 3 * t].view(b, 3, t).copy_(torch.stack([hand, self._line, unknown], dim=1))
        unknown = unknown.float()
        obs[:, lay["left_end"].start : lay["right_end"].stop] = self._ends_onehot.index_select(0, ends)
        unseen = (unknown @ self._suit).long()
        obs[:, lay["unseen"]] = self._per_number.index_select(0, unseen.view(-1)).view(b, -1)
        rel = self._rotation.index_select(0, self.seat)
        voids = self.voids.gather(1, rel[:, 1:]).view(-1)
        obs[:, lay["voids"]] = self._void_bits.index_select(0, voids).view(b, -1)
        obs[:, lay["hand_sizes"]] = self._per_tile.index_select(0, self.counts.gather(1, rel).view(-1)).view(
            b, n
        )
        if self._has_stock:
            obs[:, lay["stock"]] = self._per_tile.index_select(0, self._stock_end - self.ptr)[:, None]
        else:
            obs[:, lay["stock"]] = 0.0
        # The pass streak is below n here (n passes end the round), and the leader is always set.
        streak_leader = self.streak * n + (self.leader - self.seat) % n
        obs[:, lay["pass_streak"].start : lay["leader"].stop] = self._streak_leader.index_select(
            0, streak_leader
        )
        if self._target is not None:
            scores = self.scores.gather(1, rel).clamp(max=self._target).view(-1)
            obs[:, lay["scores"]] = self._per_target.index_select(0, scores).view(b, n)
        else:
            obs[:, lay["scores"]] = 0.0
        if cfg.open_hands:
            others = (self._row_seats[:, None] + rel[:, 1:]).view(-1)
            obs[:, lay["open_hands"]] = self._tile_rows.index_select(0, others).view(b, -1)
        return obs
