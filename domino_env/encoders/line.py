"""Observation encoders for the line games; ``"default"`` is the one ``dominoes_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % n``, so
``r = 0`` is me and, with teams, ``r = 2`` is my partner. Pips are categories (one-hot); counts are
scaled by the number of tiles in the set ``T`` so every entry lies in ``[0, 1]``. The slot table is
``DefaultLineEncoder().slots(config)``; ``slot_table_markdown(config)`` prints it for the docs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from domino_env.encoders.base import (
    BYTE_FLOATS,
    PlannedEncoder,
    Slot,
    layout,
    mask_to_array,
    register_encoder,
)
from domino_env.rules.line import LineConfig, LineGame, LineView


class _Plan:
    """Bit offsets for one config, per observing seat, so ``encode`` only shifts and ors.

    Every 0/1 slot is one bit of a Python ``int`` unpacked once by numpy; the few scaled counts
    (``hand_sizes``, ``stock``, ``draws`` are one contiguous run, then ``scores``) are written after.
    """

    def __init__(self, cfg: LineConfig):
        at = _starts(cfg)
        n, num_tiles, numbers = cfg.num_players, cfg.tiles.num_tiles, cfg.max_pips + 1
        self.size = _size(cfg)
        # fraction[k] = k / T for every count a round can reach (sizes, stock, draws never exceed T).
        self.fraction = tuple(k / num_tiles for k in range(num_tiles + 1))
        self.target = cfg.target_score or cfg.tiles.total_pips
        relative = [[(seat - me) % n for seat in range(n)] for me in range(n)]
        # per_seat[me][seat]: offsets of (line_by_seat, passed_on, all_hands) blocks for that seat.
        line_at, passed_at, hands_at = at["line_by_seat"], at["passed_on"], at.get("all_hands", 0)
        self.per_seat = tuple(
            tuple((line_at + r * num_tiles, passed_at + r * numbers, hands_at + r * num_tiles) for r in rel)
            for rel in relative
        )
        # to_act[me][seat], leader[me][seat]: the single bit marking ``seat`` in that relative-seat slot.
        self.to_act, self.leader = (
            tuple(tuple(1 << (at[name] + r) for r in rel) for rel in relative)
            for name in ("to_act", "leader")
        )
        # seat_bits[me]: my seat's one-hot, and my team's when there are teams (seat % 2, as LineView.team).
        self.seat_bits = tuple(
            1 << (at["seat"] + me) | (1 << (at["team"] + me % 2) if cfg.teams else 0) for me in range(n)
        )
        # entries[me][seat]: where seat's line block, passed_on block, all_hands block, hand size,
        # draws and to_act bit start in me's observation (LineObservations patches entries, not bits).
        draws_at = at["draws"]
        self.entries = tuple(
            tuple(
                (line_at + r * num_tiles, passed_at + r * numbers, hands_at + r * num_tiles,
                 at["hand_sizes"] + r, draws_at + r, at["to_act"] + r)
                for r in rel
            )
            for rel in relative
        )
        self.stock_at = at["stock"]
        self.hand_at, self.passes_at = at["hand"], at["passes_in_row"]
        self.left_at, self.right_at, self.empty_at = at["left_end"], at["right_end"], at["empty_table"]
        self.empty_bit = 1 << self.empty_at
        # _slots lays out hand_sizes, stock and draws back to back: one slice assignment fills them.
        self.counts_at, self.counts_end, self.scores_at = at["hand_sizes"], at["draws"] + n, at["scores"]
        # counts[(seat, hand_sizes, stock_size, out_of_play, draws)]: that run as float32, built once
        # (few distinct keys recur; converting a list of floats cost more than the rest of the fill).
        self.counts: dict[tuple, np.ndarray] = {}


_COUNTS_CACHE_LIMIT = 1 << 14  # a cache that fills up is emptied, so memory stays bounded


@register_encoder
class DefaultLineEncoder(PlannedEncoder):
    """Own hand, the line by who played it, open ends, sizes, passes with their ends, scores, seat."""

    name = "default"
    game = "dominoes"

    def slots(self, config: LineConfig) -> tuple[Slot, ...]:
        return _slots(config)

    def encode(self, view: LineView) -> np.ndarray:
        plan = self._plan_for(view.config)
        size = plan.size
        raw = np.frombuffer(self._bits(view, plan).to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
        out = BYTE_FLOATS.take(raw, axis=0).reshape(-1)[:size]  # float32 0/1 in one table lookup
        return self._fill_counts(out, view, plan)

    def _encode_with_mask_fused(
        self, view: LineView, plan: _Plan, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        size = plan.size
        # The mask rides in the same int, right after the observation: one unpack for both.
        bits = self._bits(view, plan) | view.legal_mask << size
        raw = np.frombuffer(bits.to_bytes((size + num_actions + 7) // 8, "little"), dtype=np.uint8)
        unpacked = BYTE_FLOATS.take(raw, axis=0).reshape(-1)  # float32 0/1 in one table lookup
        out = self._fill_counts(unpacked[:size], view, plan)
        return out, unpacked[size : size + num_actions].astype(np.int8)

    def _make_plan(self, config: LineConfig) -> _Plan:
        return _Plan(config)

    def observer(self, num_actions: int) -> Callable[[LineGame, int], tuple[np.ndarray, np.ndarray]]:
        """``LineObservations(self, num_actions).observe``: same output, each seat's observation
        patched move by move instead of re-encoded from a fresh view. A subclass may encode something
        else than the layout ``LineObservations`` patches, so it gets the view-encoding observer."""
        if type(self) is not DefaultLineEncoder:
            return super().observer(num_actions)
        return LineObservations(self, num_actions).observe

    @staticmethod
    def _bits(view: LineView, plan: _Plan) -> int:
        """Every 0/1 entry of the observation as one bit set."""
        me = view.seat
        bits = view.hand << plan.hand_at | plan.seat_bits[me] | 1 << (plan.passes_at + view.passes_in_row)
        bits |= plan.leader[me][view.leader]
        for (line_at, passed_at, _), played, passed in zip(
            plan.per_seat[me], view.played_by, view.passed_on, strict=True
        ):
            bits |= played << line_at | passed << passed_at
        if view.left_end >= 0:
            bits |= 1 << (plan.left_at + view.left_end) | 1 << (plan.right_at + view.right_end)
        else:
            bits |= plan.empty_bit
        if view.current_player is not None:
            bits |= plan.to_act[me][view.current_player]
        if view.hands is not None:
            for (_, _, hands_at), hand in zip(plan.per_seat[me], view.hands, strict=True):
                bits |= hand << hands_at
        return bits

    @staticmethod
    def _fill_counts(out: np.ndarray, view: LineView, plan: _Plan) -> np.ndarray:
        """Write the scaled counts into ``out`` (whose count slots are 0) and return it."""
        me = view.seat
        key = (me, view.hand_sizes, view.stock_size, view.out_of_play, view.draws)  # drawable follows
        values = plan.counts.get(key)
        if values is None:
            # Per-seat values rotated to relative order by slicing: seat me first.
            counts = view.hand_sizes[me:] + view.hand_sizes[:me]
            counts += (view.drawable, view.stock_size, view.out_of_play) + view.draws[me:] + view.draws[:me]
            fraction = plan.fraction
            values = np.array([fraction[k] for k in counts], dtype=np.float32)
            if len(plan.counts) >= _COUNTS_CACHE_LIMIT:
                plan.counts.clear()
            plan.counts[key] = values
        out[plan.counts_at : plan.counts_end] = values
        if any(view.scores):  # the unpacked bits already left the score slots at 0
            out[plan.scores_at : plan.scores_at + len(view.scores)] = _scaled_scores(view.scores, me, plan)
        return out


class _Row:
    """One seat's observation and the state it encodes, as of the last time it was brought up to date."""

    __slots__ = ("game", "round_index", "rounds_done", "history_length", "values", "hand", "hands", "left",
                 "right", "passes", "current")


