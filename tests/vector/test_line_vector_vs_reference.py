"""The batched line engine equals the reference step by step, over every option.

The reference is ``dominoes_v0.raw_env`` (the rules engine, its rewards and the compact encoder)
with one environment per game. Both get the same deals (the batched engine through its ``dealer``
hook; each environment through ``reset(options={"deal": ...})`` and then its own generator for
later rounds, which the hook copies) and the same random legal actions. Every step compares seat,
legal mask, compact observation (bit for bit), every seat's reward, match scores and done flags.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from domino_env.encoders.line_compact import encode_compact, known_voids
from domino_env.envs.dominoes_v0 import raw_env
from domino_env.rules.line import LineConfig, LineGame, LineView
from domino_env.vector import VectorLineGame, sample_legal

# Every option of docs/rules.md 2.1 and of the environment (episode, reward) appears at least once.
CONFIGS = [
    dict(variant="block", num_players=2),
    dict(variant="block", num_players=3, preset="boardpan", reward="points"),
    dict(variant="block", num_players=4, teams=True, reward="win_loss"),
    dict(variant="block", num_players=4, preset="boardpan", episode="match", target_score=40),
    dict(variant="draw", num_players=2, episode="match", target_score=30, reward="win_loss"),
    dict(variant="draw", num_players=3, preset="boardpan"),
    dict(variant="draw", num_players=4, teams=True, preset="boardpan", episode="match", target_score=50),
    dict(variant="draw", num_players=4, draw_policy="when_stuck", draw_reserve=3, scoring="others"),
    dict(variant="draw", num_players=2, preset="boardpan", draw_policy="any", first_leader="random",
         scoring="others_minus_own", open_hands=True),
    dict(variant="block", num_players=2, max_pips=3, hand_size=3, episode="match", target_score=15),
    dict(variant="draw", num_players=3, max_pips=9, preset="boardpan"),
    dict(variant="draw", num_players=4, max_pips=12, teams=True),  # two-word bit sets
]


def _deal_row(game: LineGame) -> np.ndarray:
    """The reference's current round as a dealt permutation: hands, stock, then any out-of-play tiles."""
    deal = json.loads(game.to_json())["deal"]
    order = [t for hand in deal["hands"] for t in hand] + deal["stock"]
    rest = sorted(set(range(game.tiles.num_tiles)) - set(order))
    return np.array(order + rest)


class Lockstep:
    """``num_envs`` reference environments mirrored by one ``VectorLineGame``."""

    def __init__(self, options: dict, num_envs: int, seed: int):
        self.rng = np.random.default_rng(seed)
        self.envs = [raw_env(observation_encoder="compact", **options) for _ in range(num_envs)]
        self.config: LineConfig = self.envs[0].config
        self.live = [False] * num_envs
        self.vec = VectorLineGame(num_envs, seed=seed, dealer=self._dealer, **options)
        self.batch = self.vec.reset()
        for g in range(num_envs):
            self._mirror(g)

    def _dealer(self, games: np.ndarray) -> np.ndarray:
        """Next rounds come from the reference's generator; new episodes from the test's."""
        nt = self.config.tiles.num_tiles
        return np.array(
            [_deal_row(self.envs[g].game) if self.live[g] else self.rng.permutation(nt) for g in games]
        )

    def _mirror(self, g: int) -> None:
        """Reset reference ``g`` to the batched engine's fresh deal and first leader."""
        cfg, deal = self.config, self.vec.deal[g].tolist()
        h, n = cfg.hand_size, cfg.num_players
        self.envs[g].reset(
            seed=int(self.rng.integers(2**32)),
            options={"deal": {
                "hands": [deal[i * h:(i + 1) * h] for i in range(n)],
                "stock": deal[n * h:] if cfg.variant == "draw" else [],
                "leader": int(self.vec.leader[g]),
            }},
        )
        self.live[g] = True

    def step(self, rng: np.random.Generator) -> None:
        actions = sample_legal(self.batch.mask, rng)
        for env, a in zip(self.envs, actions, strict=True):
            env.step(int(a))
        self.live = [not env.game.is_terminal for env in self.envs]
        self.batch = self.vec.step(actions)
        for g, env in enumerate(self.envs):
            assert self.batch.done[g] == env.game.is_terminal, f"game {g}: done differs"
            want = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
            np.testing.assert_array_equal(self.batch.rewards[g], want, err_msg=f"game {g}: rewards")
            if env.game.is_terminal:
                self._mirror(g)

    def check(self) -> None:
        b = self.batch
        assert b.obs.shape == (len(self.envs), self.vec.obs_dim) and b.obs.dtype == np.float32
        for g, env in enumerate(self.envs):
            game = env.game
            seat = game.current_player
            assert b.seat[g] == seat, f"game {g}: seat {b.seat[g]} != {seat}"
            assert self.vec.scores[g].tolist() == game.scores, f"game {g}: scores"
            observed = env.observe(env.agent_selection)
            np.testing.assert_array_equal(b.mask[g], observed["action_mask"] == 1, err_msg=f"mask {g}")
            assert b.obs[g].tobytes() == observed["observation"].tobytes(), (
                f"game {g}: observation differs in slots "
                f"{np.flatnonzero(b.obs[g] != observed['observation']).tolist()}"
            )


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_vector_equals_reference(options: dict) -> None:
    run = Lockstep(options, num_envs=40, seed=7)
    rng = np.random.default_rng(11)
    run.check()
    finished = 0
    for _ in range(150):
        run.step(rng)
        run.check()
        finished += int(run.batch.done.sum())
    assert finished >= 20, "too few episodes finished: the comparison barely crossed a reset"


