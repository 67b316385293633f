"""``observation_encoder="history"`` for the line games: the round's moves as padded tokens.

One token per event of ``LineView.history`` (plays, draws as a count, passes), in order, with the
open ends *before* the event, so a pass carries the ends it passed on. A draw never shows its tile.

**Bound** (``max_tokens``). With ``n`` players, ``D`` tiles dealt and ``R`` drawable tiles (the stock
less the reserve in Draw, 0 in Block): at most ``R`` draws; at most ``P = D + R - (n - 1)`` plays,
since a round ends as soon as one hand is empty and the other ``n - 1`` still hold a tile; no pass
before the opening play, at most ``n - 1`` passes between two plays and ``n`` after the last one (the
``n``-th blocks the round), so at most ``(n - 1) P + 1`` passes. In all, ``n P + R + 1`` tokens:
29 for Block 2p, 107 for pagat Draw 4p with double-six. The bound is safe, not always reached.
"""

from __future__ import annotations

from collections.abc import Iterator

from domino_env.encoders.base import Slot, layout, register_encoder
from domino_env.encoders.history import HistoryEncoder
from domino_env.rules.line import LineConfig, LineView

PLAY, DRAW, PASS = range(3)


def max_events(config: LineConfig) -> int:
    """Upper bound on the events of one round (module docstring)."""
    n, tiles = config.num_players, config.tiles.num_tiles
    dealt = n * config.hand_size
    drawable = tiles - dealt - config.draw_reserve if config.variant == "draw" else 0
    plays = dealt + drawable - (n - 1)
    return n * plays + drawable + 1


@register_encoder
class LineHistoryEncoder(HistoryEncoder):
    """Every move of the round, oldest first: relative seat, kind, tile and side, the ends before it."""

    game = "dominoes"

    def token_slots(self, config: LineConfig) -> tuple[Slot, ...]:
        n, numbers = config.num_players, config.max_pips + 1
        return layout([
            ("event", 1, "1 for a move, 0 for padding"),
            ("seat", n, "one-hot relative seat that moved (0 = me)"),
            ("kind", 3, "one-hot: play, draw, pass"),
            ("tile", config.tiles.num_tiles, "one-hot tile played (canonical index); zero for draw, pass"),
            ("side", 2, "one-hot side played on: left, right (the opening tile is left)"),
            ("left_end", numbers, "one-hot left open end before the move; zero on an empty table"),
            ("right_end", numbers, "one-hot right open end before the move; zero on an empty table"),
        ])

    def max_tokens(self, config: LineConfig) -> int:
        return max_events(config)

    def tokens(self, view: LineView, at: dict[str, int]) -> Iterator[list[int]]:
        n, draw_action = view.config.num_players, 2 * view.config.tiles.num_tiles
        for seat, action, left, right in view.history:
            token = [0, at["seat"] + (seat - view.seat) % n]
            if action == draw_action:
                token.append(at["kind"] + DRAW)
            elif action == draw_action + 1:
                token.append(at["kind"] + PASS)
            else:
                token += (at["kind"] + PLAY, at["tile"] + (action >> 1), at["side"] + (action & 1))
            if left >= 0:
                token += (at["left_end"] + left, at["right_end"] + right)
            yield token
