"""The batched rollouts' engine sizes: every batch fits, and few sizes serve all batches."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domino_env.search.decisions import bucket


def test_small_batches_get_powers_of_two() -> None:
    assert [bucket(rows) for rows in (0, 1, 2, 3, 5, 129, 256)] == [1, 1, 2, 4, 8, 256, 256]


def test_large_batches_get_multiples_of_256() -> None:
    assert [bucket(rows) for rows in (257, 512, 513, 1025)] == [512, 512, 768, 1280]


@given(st.integers(1, 100_000))
def test_every_batch_fits_with_bounded_padding(rows: int) -> None:
    size = bucket(rows)
    assert size >= rows
    assert size < 2 * rows if rows <= 256 else size - rows < 256
    assert size <= 256 and size & (size - 1) == 0 or size % 256 == 0
