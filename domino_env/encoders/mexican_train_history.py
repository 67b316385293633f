"""``observation_encoder="history"`` for Mexican Train: the round's moves as padded tokens.

One token per entry of ``MexicanTrainView.history`` in order: the relative seat, the kind (play,
draw, pass, stop), and for a play the tile and the train slot it went on, relative to the observer
(slot ``k < n``: relative seat ``k``'s train; ``n``: the Mexican train). A draw never shows its tile.
Each train's end and the open doubles follow from the tiles, so they are left to the model.

**Bound** (``max_tokens`` = ``config.max_decisions``): every move of a round is one decision, and
``MexicanTrainConfig.max_decisions`` bounds them (its docstring gives the proof). The bound is
safe, far from reached in play.
"""

from __future__ import annotations

from collections.abc import Iterator

from domino_env.encoders.base import Slot, layout, register_encoder
from domino_env.encoders.history import HistoryEncoder
from domino_env.encoders.mexican_train import train_slots
from domino_env.rules.mexican_train import NUM_TILES, MexicanTrainConfig, MexicanTrainView

PLAY, DRAW, PASS, STOP = range(4)


@register_encoder
class MexicanTrainHistoryEncoder(HistoryEncoder):
    """Every move of the round, oldest first: relative seat, kind, tile and train slot."""

    game = "mexican_train"

    def token_slots(self, config: MexicanTrainConfig) -> tuple[Slot, ...]:
        n = config.num_players
        return layout([
            ("event", 1, "1 for a move, 0 for padding"),
            ("seat", n, "one-hot relative seat that moved (0 = me)"),
            ("kind", 4, "one-hot: play, draw, pass, stop"),
            ("tile", NUM_TILES, "one-hot tile played (canonical index); zero otherwise"),
            ("train", n + 1, "one-hot train slot played on (relative seats' trains, then the Mexican)"),
        ])

    def max_tokens(self, config: MexicanTrainConfig) -> int:
        return config.max_decisions

    def tokens(self, view: MexicanTrainView, at: dict[str, int]) -> Iterator[list[int]]:
        me, n = view.seat, view.config.num_players
        draw, slot = NUM_TILES * (n + 1), train_slots(me, n)
        for seat, action in view.history:
            token = [0, at["seat"] + (seat - me) % n]
            if action < draw:
                t, k = divmod(action, n + 1)
                train = k if k == n else (seat + k) % n
                token += (at["kind"] + PLAY, at["tile"] + t, at["train"] + slot[train])
            else:
                token.append(at["kind"] + DRAW + action - draw)
            yield token
