"""The batched Texas 42 engine on three-player 42 and Texas 88 beside four-player 42: agent-steps per
second, interleaved.

    .venv/bin/python scripts/speed_texas42_variants.py                 # 4,096 games, 3 s each
    .venv/bin/python scripts/speed_texas42_variants.py --games 16384 --seconds 10

Each case steps ``--games`` games at once (``VectorTexas42Game``, numpy) with uniformly random legal
actions drawn from each step's masks (``sample_legal``) and the compact observation built every step,
timed in alternating short slices beside four-player 42 by ``speed_fives_vector``'s runner, so load
drifts on a shared machine hit every case alike: compare the ratios to four-player 42 within one run,
not the absolute rates across runs. The load average is printed with the figures.
"""

from __future__ import annotations

from typing import Any

from speed_fives_vector import compare

TEXAS42 = "domino_env.vector.texas42:VectorTexas42Game"
REFERENCE = "Texas 42 (4 seats)"
CASES: dict[str, dict[str, Any]] = {
    REFERENCE: {},
    "Three-player 42": {"num_players": 3},
    "Texas 88": {"preset": "texas88"},
    "Texas 42 to 7 marks": {"episode": "game"},
    "Three-player 42 to 7 marks": {"num_players": 3, "episode": "game"},
    "Texas 88 to 7 marks": {"preset": "texas88", "episode": "game"},
}


if __name__ == "__main__":
    compare({name: (TEXAS42, options) for name, options in CASES.items()}, REFERENCE, __doc__)