@pytest.mark.benchmark
@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_vector_equals_reference_long(options: dict) -> None:
    """The same comparison over ten times as many games (``pytest -m benchmark``)."""
    run = Lockstep(options, num_envs=200, seed=3)
    rng = np.random.default_rng(5)
    for _ in range(300):
        run.step(rng)
        run.check()


def test_compact_encoder_is_registered_and_matches_its_slots() -> None:
    env = raw_env(observation_encoder="compact", num_players=3)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.shape == env.observation_space("player_0")["observation"].shape
    assert obs.shape == (VectorLineGame(1, num_players=3).obs_dim,)
    np.testing.assert_array_equal(obs, encode_compact(env.game.view(env.game.current_player)))


def test_illegal_action_is_refused_and_names_the_legal_ones() -> None:
    vec = VectorLineGame(4, seed=0)
    batch = vec.reset()
    actions = batch.mask.argmax(axis=1)
    actions[2] = vec.num_actions - 1  # pass while holding tiles on an empty table
    with pytest.raises(ValueError, match="illegal action .* game 2"):
        vec.step(actions)


def test_given_deals_start_the_first_round() -> None:
    deals = np.stack([np.arange(28), np.arange(28)[::-1]])
    vec = VectorLineGame(2, seed=0, preset="boardpan")
    batch = vec.reset(deals=deals)
    # Deal 0: seat 0 holds 0-0..0-6, seat 1 holds 1-1..1-6 and 2-2, so 2-2 is the highest double
    # dealt and seat 1 leads (boardpan); deal 1 gives seat 0 the 6-6.
    assert batch.seat.tolist() == [1, 0]
    np.testing.assert_array_equal(batch.obs[0, :28], np.isin(np.arange(28), np.arange(7, 14)))


def _view(history: list[tuple[int, int, int, int]], **config: object) -> LineView:
    cfg = LineConfig(variant="draw", num_players=3, target_score=None, **config)
    game = LineGame(cfg, np.random.default_rng(0))
    return game.view(0)._replace(history=tuple(history))


def test_voids_from_passes_and_draws() -> None:
    draw, pas = 56, 57
    history = [(1, pas, 2, 5), (2, draw, 3, 4), (2, 2 * 10, 3, 4), (1, pas, 6, 6)]
    assert known_voids(_view(history, draw_policy="when_stuck")) == [0, 0b1100100, 0b11000]
    # A draw under "any" proves nothing and may bring any number back.
    assert known_voids(_view(history, draw_policy="any")) == [0, 0b1100100, 0]
    # A later stuck draw replaces what was known: kept tiles may hold numbers other than the ends.
    history.append((1, draw, 0, 1))
    assert known_voids(_view(history, draw_policy="when_stuck"))[1] == 0b11


def test_sample_legal_is_uniform_over_legal_actions() -> None:
    rng = np.random.default_rng(0)
    mask = np.zeros((30_000, 130), bool)
    legal = [3, 128, 129]  # one bit in the first 64-bit word, none in the second, two in the third
    mask[:, legal] = True
    counts = np.bincount(sample_legal(mask, rng), minlength=130)
    assert counts.sum() == counts[legal].sum()
    assert np.all(np.abs(counts[legal] - 10_000) < 500)
