"""``observation_encoder="history"`` for All Fives and Fives and Threes: the hand's moves as padded tokens.

One token per event of ``FivesView.history`` (plays, draws as a count, passes), in order, with the
points the play scored and the open ends *before* the event, so a pass carries the ends it passed
on. A draw never shows its tile. Where each tile lies (the arm, the spinner) follows from the plays
in order, so it is left to the model; the ``default`` encoder gives the layout as it stands.

**Bound** (``max_tokens`` = ``config.max_decisions``, RULES-new-games.md 2.8): with ``n`` players,
``P`` tiles that can be played (dealt plus drawable) and ``S`` drawable: at most ``S`` draws, ``P``
plays, and ``n - 1`` passes between two plays and ``n`` after the last, ``nP + S + 1`` in all
(a safe bound, not always reached).
"""

from __future__ import annotations

from collections.abc import Iterator

from domino_env.encoders.base import Slot, layout, register_encoder
from domino_env.encoders.fives import NUMBERS, end_names
from domino_env.encoders.history import HistoryEncoder
from domino_env.rules.fives import END_STRIDE, NUM_TILES, FivesConfig, FivesView

PLAY, DRAW, PASS = range(3)


def points_step(config: FivesConfig) -> int:
    """All Fives scores in points come in fives: one category per five keeps the one-hot short."""
    return 5 if config.is_all_fives and config.score_unit == "points" else 1


@register_encoder
class FivesHistoryEncoder(HistoryEncoder):
    """Every move of the hand, oldest first: relative seat, kind, tile and end, points, ends before it."""

    game = "fives"

    def token_slots(self, config: FivesConfig) -> tuple[Slot, ...]:
        n, ends, names = config.num_players, END_STRIDE[config.variant], end_names(config)
        step = points_step(config)
        scored = config.max_play_points // step + 1
        return layout([
            ("event", 1, "1 for a move, 0 for padding"),
            ("seat", n, "one-hot relative seat that moved (0 = me)"),
            ("kind", 3, "one-hot: play, draw, pass"),
            ("tile", NUM_TILES, "one-hot tile played (canonical index); zero for draw, pass"),
            ("end", ends, f"one-hot end played on: {names} (the lead is the first)"),
            ("points", scored, f"one-hot points the play scored / {step} (0 for draws and passes)"),
            ("ends_before", ends * NUMBERS,
             f"block e ({names}): one-hot value of open end e before the move"),
        ])

    def max_tokens(self, config: FivesConfig) -> int:
        return config.max_decisions

    def tokens(self, view: FivesView, at: dict[str, int]) -> Iterator[list[int]]:
        config = view.config
        n, stride, step = config.num_players, END_STRIDE[config.variant], points_step(config)
        draw_action = stride * NUM_TILES
        for seat, action, points, ends in view.history:
            token = [0, at["seat"] + (seat - view.seat) % n]
            if action == draw_action:
                token.append(at["kind"] + DRAW)
            elif action > draw_action:
                token.append(at["kind"] + PASS)
            else:
                tile, end = divmod(action, stride)
                token += (at["kind"] + PLAY, at["tile"] + tile, at["end"] + end)
                token.append(at["points"] + points // step)
            token += [at["ends_before"] + e * NUMBERS + v for e, v in enumerate(ends[:stride]) if v >= 0]
            yield token
