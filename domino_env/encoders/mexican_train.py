"""Observation encoders for Mexican Train; ``"default"`` is the one ``mexican_train_v0`` uses.

Everything is relative to the observing seat: relative seat ``r`` is seat ``(me + r) % n`` (``0`` is
me), and train slot ``k < n`` is relative seat ``k``'s personal train, slot ``n`` the Mexican train:
the slots the action ids use (``rules.mexican_train``), so one network plays every seat. Tiles, end
values, seats and trains are categories (one-hot or bit vectors over the double-twelve index); only
hand sizes, the boneyard and the scores are scaled numbers, so every entry lies in ``[0, 1]``.

``MexicanTrainEncoder`` is the shared machinery: the 0/1 slots come first and are gathered into one
Python ``int`` bit set, unpacked once (a numpy store per entry would cost more than the game step);
the scaled slots follow. The slot tables are ``slots(config)``; docs/encoders.md prints them.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from domino_env.encoders.base import BYTE_FLOATS, Encoder, Slot, layout, register_encoder
from domino_env.rules.mexican_train import DOUBLE_TILE, NUM_TILES, MexicanTrainConfig, MexicanTrainView

NUMBERS = 13  # end values 0..12


def rotate(flags: Sequence[Any], me: int) -> list[Any]:
    """Per-seat values in relative order: index ``r`` holds seat ``(me + r) % n``'s."""
    return [*flags[me:], *flags[:me]]


def train_slots(me: int, n: int) -> list[int]:
    """Per absolute train (seats' trains, then the Mexican), its slot relative to ``me``."""
    return [*((t - me) % n for t in range(n)), n]


def oldest_open_train(view: MexicanTrainView) -> int | None:
    """The absolute train of the open double to cover first, if any."""
    return view.open_doubles[0][0] if view.open_doubles else None


def table_tiles(view: MexicanTrainView) -> int:
    """The engine double and every tile on every train, as a bit set."""
    mask = 1 << DOUBLE_TILE[view.engine]
    for train in view.trains:
        for tile, _seat, _end in train:
            mask |= 1 << tile
    return mask


