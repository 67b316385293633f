"""The batched line engines equal the reference step by step, over every option.

The reference is ``dominoes_v0.raw_env`` (the rules engine, its rewards and the compact encoder)
with one environment per game; the engines are the numpy ``VectorLineGame`` and its torch twin
``TorchLineGame`` (on the CPU, and on CUDA where torch sees a device). Both sides get the same
deals (the batched engine through its ``dealer`` hook; each environment through
``reset(options={"deal": ...})`` and then its own generator for later rounds, which the hook copies)
and the same random legal actions. Every step compares seat, legal mask, compact observation (bit
for bit), every seat's reward, match scores and done flags.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from domino_env.encoders.line_compact import encode_compact, known_voids
from domino_env.envs.dominoes_v0 import raw_env
from domino_env.rules.line import LineConfig, LineGame, LineView
from domino_env.vector import Batch, VectorLineGame, sample_legal
from domino_env.vector.line_torch import TorchLineGame
from domino_env.vector.torch_batch import sample_legal as torch_sample_legal

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
    dict(
        variant="draw",
        num_players=2,
        preset="boardpan",
        draw_policy="any",
        first_leader="random",
        scoring="others_minus_own",
        open_hands=True,
    ),
    dict(variant="block", num_players=2, max_pips=3, hand_size=3, episode="match", target_score=15),
    dict(variant="draw", num_players=3, max_pips=9, preset="boardpan"),
    dict(variant="draw", num_players=4, max_pips=12, teams=True),  # two-word bit sets
]


def _torch_on(device: str) -> Callable[..., TorchLineGame]:
    def make(num_envs: int, **kwargs: Any) -> TorchLineGame:
        return TorchLineGame(num_envs, device=device, **kwargs)

    return make


ENGINES = [
    pytest.param(VectorLineGame, id="numpy"),
    pytest.param(_torch_on("cpu"), id="torch-cpu"),
    pytest.param(
        _torch_on("cuda"),
        id="torch-cuda",
        marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device"),
    ),
]
CONFIG_IDS = {"ids": lambda o: "-".join(f"{k}={v}" for k, v in o.items())}


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread() -> Any:
    """Tiny torch ops on 40 games: worker threads only add wake-ups (and contend with other jobs)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _host(values: Any) -> np.ndarray:
    """A numpy array of an engine's array or tensor (on any device)."""
    return np.asarray(values.cpu()) if isinstance(values, torch.Tensor) else np.asarray(values)


def _host_batch(batch: Batch) -> Batch:
    return Batch(*(_host(field) for field in batch))


def _deal_row(game: LineGame) -> np.ndarray:
    """The reference's current round as a dealt permutation: hands, stock, then any out-of-play tiles."""
    deal = json.loads(game.to_json())["deal"]
    order = [t for hand in deal["hands"] for t in hand] + deal["stock"]
    rest = sorted(set(range(game.tiles.num_tiles)) - set(order))
    return np.array(order + rest)


class Lockstep:
    """``num_envs`` reference environments mirrored by one batched engine (``engine``'s)."""

    def __init__(self, options: dict, num_envs: int, seed: int, engine: Callable[..., Any] = VectorLineGame):
        self.rng = np.random.default_rng(seed)
        self.envs = [raw_env(observation_encoder="compact", **options) for _ in range(num_envs)]
        self.config: LineConfig = self.envs[0].config
        self.live = [False] * num_envs
        self.vec = engine(num_envs, seed=seed, dealer=self._dealer, **options)
        self.batch = _host_batch(self.vec.reset())
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
        cfg, deal = self.config, _host(self.vec.deal[g]).tolist()
        h, n = cfg.hand_size, cfg.num_players
        self.envs[g].reset(
            seed=int(self.rng.integers(2**32)),
            options={
                "deal": {
                    "hands": [deal[i * h : (i + 1) * h] for i in range(n)],
                    "stock": deal[n * h :] if cfg.variant == "draw" else [],
                    "leader": int(_host(self.vec.leader[g])),
                }
            },
        )
        self.live[g] = True

    def step(self, rng: np.random.Generator) -> None:
        actions = sample_legal(self.batch.mask, rng)
        for env, a in zip(self.envs, actions, strict=True):
            env.step(int(a))
        self.live = [not env.game.is_terminal for env in self.envs]
        self.batch = _host_batch(self.vec.step(actions))
        for g, env in enumerate(self.envs):
            assert self.batch.done[g] == env.game.is_terminal, f"game {g}: done differs"
            want = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
            np.testing.assert_array_equal(self.batch.rewards[g], want, err_msg=f"game {g}: rewards")
            if env.game.is_terminal:
                self._mirror(g)

    def check(self) -> None:
        b, scores = self.batch, _host(self.vec.scores)
        assert b.obs.shape == (len(self.envs), self.vec.obs_dim) and b.obs.dtype == np.float32
        for g, env in enumerate(self.envs):
            game = env.game
            seat = game.current_player
            assert b.seat[g] == seat, f"game {g}: seat {b.seat[g]} != {seat}"
            assert scores[g].tolist() == game.scores, f"game {g}: scores"
            observed = env.observe(env.agent_selection)
            np.testing.assert_array_equal(b.mask[g], observed["action_mask"] == 1, err_msg=f"mask {g}")
            assert b.obs[g].tobytes() == observed["observation"].tobytes(), (
                f"game {g}: observation differs in slots "
                f"{np.flatnonzero(b.obs[g] != observed['observation']).tolist()}"
            )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_vector_equals_reference(options: dict, engine: Callable[..., Any]) -> None:
    run = Lockstep(options, num_envs=40, seed=7, engine=engine)
    rng = np.random.default_rng(11)
    run.check()
    finished = 0
    for _ in range(150):
        run.step(rng)
        run.check()
        finished += int(run.batch.done.sum())
    assert finished >= 20, "too few episodes finished: the comparison barely crossed a reset"


