"""Tile sets, the canonical tile index and the bit-set tables every engine shares.

A hand, a stock or a set of played tiles is an ``int`` used as a bit set over the canonical
tile index (docs/rules.md section 1): bit ``t`` is set when tile ``t`` is in the set. With the
precomputed ``suit_mask[v]`` (every tile holding number ``v``) a legality test is one ``&``.
The batched engine reuses these tables as arrays, so a rule about tiles lives here only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

MIN_PIPS = 2
MAX_PIPS = 12


@dataclass(frozen=True)
class TileSet:
    """A double-N set: every tile ``a-b`` with ``0 <= a <= b <= N``, in canonical order."""

    max_pips: int
    low: tuple[int, ...] = field(repr=False)
    high: tuple[int, ...] = field(repr=False)
    pips: tuple[int, ...] = field(repr=False)
    suit_mask: tuple[int, ...] = field(repr=False)
    doubles_mask: int = field(repr=False)
    _index: dict[tuple[int, int], int] = field(repr=False, compare=False)

    @property
    def num_tiles(self) -> int:
        return len(self.low)

    @property
    def full_mask(self) -> int:
        return (1 << self.num_tiles) - 1

    @property
    def total_pips(self) -> int:
        return sum(self.pips)

    def index(self, a: int, b: int) -> int:
        """Canonical index of tile ``a-b`` (either order)."""
        key = (min(a, b), max(a, b))
        if key not in self._index:
            raise ValueError(
                f"no tile {a}-{b} in a double-{self.max_pips} set "
                f"(halves must lie in 0..{self.max_pips})"
            )
        return self._index[key]

    def name(self, t: int) -> str:
        """Text of tile ``t``, higher half first (``"6-5"``)."""
        return f"{self.high[t]}-{self.low[t]}"

    def parse(self, text: str) -> int:
        """Tile index from text such as ``"6-5"`` or ``"5-6"``; raises ``ValueError``."""
        parts = text.strip().split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"cannot read tile {text!r}: write it as two numbers, e.g. '6-5'")
        return self.index(int(parts[0]), int(parts[1]))

    def is_double(self, t: int) -> bool:
        return self.low[t] == self.high[t]

    def other_half(self, t: int, v: int) -> int:
        """The half of tile ``t`` that is not ``v`` (``v`` for a double)."""
        return self.high[t] if self.low[t] == v else self.low[t]

    def mask_pips(self, mask: int) -> int:
        """Total pips of the tiles in bit set ``mask``."""
        return sum(self.pips[t] for t in iter_bits(mask))

    def names(self, mask: int) -> list[str]:
        return [self.name(t) for t in iter_bits(mask)]


@cache
def tile_set(max_pips: int = 6) -> TileSet:
    """The double-``max_pips`` set (2 <= max_pips <= 12), built once and shared."""
    if not isinstance(max_pips, int) or not MIN_PIPS <= max_pips <= MAX_PIPS:
        raise ValueError(f"max_pips must be an integer from {MIN_PIPS} to {MAX_PIPS}, got {max_pips!r}")
    low, high = [], []
    for a in range(max_pips + 1):
        for b in range(a, max_pips + 1):
            low.append(a)
            high.append(b)
    suit_mask = tuple(
        sum(1 << t for t in range(len(low)) if low[t] == v or high[t] == v)
        for v in range(max_pips + 1)
    )
    doubles = sum(1 << t for t in range(len(low)) if low[t] == high[t])
    return TileSet(
        max_pips=max_pips,
        low=tuple(low),
        high=tuple(high),
        pips=tuple(a + b for a, b in zip(low, high, strict=False)),
        suit_mask=suit_mask,
        doubles_mask=doubles,
        _index={(a, b): t for t, (a, b) in enumerate(zip(low, high, strict=False))},
    )


DOUBLE_SIX = tile_set(6)


def iter_bits(mask: int):
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low_bit = mask & -mask
        yield low_bit.bit_length() - 1
        mask ^= low_bit