def public_slots(config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
    """The 0/1 slots of the table every encoder of the game shows the same way."""
    n = config.num_players
    return [
        ("ends", (n + 1) * NUMBERS, "per train slot (relative seats' trains, then the Mexican), "
                                    "one-hot open end value"),
        ("marked", n, "per relative seat, a marker on its train"),
        ("open_doubles", n + 1, "per train slot, an open double on it"),
        ("cover_first", n + 1, "one-hot train slot of the open double to cover first"),
        ("to_act", n, "one-hot relative seat to act (all zero once the episode is over)"),
        ("first_turn_done", n, "per relative seat, its first turn of the round is over"),
        ("in_run", 1, "the seat to act is in its opening run (opening=run)"),
        ("drew", 1, "the seat to act has drawn this turn"),
    ]


def open_hands_slot(config: MexicanTrainConfig) -> tuple[str, int, str]:
    n = config.num_players
    return ("open_hands", (n - 1) * NUM_TILES, f"hands of relative seats 1..{n - 1} (open_hands)")


def scaled_slots(config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
    n = config.num_players
    return [
        ("hand_sizes", n, f"tiles held per relative seat / {NUM_TILES}"),
        ("boneyard", 1, f"tiles in the boneyard / {NUM_TILES}"),
        ("scores", n, f"match total per relative seat / {config.max_match_points} (the most possible)"),
    ]


class MexicanTrainEncoder(Encoder):
    """Base of the game's flat encoders: ``binary_slots`` (0/1, first) and ``scaled_slots`` (after),
    filled by ``bits`` and ``scaled``. The layout is cached per config (identity: hashing one is slow)."""

    game = "mexican_train"
    _config: Any = None

    @abstractmethod
    def binary_slots(self, config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
        """The 0/1 slots, in order."""

    @abstractmethod
    def bits(self, view: MexicanTrainView, at: dict[str, int]) -> int:
        """Every 0/1 entry as one bit set; ``at`` maps each slot's name to its start."""

    def scaled_slots(self, config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
        """The scaled slots, in order, after the 0/1 ones."""
        return scaled_slots(config)

    def slots(self, config: MexicanTrainConfig) -> tuple[Slot, ...]:
        return layout([*self.binary_slots(config), *self.scaled_slots(config)])

    def scaled(self, view: MexicanTrainView) -> list[float]:
        """The scaled slots' values, in order (``self.scaled_slots``)."""
        cfg = view.config
        total = cfg.max_match_points
        return [*(h / NUM_TILES for h in rotate(view.hand_sizes, view.seat)), view.boneyard_size / NUM_TILES,
                *(s / total for s in rotate(view.scores, view.seat))]

    def encode(self, view: MexicanTrainView) -> np.ndarray:
        size, num_bits, at = self._plan(view.config)
        raw = np.frombuffer(self.bits(view, at).to_bytes((num_bits + 7) // 8, "little"), dtype=np.uint8)
        out = np.empty(size, dtype=np.float32)
        out[:num_bits] = BYTE_FLOATS.take(raw, axis=0).reshape(-1)[:num_bits]
        out[num_bits:] = self.scaled(view)
        return out

    def _plan(self, config: MexicanTrainConfig) -> tuple[int, int, dict[str, int]]:
        if config is not self._config:
            slots = self.slots(config)
            binary = len(self.binary_slots(config))
            last = slots[binary - 1]
            self._config = config
            self._dims = (self.size(config), last.start + last.length, {s.name: s.start for s in slots})
        return self._dims

    @staticmethod
    def public_bits(view: MexicanTrainView, at: dict[str, int]) -> int:
        """The bits of ``public_slots``."""
        me, n = view.seat, view.config.num_players
        slot = train_slots(me, n)
        bits = 0
        for train, end in enumerate(view.ends):
            bits |= 1 << (at["ends"] + slot[train] * NUMBERS + end)
        for r, flag in enumerate(rotate(view.marked, me)):
            bits |= flag << (at["marked"] + r)
        for train, _value in view.open_doubles:
            bits |= 1 << (at["open_doubles"] + slot[train])
        first = oldest_open_train(view)
        if first is not None:
            bits |= 1 << (at["cover_first"] + slot[first])
        if view.current_player is not None:
            bits |= 1 << (at["to_act"] + (view.current_player - me) % n)
        for r, flag in enumerate(rotate(view.first_turn_done, me)):
            bits |= flag << (at["first_turn_done"] + r)
        return bits | view.in_run << at["in_run"] | view.drew_this_turn << at["drew"]

    @staticmethod
    def open_hand_bits(view: MexicanTrainView, at: dict[str, int]) -> int:
        bits = 0
        if view.hands is not None:
            for r, hand in enumerate(rotate(view.hands, view.seat)[1:]):
                bits |= hand << (at["open_hands"] + r * NUM_TILES)
        return bits


@cache
def _default_binary(config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
    n = config.num_players
    parts = [
        ("hand", NUM_TILES, "tiles in my hand"),
        ("trains", (n + 1) * NUM_TILES, "per train slot (relative seats' trains, then the Mexican), "
                                        "the tiles on it"),
        *public_slots(config),
        ("turn_doubles", n + 1, "per train slot, a double played this turn not yet open (double_bonus=any)"),
        ("engine", NUMBERS, "one-hot engine value of the round"),
        ("round", NUMBERS, "one-hot round index (round 1 first)"),
        ("first_player", n, "one-hot relative seat that opened the round"),
        ("engine_holder", n, "one-hot relative seat that placed the engine (zero when set aside)"),
        ("no_progress", n, "one-hot turns in a row without progress (n of them block the round)"),
    ]
    if config.open_hands:
        parts.append(open_hands_slot(config))
    return parts


@register_encoder
class DefaultMexicanTrainEncoder(MexicanTrainEncoder):
    """Everything public, as it lies on the table: my hand, each train's tiles and end, markers, open
    doubles, the turn's state, the round, hand sizes, the boneyard and the scores."""

    name = "default"

    def binary_slots(self, config: MexicanTrainConfig) -> list[tuple[str, int, str]]:
        return _default_binary(config)

    def bits(self, view: MexicanTrainView, at: dict[str, int]) -> int:
        me, n = view.seat, view.config.num_players
        slot = train_slots(me, n)
        bits = view.hand << at["hand"] | self.public_bits(view, at) | self.open_hand_bits(view, at)
        for train, tiles in enumerate(view.trains):
            base = at["trains"] + slot[train] * NUM_TILES
            for tile, _seat, _end in tiles:
                bits |= 1 << (base + tile)
        for train, _value in view.turn_doubles:
            bits |= 1 << (at["turn_doubles"] + slot[train])
        bits |= 1 << (at["engine"] + view.engine) | 1 << (at["round"] + view.round_index)
        bits |= 1 << (at["first_player"] + (view.first_player - me) % n)
        if view.engine_holder is not None:
            bits |= 1 << (at["engine_holder"] + (view.engine_holder - me) % n)
        return bits | 1 << (at["no_progress"] + min(view.turns_without_progress, n - 1))
