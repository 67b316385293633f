"""The full-information state behind ``env.state()`` / ``env.state_space``, for centralized critics.

It is the one encoding that reads the engine instead of a seat's view: every hand and every tile
out of sight, followed by the public record as seat 0 would see it. It is never part of an agent's
observation (observations come from a seat's view, which hides other hands unless ``open_hands``).
Seats here are absolute (block ``s`` is seat ``s``), since a critic does not play a seat.

Line games: ``hands`` (``n * T``), ``hidden`` (``T``: the stock in Draw, the tiles out of play in
Block; as a set, not its order), ``public`` (the ``"default"`` observation of seat 0).
Texas 42: ``hands`` (``n * T``, the Nello partner's face-down hand included; ``T`` = 28, 27 with
three players, 56 in Texas 88), in Texas 88 ``hidden`` (``T``: the kitty until the bid winner takes
it, then the discards), ``public``.
All Fives and Fives and Threes: ``hands``, ``hidden`` (``T``: the stock in All Fives, the tiles out of
play in Fives and Threes), ``public``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import gymnasium
import numpy as np

from domino_env.encoders.base import Encoder, Slot, get_encoder, layout
from domino_env.games import game_of_config


@cache
def state_slots(config: Any) -> tuple[Slot, ...]:
    """The slot table of the state for ``config`` (module docstring)."""
    game = game_of_config(config)
    n_tiles = game.num_tiles(config)
    parts = [("hands", config.num_players * n_tiles, "block s: the tiles in seat s's hand (absolute seats)")]
    hidden = game.hidden_tiles(config)
    if hidden is not None:
        parts.append(("hidden", n_tiles, hidden))
    public = _public_encoder(game.name)
    parts.append(("public", public.size(config), "the default observation of seat 0 (its slot table)"))
    return layout(parts)


@cache
def state_space(config: Any) -> gymnasium.spaces.Box:
    """The Box of ``encode_state`` for ``config``: one object per config, as PettingZoo expects."""
    last = state_slots(config)[-1]
    return gymnasium.spaces.Box(0.0, 1.0, (last.start + last.length,), dtype=np.float32)


def encode_state(engine: Any) -> np.ndarray:
    """The full-information state of ``engine`` (float32, laid out by ``state_slots``)."""
    config = engine.config
    game = game_of_config(config)
    hands, n_tiles = engine.hands, game.num_tiles(config)
    hidden = [] if game.hidden_tiles(config) is None else [game.hidden_mask(engine)]
    bits = 0
    for i, mask in enumerate([*hands, *hidden]):
        bits |= mask << (i * n_tiles)
    width = (len(hands) + len(hidden)) * n_tiles
    raw = np.frombuffer(bits.to_bytes((width + 7) // 8, "little"), dtype=np.uint8)
    public = _public_encoder(game.name).encode(engine.view(0))
    return np.concatenate([np.unpackbits(raw, count=width, bitorder="little").astype(np.float32), public])


@cache
def _public_encoder(game: str) -> Encoder:
    """One shared instance per game (the default encoders keep a per-config plan)."""
    return get_encoder(game, "default")
