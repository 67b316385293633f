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
"""

from __future__ import annotations

from functools import cache

import gymnasium
import numpy as np

from domino_env.encoders.base import Encoder, Slot, get_encoder, layout
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import BID, Texas42Config, Texas42Game


def _game_name(config: LineConfig | Texas42Config) -> str:
    return "dominoes" if isinstance(config, LineConfig) else "texas42"


def _num_tiles(config: LineConfig | Texas42Config) -> int:
    return config.tiles.num_tiles if isinstance(config, LineConfig) else config.variant.num_tiles


def _has_hidden(config: LineConfig | Texas42Config) -> bool:
    """Tiles in no hand: the line games' stock or tiles out of play, the Texas 88 kitty or discards."""
    return isinstance(config, LineConfig) or config.variant.kitty_size > 0


@cache
def state_slots(config: LineConfig | Texas42Config) -> tuple[Slot, ...]:
    """The slot table of the state for ``config`` (module docstring)."""
    public = _public_encoder(_game_name(config))
    n_tiles = _num_tiles(config)
    parts = [("hands", config.num_players * n_tiles, "block s: the tiles in seat s's hand (absolute seats)")]
    if isinstance(config, LineConfig):
        parts.append(("hidden", n_tiles, "tiles in the stock (Draw) or out of play (Block)"))
    elif _has_hidden(config):
        parts.append(("hidden", n_tiles, "the kitty until the bid winner takes it, then the discards"))
    parts.append(("public", public.size(config), "the default observation of seat 0 (its slot table)"))
    return layout(parts)


@cache
def state_space(config: LineConfig | Texas42Config) -> gymnasium.spaces.Box:
    """The Box of ``encode_state`` for ``config``: one object per config, as PettingZoo expects."""
    last = state_slots(config)[-1]
    return gymnasium.spaces.Box(0.0, 1.0, (last.start + last.length,), dtype=np.float32)


def encode_state(game: LineGame | Texas42Game) -> np.ndarray:
    """The full-information state of ``game`` (float32, laid out by ``state_slots``)."""
    hands, n_tiles = game.hands, _num_tiles(game.config)
    if isinstance(game, LineGame):
        hidden = [sum(1 << t for t in game.stock) | game.out_of_play]
    elif _has_hidden(game.config):
        hidden = [game.kitty if game.phase == BID else sum(1 << t for t in game.discards)]
    else:
        hidden = []
    bits = 0
    for i, mask in enumerate([*hands, *hidden]):
        bits |= mask << (i * n_tiles)
    width = (len(hands) + len(hidden)) * n_tiles
    raw = np.frombuffer(bits.to_bytes((width + 7) // 8, "little"), dtype=np.uint8)
    public = _public_encoder(_game_name(game.config)).encode(game.view(0))
    return np.concatenate([np.unpackbits(raw, count=width, bitorder="little").astype(np.float32), public])


@cache
def _public_encoder(game: str) -> Encoder:
    """One shared instance per game (the default encoders keep a per-config plan)."""
    return get_encoder(game, "default")
