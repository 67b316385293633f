"""The batched line engine equals the reference engine step by step, over every option.

Both engines get the same deals (the batched one through its ``dealer`` hook, the reference through
``LineGame(deal=...)`` and then its own generator for later rounds, which the hook copies) and the
same random legal actions. Every step compares seat, legal mask, compact observation (bit for bit),
rewards, scores and done flags; any difference fails with the game and step named.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from domino_env.encoders.line_compact import encode_compact, known_voids
from domino_env.envs.base import mask_to_array
from domino_env.rules.line import LineConfig, LineGame, LineView
from domino_env.vector import VectorLineGame

# Every option of RULES.md 2.1 appears in at least one configuration; single rounds keep games short,
# match play is covered by the configurations with a (small) target.
CONFIGS = [
    dict(variant="block", num_players=2, target_score=None),
    dict(variant="block", num_players=3, preset="boardpan", target_score=None),
    dict(variant="block", num_players=4, teams=True, target_score=None),
    dict(variant="block", num_players=4, preset="boardpan", target_score=40),
    dict(variant="draw", num_players=2, target_score=30),
    dict(variant="draw", num_players=3, preset="boardpan", target_score=None),
    dict(variant="draw", num_players=4, teams=True, preset="boardpan", target_score=50),
    dict(variant="draw", num_players=4, draw_policy="when_stuck", draw_reserve=3, scoring="others"),
    dict(variant="draw", num_players=2, preset="boardpan", draw_policy="any", first_leader="random",
         scoring="others_minus_own", target_score=None, open_hands=True),
    dict(variant="block", num_players=2, max_pips=3, hand_size=3, target_score=15),
    dict(variant="draw", num_players=3, max_pips=9, preset="boardpan", target_score=None),
    dict(variant="draw", num_players=4, max_pips=12, teams=True, target_score=None),  # two-word bit sets
]


def _deal_row(game: LineGame) -> np.ndarray:
    """The reference's current round as a dealt permutation: hands, stock, then any out-of-play tiles."""
    deal = json.loads(game.to_json())["deal"]
    order = [t for hand in deal["hands"] for t in hand] + deal["stock"]
    rest = sorted(set(range(game.tiles.num_tiles)) - set(order))
    return np.array(order + rest)


class Lockstep:
    """``num_envs`` reference games mirrored by one ``VectorLineGame``."""

    def __init__(self, options: dict, num_envs: int, seed: int):
        self.config = LineConfig(**options)
        self.rng = np.random.default_rng(seed)
        self.refs: list[LineGame | None] = [None] * num_envs
        self.vec = VectorLineGame(num_envs, seed=seed, dealer=self._dealer, **options)
        self.batch = self.vec.reset()
        for g in range(num_envs):
            self._mirror(g)

    def _dealer(self, games: np.ndarray) -> np.ndarray:
        """Next rounds come from the reference's generator; new matches from the test's."""
        nt = self.config.tiles.num_tiles
        rows = []
        for g in games:
            ref = self.refs[g]
            rows.append(self.rng.permutation(nt) if ref is None or ref.is_terminal else _deal_row(ref))
        return np.array(rows)

    def _mirror(self, g: int) -> None:
        """A reference match from the batched engine's fresh deal and first leader."""
        cfg, deal = self.config, self.vec.deal[g].tolist()
        h, n = cfg.hand_size, cfg.num_players
        self.refs[g] = LineGame(
            cfg,
            np.random.default_rng(int(self.rng.integers(2**32))),
            deal={
                "hands": [deal[i * h:(i + 1) * h] for i in range(n)],
                "stock": deal[n * h:] if cfg.variant == "draw" else [],
                "leader": int(self.vec.leader[g]),
            },
        )

    def step(self, rng: np.random.Generator) -> None:
        b = self.batch
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in b.mask])
        expected = np.zeros((len(self.refs), self.config.num_players), np.float32)
        for g, ref in enumerate(self.refs):
            rounds = len(ref.results)
            ref.apply(int(actions[g]))
            if len(ref.results) > rounds:
                expected[g] = np.array(ref.results[-1].round_points, np.float32)
        self.batch = self.vec.step(actions)
        for g, ref in enumerate(self.refs):
            assert self.batch.done[g] == ref.is_terminal, f"game {g}: done differs"
            np.testing.assert_array_equal(self.batch.rewards[g], expected[g], err_msg=f"game {g}: rewards")
            if ref.is_terminal:
                self._mirror(g)

    def check(self) -> None:
        b, n = self.batch, self.config.num_players
        for g, ref in enumerate(self.refs):
            seat = ref.current_player
            assert b.seat[g] == seat, f"game {g}: seat {b.seat[g]} != {seat}"
            assert self.vec.scores[g].tolist() == ref.scores, f"game {g}: scores"
            legal = mask_to_array(ref.legal_mask(), ref.num_actions).astype(bool)
            np.testing.assert_array_equal(b.mask[g], legal, err_msg=f"game {g}: mask")
            want = encode_compact(ref.view(seat))
            np.testing.assert_array_equal(b.obs[g], want, err_msg=f"game {g}: observation")
            assert b.obs[g].tobytes() == want.tobytes(), f"game {g}: observation bits"
        assert b.obs.shape == (len(self.refs), self.vec.obs_dim) and b.rewards.shape[1] == n


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_vector_equals_reference(options: dict) -> None:
    run = Lockstep(options, num_envs=48, seed=7)
    rng = np.random.default_rng(11)
    run.check()
    finished = 0
    for _ in range(150):
        run.step(rng)
        run.check()
        finished += int(run.batch.done.sum())
    assert finished > 0, "no episode finished: the comparison never crossed a reset"


def test_illegal_action_is_refused_and_names_the_legal_ones() -> None:
    vec = VectorLineGame(4, seed=0)
    batch = vec.reset()
    actions = batch.mask.argmax(axis=1)
    actions[2] = vec.num_actions - 1  # pass while holding tiles on an empty table
    with pytest.raises(ValueError, match="illegal action .* game 2"):
        vec.step(actions)


def _view(history: list[tuple[int, int, int, int]], **config: object) -> LineView:
    cfg = LineConfig(variant="draw", num_players=3, target_score=None, **config)
    game = LineGame(cfg, np.random.default_rng(0))
    return LineView(**{**game.view(0).__dict__, "history": tuple(history)})


def test_voids_from_passes_and_draws() -> None:
    draw, pas = 56, 57
    history = [(1, pas, 2, 5), (2, draw, 3, 4), (2, 2 * 10, 3, 4), (1, pas, 6, 6)]
    assert known_voids(_view(history, draw_policy="when_stuck")) == [0, 0b1100100, 0b11000]
    # A draw under "any" proves nothing and may bring any number back.
    assert known_voids(_view(history, draw_policy="any")) == [0, 0b1100100, 0]
    # A later stuck draw replaces what was known: kept tiles may hold numbers other than the ends.
    history.append((1, draw, 0, 1))
    assert known_voids(_view(history, draw_policy="when_stuck"))[1] == 0b11
