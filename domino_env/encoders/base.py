"""The observation-encoder interface and the registry environments look encoders up in.

An encoder turns a seat's *view* (``engine.view(seat)``, an immutable record holding only what
docs/rules.md section 4 allows) into one flat ``numpy`` array of a fixed dtype. Its layout is a table of
named slots, ``Slot(name, start, length, meaning)``, from which the docs are generated
(``slot_table_markdown``), so the documentation cannot drift from the code.

Encoders are registered per game under a name: ``get_encoder("dominoes", "default")``. Environments
take ``observation_encoder="default"`` (or any registered name). Each game's record
(``domino_env.games``: ``encoder_modules``) lists the modules whose classes register themselves; the
registry imports them on the game's first lookup, so no encoder module needs to import its siblings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import gymnasium
import numpy as np

from domino_env.games import get_game


class Slot(NamedTuple):
    """One named run of entries in an encoded observation."""

    name: str
    start: int
    length: int
    meaning: str


class Encoder(ABC):
    """Seat view -> flat array. Subclasses set ``name``/``game`` and implement ``slots``/``encode``.

    ``config`` is the game's rules config (e.g. ``rules.line.LineConfig``): the layout may depend on
    it (number of seats, tiles in the set) but never on the state, so the size is fixed per config.
    """

    name: ClassVar[str]
    game: ClassVar[str]
    dtype: ClassVar[type] = np.float32
    low: ClassVar[float] = 0.0
    high: ClassVar[float] = 1.0

    @abstractmethod
    def slots(self, config: Any) -> tuple[Slot, ...]:
        """The layout for ``config``: contiguous slots starting at 0."""

    @abstractmethod
    def encode(self, view: Any) -> np.ndarray:
        """The observation of ``view`` (1-D, ``dtype``, length ``size(view.config)``)."""

    def encode_with_mask(self, view: Any, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
        """``encode(view)`` and the int8 action mask of ``view.legal_mask``: what the environments
        call at every step. Bit-packed encoders override it to unpack both in one numpy call."""
        return self.encode(view), mask_to_array(view.legal_mask, num_actions)

    def observer(self, num_actions: int) -> Callable[[Any, int], tuple[np.ndarray, np.ndarray]]:
        """``(engine, seat) -> encode_with_mask(engine.view(seat), num_actions)``: what environments
        call at every step. An encoder that can follow a game move by move returns something cheaper
        with the same output; each call returns fresh arrays either way."""

        def observe(engine: Any, seat: int) -> tuple[np.ndarray, np.ndarray]:
            return self.encode_with_mask(engine.view(seat), num_actions)

        return observe

    def size(self, config: Any) -> int:
        last = self.slots(config)[-1]
        return last.start + last.length

    def space(self, config: Any) -> gymnasium.spaces.Box:
        return gymnasium.spaces.Box(self.low, self.high, (self.size(config),), dtype=self.dtype)

    def slot_table_markdown(self, config: Any) -> str:
        """The slot table as a Markdown table for the docs."""
        return markdown_table(self.slots(config))


class PlannedEncoder(Encoder):
    """An encoder with a per-config *plan* (tables, offsets) that fuses the action mask into its
    observation unpack.

    Subclasses implement ``_make_plan(config)`` and ``_encode_with_mask_fused(view, plan,
    num_actions)``, and get the plan in ``encode`` from ``self._plan_for(view.config)``: cached for the
    last config seen, compared by identity (hashing a config is slow). A subclass that overrides
    ``encode`` but not the fused hook gets the generic ``encode_with_mask``, which calls its ``encode``.
    """

    def __init__(self) -> None:
        self._config: Any = None
        self._plan: Any = None
        cls = type(self)
        self._fused = issubclass(_owner(cls, "_encode_with_mask_fused"), _owner(cls, "encode"))

    @abstractmethod
    def _make_plan(self, config: Any) -> Any:
        """What ``encode`` and the fused hook need precomputed for ``config``."""

    @abstractmethod
    def _encode_with_mask_fused(
        self, view: Any, plan: Any, num_actions: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``encode_with_mask(view, num_actions)``, given the plan of ``view.config``."""

    def encode_with_mask(self, view: Any, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
        if not self._fused:
            return self.encode(view), mask_to_array(view.legal_mask, num_actions)
        config = view.config  # _plan_for inlined: this runs at every environment step
        if config is not self._config:
            self._config, self._plan = config, self._make_plan(config)
        return self._encode_with_mask_fused(view, self._plan, num_actions)

    def _plan_for(self, config: Any) -> Any:
        if config is not self._config:  # identity, not equality: hashing a config is slow
            self._config, self._plan = config, self._make_plan(config)
        return self._plan


def _owner(cls: type, attr: str) -> type:
    """The first class in ``cls``'s MRO that defines ``attr``."""
    return next(k for k in cls.__mro__ if attr in vars(k))


# BYTE_FLOATS[b]: the 8 bits of byte value b, least significant first, as float32 0/1. One ``take``
# of this table unpacks an int's bytes straight to float32: faster than unpackbits then astype.
BYTE_FLOATS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(
    np.float32
)


# BYTE_INT8S[b]: the 8 bits of byte value b, least significant first, as 8 bytes of int8 0/1. Joining
# them into a bytearray builds a fresh int8 vector with a single numpy call (``np.frombuffer``).
BYTE_INT8S = tuple(row.astype(np.int8).tobytes() for row in BYTE_FLOATS)
_join_bytearray = bytearray().join


_FEW_LEGAL = 4  # up to this many set bits, zeros plus one store per bit beats building the bytes


def mask_to_array(mask: int, num_actions: int) -> np.ndarray:
    """Bit set over action ids -> a fresh, writable int8 vector of length ``num_actions``."""
    if mask.bit_count() > _FEW_LEGAL:  # every byte's 8 entries from a table, then one numpy call
        chunks = map(BYTE_INT8S.__getitem__, mask.to_bytes((num_actions + 7) // 8, "little"))
        return np.frombuffer(_join_bytearray(chunks), np.int8, num_actions)  # positional: cheaper
    out = np.zeros(num_actions, np.int8)
    while mask:
        low = mask & -mask
        out[low.bit_length() - 1] = 1
        mask ^= low
    return out


def scaled(counts: np.ndarray | int, scale: int) -> np.ndarray:
    """``counts / scale`` in float32: the one rounding both the reference and the batched engine use."""
    return np.asarray(counts, dtype=np.float32) / np.float32(scale)


def markdown_table(slots: tuple[Slot, ...]) -> str:
    """Slots as a Markdown table (``docs/encoders.md`` is built from these)."""
    rows = ["| slot | start | length | meaning |", "|---|---|---|---|"]
    rows += [f"| `{s.name}` | {s.start} | {s.length} | {s.meaning} |" for s in slots]
    return "\n".join(rows)


def layout(parts: list[tuple[str, int, str]]) -> tuple[Slot, ...]:
    """Slots from ``(name, length, meaning)`` in order, with starts filled in."""
    slots, start = [], 0
    for name, length, meaning in parts:
        slots.append(Slot(name, start, length, meaning))
        start += length
    return tuple(slots)


# The modules that register each game's encoders (``@register_encoder``), imported on first lookup.
_REGISTRY: dict[tuple[str, str], Callable[[], Encoder]] = {}
_LOADED: set[str] = set()  # games whose encoder modules are imported


def register_encoder(cls: type[Encoder]) -> type[Encoder]:
    """Class decorator: make ``cls`` available as ``get_encoder(cls.game, cls.name)``."""
    key = (cls.game, cls.name)
    if key in _REGISTRY and _REGISTRY[key] is not cls:
        raise ValueError(f"an encoder named {cls.name!r} is already registered for {cls.game!r}")
    _REGISTRY[key] = cls
    return cls


def available_encoders(game: str) -> list[str]:
    _import_game(game)
    return sorted(name for g, name in _REGISTRY if g == game)


def get_encoder(game: str, name: str) -> Encoder:
    """A fresh encoder instance; raises ``ValueError`` naming the choices for an unknown name."""
    _import_game(game)
    if (game, name) not in _REGISTRY:
        choices = available_encoders(game)
        raise ValueError(f"unknown {game} observation encoder {name!r}; available: {choices}")
    return _REGISTRY[game, name]()


def _import_game(game: str) -> None:
    if game in _LOADED:
        return
    get_game(game).load_encoders()  # an unknown game raises ValueError naming the known ones
    _LOADED.add(game)
