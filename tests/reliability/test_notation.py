"""Move notation (docs/rules.md 3.9) read from text under bad input.

Bad inputs tried:
- ``action_from_text`` of what is not a string: ``None``, ``5``, ``b"pass"``, ``["pass"]``,
  ``numpy.str_`` is a string and is read; a ``TypeError`` naming the type, from both engines and
  from both environments' ``action_from_text``.
- Texas 88 tiles with more than one prime: ``play 6-4''``, ``play 6-4'''``, ``discard 6-4''``,
  ``play 4-6 ''``; and, in four-player 42, a primed tile ``play 6-4'``.
(Action ids given to ``action_to_text`` are tried in ``test_engine_conventions.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from domino_env import dominoes_v0, texas42_v0
from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.texas42 import Texas42Config, Texas42Game

ENGINES = {
    "line": LineGame(LineConfig(), np.random.default_rng(0)),
    "texas42": Texas42Game(Texas42Config(), np.random.default_rng(0)),
    "texas88": Texas42Game(Texas42Config.make("texas88"), np.random.default_rng(0)),
}


def envs() -> dict[str, object]:
    line, texas42 = dominoes_v0.raw_env(), texas42_v0.raw_env()
    line.reset(seed=0)
    texas42.reset(seed=0)
    return {"dominoes_v0": line, "texas42_v0": texas42}


@pytest.mark.parametrize("bad", [None, 5, b"pass", ["pass"]], ids=["None", "int", "bytes", "list"])
def test_action_from_text_refuses_what_is_not_text(bad: object) -> None:
    for name, reader in {**ENGINES, **envs()}.items():
        with pytest.raises(TypeError, match=f"got {type(bad).__name__}"):
            reader.action_from_text(bad)
        assert reader.action_from_text(np.str_("pass")) >= 0, name


@pytest.mark.parametrize("text", ["play 6-4''", "play 6-4'''", "discard 6-4''", "play 4-6 ''"])
def test_texas88_reads_one_prime_at_most(text: str) -> None:
    game = ENGINES["texas88"]
    with pytest.raises(ValueError, match="one prime at most"):
        game.action_from_text(text)
    one = game.action_from_text(text.rstrip("'") + "'")
    assert game.action_to_text(one).endswith("6-4'")


def test_only_texas88_has_a_second_copy() -> None:
    with pytest.raises(ValueError, match="only Texas 88"):
        ENGINES["texas42"].action_from_text("play 6-4'")
