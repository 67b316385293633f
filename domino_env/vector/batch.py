"""The record every batched engine returns (docs/architecture.md, "Batched engines")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


class Batch(NamedTuple):
    """One lockstep step of ``B`` games.

    ``done[b]`` means game ``b`` ended on this step and was reset: ``rewards[b]`` still belong to
    the finished game, while ``seat``/``obs``/``mask`` already describe the new one.
    """

    seat: np.ndarray  # (B,) int64, the seat to act
    obs: np.ndarray  # (B, obs_dim) float32, compact observation of that seat
    mask: np.ndarray  # (B, num_actions) bool, its legal actions
    rewards: np.ndarray  # (B, num_players) float32, every seat's reward for the step just taken
    done: np.ndarray  # (B,) bool


def _swar_bitwise_count(x: np.ndarray) -> np.ndarray:
    """Set bits per element of an unsigned-integer array, as uint8 (numpy < 2 has no ``bitwise_count``)."""
    x = np.asarray(x).astype(np.uint64)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (np.multiply(x, np.uint64(0x0101010101010101), dtype=np.uint64) >> np.uint64(56)).astype(np.uint8)


bitwise_count: Callable[[np.ndarray], np.ndarray] = getattr(np, "bitwise_count", _swar_bitwise_count)
"""``np.bitwise_count`` (numpy >= 2.0), else the same count in a few vectorized steps: pyproject's
numpy bound is 1.24 (``scripts/ci_lowest_deps.sh`` runs the batched engines' tests there)."""


def integer_array(values: object, what: str, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` as an int64 array of ``shape``, or a ``ValueError`` naming ``what`` was wrong.

    Only integer dtypes pass: a cast would truncate floats (``legal + 0.7`` would play ``legal``),
    parse strings and read bools as 0/1. One dtype test, no per-element work: cheap on every step."""
    array = np.asarray(values)
    if array.dtype.kind not in "iu":  # bool is "b", floats "f", strings "U"/"S", objects "O"
        raise ValueError(f"{what} must be an integer array, got dtype {array.dtype}")
    if array.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, got {array.shape}")
    return array.astype(np.int64, copy=False)


def permutations(deals: object, num_games: int, num_tiles: int) -> np.ndarray:
    """``deals`` checked as ``num_games`` permutations of the tile ids ``0..num_tiles-1`` (one a
    row: every tile dealt exactly once), as int64; a ``ValueError`` names the first bad row."""
    deals = integer_array(deals, "deals", (num_games, num_tiles))
    bad = (np.sort(deals, axis=1) != np.arange(num_tiles)).any(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"deals must be permutations of the tile ids 0..{num_tiles - 1} (each exactly once); "
            f"row {row} is {deals[row].tolist()}"
        )
    return deals


def deal_rows(
    games: np.ndarray,
    given: object,
    dealer: Callable[[np.ndarray], np.ndarray] | None,
    rng: np.random.Generator,
    num_tiles: int,
) -> np.ndarray:
    """Deals ``(k, num_tiles)`` for the ``k`` ``games`` starting a round or hand: ``given`` (a
    ``reset``'s), else the ``dealer``'s, both checked by ``permutations``; without a dealer, a
    seeded shuffle, valid by construction and so not checked (rounds start on most steps)."""
    if given is None and dealer is None:
        return rng.random((games.size, num_tiles)).argsort(axis=1)
    return permutations(dealer(games) if given is None else given, games.size, num_tiles)


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``(B, A)`` bool mask (every row non-empty).

    Works on the packed mask: pick the ``r``-th set bit by halving each 64-bit word with popcounts,
    four times cheaper than a cumulative sum over the whole mask."""
    b, a = mask.shape
    nw = -(-a // 64)
    padded = np.zeros((b, 64 * nw), np.uint8)  # whole words per row: packbits runs twice as fast
    padded[:, :a] = mask
    words = np.packbits(padded, axis=1, bitorder="little").view(np.uint64)
    counts = bitwise_count(words).astype(np.int64)
    r = (rng.random(b) * counts.sum(axis=1)).astype(np.int64)
    # Walk the (at most three) words with whole-batch selects, not a (B, W) search and 2-D gather.
    word, count, w = words[:, 0], counts[:, 0], np.zeros(b, np.int64)
    for j in range(1, nw):
        ahead = r >= count
        r -= ahead * count
        word = np.where(ahead, words[:, j], word)
        count = np.where(ahead, counts[:, j], count)
        w += ahead
    pos = np.zeros(b, np.uint64)
    for width in (32, 16, 8, 4, 2, 1):
        below = bitwise_count((word >> pos) & np.uint64((1 << width) - 1)).astype(np.int64)
        above = r >= below
        r -= above * below
        pos += above.astype(np.uint64) * np.uint64(width)
    return 64 * w + pos.astype(np.int64)


def hidden_hands(envs: Any, seat: np.ndarray, num_tiles: int) -> np.ndarray:
    """The centralized critic's extra input: the hands of relative seats ``1 .. P-1`` of each game's
    acting ``seat``, ``(B, (P-1) * num_tiles)`` float32 0/1 over the canonical tile index.

    Read from the batched engines' public ``hands`` arrays (``VectorLineGame``: ``(B, P, W)`` uint64
    words, ``VectorTexas42Game``: ``(B, P)`` int64), both little-endian bit sets; right after a step
    they describe the same game as the ``Batch`` (a finished game's replacement included).
    """
    hands = np.ascontiguousarray(envs.hands)
    num_envs, num_players = hands.shape[:2]
    others = (seat[:, None] + np.arange(1, num_players)) % num_players
    rows = hands.reshape(num_envs, num_players, -1)[np.arange(num_envs)[:, None], others]
    bits = np.unpackbits(rows.view(np.uint8), axis=-1, count=num_tiles, bitorder="little")
    return bits.reshape(num_envs, -1).astype(np.float32)


def step_games(engine: Any, batch: Batch, actions: np.ndarray, active: np.ndarray) -> Batch:
    """Step only the games where ``active`` is set; the others are left exactly as they were.

    The engines step every game in lockstep. The vector environments need some games to wait (the
    learner is to act there while opponents still move elsewhere), so the waiting games play their
    first legal action and then get every per-game array of the engine back (each engine keeps a
    game's whole state in array attributes whose first axis is the game; a reshape of one of them
    is a view and comes back with it). ``batch`` is the engine's last ``Batch``: the waiting games'
    seat, observation and mask are taken from it, their rewards are zero and ``done`` False. The
    waiting games' throwaway moves may draw deals from the engine's generator, so use it with the
    seeded shuffle, not with a ``dealer`` whose deals must go to given games.
    """
    waiting = np.flatnonzero(~active)
    if waiting.size == 0:
        return engine.step(actions)
    arrays = {
        name: value
        for name, value in vars(engine).items()
        if isinstance(value, np.ndarray) and value.shape[:1] == (engine.num_envs,)
    }
    saved = {name: value[waiting].copy() for name, value in arrays.items()}
    stand_in = np.where(active, actions, batch.mask.argmax(axis=1))
    after = engine.step(stand_in)
    for name, rows in saved.items():
        getattr(engine, name)[waiting] = rows  # step() may have replaced the array: write into the new one
    seat, obs, mask, rewards, done = (np.array(field, copy=True) for field in after)
    seat[waiting], obs[waiting], mask[waiting] = batch.seat[waiting], batch.obs[waiting], batch.mask[waiting]
    rewards[waiting], done[waiting] = 0.0, False
    return Batch(seat, obs, mask, rewards, done)
