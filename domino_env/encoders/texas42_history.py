"""``observation_encoder="history"`` for Texas 42: the hand's moves as padded tokens.

One token per move of the current hand in play order (``rules.texas42.hand_moves``): the bids from the
shaker's left, the Texas 88 discards (the tile only for the bid winner: another seat sees that a
discard happened, not what), the declaration, then every tile played, the first tile of each trick
flagged. Who won a trick and the points follow from the tiles and the contract, so they are left to
the model.

**Bound** (``max_tokens`` = ``config.max_decisions``): one bid per seat (one round of bidding), the
88 discards (2), 1 declaration and every tile dealt into a hand played once: 33 in 42 (seven tricks
of four; three in Nello), 31 with three players, 63 in Texas 88; reached when a hand is played to
the last trick.
"""

from __future__ import annotations

from collections.abc import Iterator

from domino_env.encoders.base import Slot, layout, register_encoder
from domino_env.encoders.history import HistoryEncoder
from domino_env.encoders.texas42 import DECLARATIONS, point_bids_text
from domino_env.rules.texas42 import Texas42Config, Texas42View, hand_moves

BID, DECLARE, PLAY_KIND, DISCARD_KIND = range(4)


def _tile_text(config: Texas42Config) -> str:
    if config.variant.texas88:
        return "one-hot tile played or discarded (tile id; none for a discard I may not see)"
    if config.num_players == 3:
        return "one-hot tile played (tile id: canonical order without 0-1)"
    return "one-hot tile played (canonical index)"


@register_encoder
class Texas42HistoryEncoder(HistoryEncoder):
    """Every move of the hand, oldest first: relative seat, kind, bid or contract or tile, leads."""

    game = "texas42"

    def token_slots(self, config: Texas42Config) -> tuple[Slot, ...]:
        v, n = config.variant, config.num_players
        partners = {3: "0 = me", 4: "0 = me, 2 = partner", 6: "0 = me, 2 and 4 = partners"}[n]
        kinds = "bid, declaration, play, discard" if v.kitty_size else "bid, declaration, play"
        return layout([
            ("event", 1, "1 for a move, 0 for padding"),
            ("seat", n, f"one-hot relative seat that moved ({partners})"),
            ("kind", len(kinds.split(", ")), f"one-hot: {kinds}"),
            ("bid", v.num_bid_actions,
             f"one-hot bid action id: pass, {point_bids_text(config)}, 1..7m, plunge 4..7m"),
            ("declaration", DECLARATIONS, "one-hot contract: trump 0-6, doubles, follow-me, Nello, Sevens"),
            ("tile", v.num_tiles, _tile_text(config)),
            ("leads", 1, "1 if the tile played leads its trick"),
        ])

    def max_tokens(self, config: Texas42Config) -> int:
        return config.max_decisions

    def tokens(self, view: Texas42View, at: dict[str, int]) -> Iterator[list[int]]:
        v, n = view.config.variant, view.config.num_players
        for seat, action, leads in hand_moves(view):
            token = [0, at["seat"] + (seat - view.seat) % n]
            if action < 0 or action >= v.play + v.num_tiles:  # a discard, its tile when I may see it
                token.append(at["kind"] + DISCARD_KIND)
                if action >= 0:
                    token.append(at["tile"] + action - v.discard)
            elif action < v.trump:
                token += (at["kind"] + BID, at["bid"] + action)
            elif action < v.play:
                token += (at["kind"] + DECLARE, at["declaration"] + action - v.trump)
            else:
                token += (at["kind"] + PLAY_KIND, at["tile"] + action - v.play)
                if leads:
                    token.append(at["leads"])
            yield token