class LineObservations:
    """``DefaultLineEncoder.encode_with_mask(game.view(seat), num_actions)`` for the seats of one
    ``LineGame`` at a time, without building views: what ``dominoes_v0`` calls at every step.

    A seat's observation is encoded from its view (the reference path) when the seat is first observed
    in a round; later observations patch only the entries the moves since then changed, read from the
    round's public history (tiles played by each seat, the open ends at each pass, who drew) and the
    seat's own hand (every hand with ``open_hands``), then the open ends, passes in a row, the seat to
    act and the counts of the seats that moved; the scores when a round ends. Seat, team and leader
    change only between rounds, and a new round re-encodes from the view. A row remembers the game
    object, its round, its finished rounds and the length of its history, so another game, or moves
    applied to the engine directly, are caught. Only what the seat's view holds is read.
    ``observe`` returns fresh arrays (a copy of the row): callers may keep or change them.
    """

    def __init__(self, encoder: DefaultLineEncoder, num_actions: int):
        self.encoder = encoder
        self.num_actions = num_actions
        self._rows: dict[int, _Row] = {}

    def observe(self, game: LineGame, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The seat's observation and int8 action mask (all zeros unless it is to act)."""
        row = self._rows.get(seat)
        if row is None or row.game is not game or row.round_index != game.round_index:
            row = self._encode(game, seat)
        elif row.history_length != len(game.history) or row.rounds_done != len(game.results):
            self._patch(row, game, seat)
        legal = game.legal_mask() if seat == game.current_player else 0
        return row.values.copy(), mask_to_array(legal, self.num_actions)

    def _encode(self, game: LineGame, seat: int) -> _Row:
        row = self._rows[seat] = _Row()
        row.game, row.round_index, row.rounds_done = game, game.round_index, len(game.results)
        row.values = self.encoder.encode(game.view(seat))
        row.history_length, row.hand = len(game.history), game.hands[seat]
        row.hands = list(game.hands) if game.config.open_hands else None
        row.left, row.right, row.passes, row.current = game.left, game.right, game.passes, game.current_player
        return row

    def _patch(self, row: _Row, game: LineGame, me: int) -> None:
        """Bring ``row`` from the state it remembers to ``game``'s (same round, later moves)."""
        plan, values = self.encoder._plan_for(game.config), row.values
        entries, fraction, hands = plan.entries[me], plan.fraction, game.hands
        drew = _patch_moves(values, entries, fraction, game, row.history_length)
        row.history_length = len(game.history)
        if row.rounds_done != len(game.results):  # the round (and the match: same round_index) ended
            values[plan.scores_at : plan.scores_at + game.num_players] = _scaled_scores(game.scores, me, plan)
            row.rounds_done = len(game.results)
        if drew:
            values[plan.stock_at : plan.stock_at + 3] = [
                fraction[game.drawable], fraction[len(game.stock)], fraction[game.out_of_play.bit_count()]
            ]
        if hands[me] != row.hand:
            _patch_bits(values, plan.hand_at, row.hand, hands[me])
            row.hand = hands[me]
        if row.hands is not None:
            for (_, _, hands_at, *_), hand, known in zip(entries, hands, row.hands, strict=True):
                _patch_bits(values, hands_at, known, hand)
            row.hands = list(hands)
        if game.left != row.left or game.right != row.right:
            for left, right, flag in ((row.left, row.right, 0.0), (game.left, game.right, 1.0)):
                if left >= 0:
                    values[plan.left_at + left] = values[plan.right_at + right] = flag
                else:
                    values[plan.empty_at] = flag
            row.left, row.right = game.left, game.right
        current = game.current_player
        if current != row.current:
            if row.current is not None:
                values[entries[row.current][5]] = 0.0
            if current is not None:
                values[entries[current][5]] = 1.0
            row.current = current
        # After to_act: n passes in a row (a blocked round's end) set the bit after passes_in_row's
        # last, to_act's first, whatever the seat to act; encode ors it in, so it must win here too.
        if game.passes != row.passes:
            values[plan.passes_at + row.passes] = 0.0
            values[plan.passes_at + game.passes] = 1.0
            row.passes = game.passes


def _patch_moves(
    values: np.ndarray,
    entries: tuple[tuple[int, ...], ...],
    fraction: tuple[float, ...],
    game: LineGame,
    start: int,
) -> bool:
    """Patch in the moves ``game.history[start:]`` (``entries``: the observer's slot offsets per seat):
    a tile played is on the line and out of its seat's hand, a draw changes the seat's hand size and
    draws, a pass marks the ends it faced. Whether any seat drew (then the stock changed too)."""
    draw_action, hands, drew = game.draw_action, game.hands, False
    for seat, action, left, right in game.history[start:]:
        line_at, passed_at, _, size_at, draws_at, _ = entries[seat]
        if action < draw_action:  # a tile played: on the line, and out of the hand
            values[line_at + (action >> 1)] = 1.0
            values[size_at] = fraction[hands[seat].bit_count()]
        elif action == draw_action:
            values[size_at] = fraction[hands[seat].bit_count()]
            values[draws_at] = fraction[game.draws[seat]]
            drew = True
        else:  # a pass, on the ends it faced
            values[passed_at + left] = values[passed_at + right] = 1.0
    return drew


def _scaled_scores(scores: tuple[int, ...] | list[int], me: int, plan: _Plan) -> list[float]:
    """The scores slot's values: match scores from seat ``me`` on / target, capped at 1."""
    target = plan.target
    return [min(x / target, 1.0) for x in scores[me:] + scores[:me]]


def _patch_bits(values: np.ndarray, start: int, old: int, new: int) -> None:
    """Set ``values[start + i]`` to bit ``i`` of ``new`` wherever it differs from ``old``."""
    changed = old ^ new
    while changed:
        low = changed & -changed
        values[start + low.bit_length() - 1] = 1.0 if new & low else 0.0
        changed ^= low


@cache
def _slots(cfg: LineConfig) -> tuple[Slot, ...]:
    n, num_tiles, values = cfg.num_players, cfg.tiles.num_tiles, cfg.max_pips + 1
    parts = [
        ("hand", num_tiles, "1 if the tile (canonical index) is in my hand"),
        ("line_by_seat", n * num_tiles, "block r, entry t: tile t is on the line, played by relative seat r"),
        ("left_end", values, "one-hot number of the left open end (zeros on an empty table)"),
        ("right_end", values, "one-hot number of the right open end (zeros on an empty table)"),
        ("empty_table", 1, "1 before the opening tile of the round"),
        ("hand_sizes", n, "tiles held by relative seat r / T"),
        ("stock", 3, "drawable stock / T, whole stock (with the reserve) / T, tiles out of play / T"),
        ("draws", n, "tiles drawn this round by relative seat r / T"),
        ("passed_on", n * values, "block r, entry v: relative seat r passed this round with v an open end"),
        ("passes_in_row", n, "one-hot count of passes since the last tile played (0..n-1)"),
        ("to_act", n, "one-hot relative seat to act (zeros once the episode is over)"),
        ("leader", n, "one-hot relative seat that led this round"),
        ("scores", n, "match score of relative seat r's side / target (or / set pips), capped at 1"),
        ("seat", n, "one-hot absolute seat of the observer"),
        ("team", 2, "one-hot team of the observer (zeros without teams)"),
    ]
    if cfg.open_hands:
        parts.append(("all_hands", n * num_tiles, "open_hands only: block r is relative seat r's hand"))
    return layout(parts)


@cache
def _starts(cfg: LineConfig) -> dict[str, int]:
    return {s.name: s.start for s in _slots(cfg)}


@cache
def _size(cfg: LineConfig) -> int:
    last = _slots(cfg)[-1]
    return last.start + last.length
