"""``observation_encoder="history"`` for Texas 42: the hand's moves as padded tokens.

One token per move of the current hand in play order (``beliefs.texas42_moves``): the bids from the
shaker's left, the declaration, then every tile played, the first tile of each trick flagged. Who
won a trick and the points follow from the tiles and the contract, so they are left to the model.

**Bound** (``max_tokens``): at most 4 bids (one round of bidding), 1 declaration and 28 plays (seven
tricks of four; three in Nello), 33 tokens; reached when a hand is played to the last trick.
"""

from __future__ import annotations

from collections.abc import Iterator

from domino_env.beliefs import texas42_moves
from domino_env.encoders.base import Slot, layout, register_encoder
from domino_env.encoders.history import HistoryEncoder
from domino_env.rules.texas42 import (
    HAND_SIZE,
    NUM_BID_ACTIONS,
    NUM_TILES,
    PLAY,
    TRUMP,
    Texas42Config,
    Texas42View,
)

SEATS = 4
BID, DECLARE, PLAY_KIND = range(3)
MAX_TOKENS = SEATS + 1 + SEATS * HAND_SIZE


@register_encoder
class Texas42HistoryEncoder(HistoryEncoder):
    """Every move of the hand, oldest first: relative seat, kind, bid or contract or tile, leads."""

    game = "texas42"

    def token_slots(self, config: Texas42Config) -> tuple[Slot, ...]:
        return layout([
            ("event", 1, "1 for a move, 0 for padding"),
            ("seat", SEATS, "one-hot relative seat that moved (0 = me, 2 = partner)"),
            ("kind", 3, "one-hot: bid, declaration, play"),
            ("bid", NUM_BID_ACTIONS, "one-hot bid action id: pass, 30..41, 1..7m, plunge 4..7m"),
            ("declaration", PLAY - TRUMP, "one-hot contract: trump 0-6, doubles, follow-me, Nello, Sevens"),
            ("tile", NUM_TILES, "one-hot tile played (canonical index)"),
            ("leads", 1, "1 if the tile played leads its trick"),
        ])

    def max_tokens(self, config: Texas42Config) -> int:
        return MAX_TOKENS

    def tokens(self, view: Texas42View, at: dict[str, int]) -> Iterator[list[int]]:
        for seat, action, leads in texas42_moves(view):
            token = [0, at["seat"] + (seat - view.seat) % SEATS]
            if action < TRUMP:
                token += (at["kind"] + BID, at["bid"] + action)
            elif action < PLAY:
                token += (at["kind"] + DECLARE, at["declaration"] + action - TRUMP)
            else:
                token += (at["kind"] + PLAY_KIND, at["tile"] + action - PLAY)
                if leads:
                    token.append(at["leads"])
            yield token
