"""The compiled endgame solver equals the reference ``LineSolver`` on random positions of every
scoring shape: two sides (alpha-beta), three and four sides (max-n), teams, "others minus own"."""

from __future__ import annotations

import numpy as np
import pytest

from domino_env.bots.line import GreedyLineAgent
from domino_env.rules.line import LineConfig, LineGame
from domino_env.search.line_solver import LineSolver
from domino_env.search.line_solver_compiled import CompiledLineSolver

OPTIONS = [
    {"variant": "block"},
    {"variant": "block", "preset": "boardpan"},
    {"variant": "block", "scoring": "others_minus_own"},
    {"variant": "block", "num_players": 3},
    {"variant": "block", "num_players": 4},
    {"variant": "block", "num_players": 4, "teams": True},
    {"variant": "draw", "num_players": 3},
    {"variant": "block", "max_pips": 9, "num_players": 4, "teams": True},
]


def option_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def endgames(cfg: LineConfig, max_tiles: int, count: int) -> list[LineGame]:
    """Positions of random rounds (greedy and random moves mixed) once nothing is drawable and at
    most ``max_tiles`` tiles are in hands, the opening of the round included where it qualifies."""
    rng, greedy, found = np.random.default_rng(7), GreedyLineAgent(), []
    for seed in range(10 * count):
        game = LineGame(cfg, np.random.default_rng(seed))
        stop = int(rng.integers(0, 6))
        while not game.is_terminal:
            if game.drawable == 0 and sum(map(int.bit_count, game.hands)) <= max_tiles:
                if stop == 0:
                    found.append(game)
                    break
                stop -= 1
            legal = game.legal_mask()
            actions = [a for a in range(legal.bit_length()) if legal >> a & 1]
            action = (greedy.act(game.view(game.current), rng) if rng.random() < 0.7
                      else actions[int(rng.integers(len(actions)))])
            game.apply(action)
        if len(found) == count:
            break
    return found


@pytest.mark.parametrize("options", OPTIONS, ids=option_id)
def test_compiled_solver_equals_reference(options: dict) -> None:
    cfg = LineConfig(target_score=None, **options)
    games = endgames(cfg, 10 if cfg.num_sides > 2 else 14, 12)
    assert len(games) >= 8
    positions = [LineSolver.position(g) for g in games]
    for side in range(cfg.num_sides):
        sides = [side] * len(games)
        expected = [LineSolver(cfg).margin_of(p, side) for p in positions]
        compiled = CompiledLineSolver(cfg, table_bits=10)  # a small table: collisions get exercised
        assert compiled.margins(positions, sides).tolist() == expected
        # solved again with the table kept (warm), in reverse order
        assert compiled.margins(positions[::-1], sides).tolist() == expected[::-1]


def test_compiled_solver_refuses_large_sets() -> None:
    with pytest.raises(ValueError, match="at most 64 tiles"):
        CompiledLineSolver(LineConfig(target_score=None, max_pips=12, num_players=4))


TWO_SIDED = [o for o in OPTIONS if LineConfig(target_score=None, **o).num_sides == 2]


@pytest.mark.parametrize("options", TWO_SIDED, ids=option_id)
def test_a_line_and_its_mirror_have_one_value(options: dict) -> None:
    """The two-sided table keys a line by its ends in either order: the reference agrees that the
    ends swapped change no margin."""
    cfg = LineConfig(target_score=None, **options)
    positions = [LineSolver.position(g) for g in endgames(cfg, 12, 12)]
    mirrored = [(hands, right, left, mover, passes) for hands, left, right, mover, passes in positions]
    assert sum(p[1] != p[2] for p in positions) >= 4  # lines whose mirror is another position
    reference = LineSolver(cfg)
    assert [reference.margin_of(p, 0) for p in mirrored] == [reference.margin_of(p, 0) for p in positions]
    assert CompiledLineSolver(cfg).margins(mirrored, [0] * len(mirrored)).tolist() == \
        [reference.margin_of(p, 0) for p in positions]
