"""Every legal move of a position applied two ways, to a clone and to the game restored from its save:
the property tests of the engines share it (``test_fives_properties``, ``test_mexican_train_properties``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def moves_from_game_and_save(game: Any, rng: np.random.Generator, cut: int) -> Iterator[tuple[int, Any]]:
    """After ``cut`` random moves (nothing if the game ends first), each legal move applied to a clone
    and to ``type(game).from_json`` of the save: both must reach the same save. Yields ``(action,
    the clone after it)`` for the caller's own checks, then checks that ``game`` was left as it was."""
    for _ in range(cut):
        if game.is_terminal:
            return
        game.apply(int(rng.choice(game.legal_actions())))
    saved = game.to_json()
    for action in game.legal_actions():
        moved, restored = game.clone(), type(game).from_json(saved)
        moved.apply(action)
        restored.apply(action)
        assert restored.to_json() == moved.to_json()
        yield action, moved
    assert game.to_json() == saved, "trying the moves changed the game"