@pytest.mark.benchmark
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_vector_equals_reference_long(options: dict, engine: Callable[..., Any]) -> None:
    """The same comparison over ten times as many games (``pytest -m benchmark``)."""
    run = Lockstep(options, num_envs=200, seed=3, engine=engine)
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


# ----- the torch engine's own contract ---------------------------------------------------------------
def _torch_state(vec: TorchLineGame) -> dict[str, np.ndarray]:
    names = (
        "seat",
        "leader",
        "left",
        "right",
        "empty",
        "ptr",
        "streak",
        "counts",
        "pips",
        "voids",
        "scores",
        "deal",
    )
    state = {name: _host(getattr(vec, name)).copy() for name in names}
    state.update(hands=_host(vec.hands), line=_host(vec.line), mask=_host(vec._mask).copy())
    return state


def test_torch_illegal_action_is_refused_names_the_legal_ones_and_changes_nothing() -> None:
    vec = TorchLineGame(4, seed=0)
    batch = vec.reset()
    before = _torch_state(vec)
    actions = batch.mask.int().argmax(dim=1)
    actions[2] = vec.num_actions - 1  # pass while holding tiles on an empty table
    legal = batch.mask[2].nonzero()[:, 0].tolist()
    with pytest.raises(
        ValueError, match=re.escape(f"illegal action {vec.num_actions - 1} in game 2; legal there: {legal}")
    ):
        vec.step(actions)
    after = _torch_state(vec)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    with pytest.raises(ValueError, match="integer"):
        vec.step(actions.float())
    with pytest.raises(ValueError, match="shape"):
        vec.step(actions[:3])
    vec.step(batch.mask.int().argmax(dim=1).numpy())  # an integer array plays as well as a tensor


def test_torch_given_deals_start_the_first_round() -> None:
    deals = np.stack([np.arange(28), np.arange(28)[::-1]])
    vec = TorchLineGame(2, seed=0, preset="boardpan")
    batch = vec.reset(deals=deals)
    assert batch.seat.tolist() == [1, 0]  # as for the numpy engine (test_given_deals_start_the_first_round)
    np.testing.assert_array_equal(_host(batch.obs[0, :28]), np.isin(np.arange(28), np.arange(7, 14)))
    np.testing.assert_array_equal(_host(vec.deal), deals)
    with pytest.raises(ValueError, match="permutations"):
        vec.reset(deals=np.zeros((2, 28), np.int64))


def test_torch_seeds_fix_the_deals() -> None:
    def deals(seed: int) -> np.ndarray:
        vec = TorchLineGame(8, seed=seed, variant="draw", num_players=3)
        vec.reset()
        return _host(vec.deal)

    np.testing.assert_array_equal(deals(5), deals(5))
    assert (deals(5) != deals(6)).any()
    assert all(sorted(row) == list(range(28)) for row in deals(5).tolist())


@pytest.mark.parametrize("options", CONFIGS[:1] + CONFIGS[8:9], **CONFIG_IDS)
def test_torch_unchecked_actions_play_as_checked(options: dict) -> None:
    checked = TorchLineGame(32, seed=3, **options)
    trusted = TorchLineGame(32, seed=3, check_actions=False, **options)
    a, b = checked.reset(), trusted.reset()
    generator = torch.Generator().manual_seed(1)
    for _ in range(60):
        for x, y in zip(a, b, strict=True):
            assert torch.equal(x, y)
        actions = torch_sample_legal(a.mask, generator)
        a, b = checked.step(actions), trusted.step(actions)


class _SeededDealer:
    """Deals that depend only on the game id and how many it had: any two engines asking for the same
    games in the same order get the same deals."""

    def __init__(self, num_tiles: int):
        self.num_tiles, self.rounds = num_tiles, {}

    def __call__(self, games: np.ndarray) -> np.ndarray:
        rows = []
        for g in games.tolist():
            self.rounds[g] = self.rounds.get(g, 0) + 1
            rows.append(np.random.default_rng([g, self.rounds[g]]).permutation(self.num_tiles))
        return np.array(rows)


@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_torch_picking_games_by_mask_equals_by_rows(options: dict) -> None:
    """Off the CPU, rounds end and start for the whole batch under a mask (no host read); on the CPU
    for the rows of the games concerned. The reference comparison runs the CPU way, so this holds
    the mask way (forced here on the CPU) equal to it, step by step."""
    num_tiles = LineConfig(
        **{k: v for k, v in options.items() if k not in ("episode", "reward")}
    ).tiles.num_tiles
    engines = []
    for by_mask in (False, True):
        vec = TorchLineGame(20, seed=2, dealer=_SeededDealer(num_tiles), **options)
        vec._select_by_mask = by_mask
        engines.append(vec)
    batches = [vec.reset() for vec in engines]
    generator, done = torch.Generator().manual_seed(4), 0
    for step in range(300):  # until a few episodes ended (double-twelve rounds are long)
        for x, y in zip(*batches, strict=True):
            assert torch.equal(x, y)
        assert torch.equal(engines[0].scores, engines[1].scores)
        if step >= 60 and done >= 3:
            break
        actions = torch_sample_legal(batches[0].mask, generator)
        batches = [vec.step(actions) for vec in engines]
        done += int(batches[0].done.sum())
    assert done >= 3
