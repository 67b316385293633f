"""The batched Texas 42 engine equals the reference step by step, over every option.

The reference is ``texas42_v0.raw_env`` with the compact encoder (the rules engine, its rewards and
``encoders.texas42_compact``), one environment per game. Both get the same deals: a new episode's
deal and shaker come from the batched engine and are given to the environment through
``reset(options={"deal": ...})``; reshakes and later hands of a game come from the environment's
own generator, and the batched engine's ``dealer`` hook copies them. Both then take the same random
legal actions, passing more often than uniform play would so that reshakes and forced bids happen.
Every step compares seat, legal mask, observation (bit for bit), every seat's
reward, marks and done flags. The same comparison runs the numpy engine and its torch twin
(``TorchTexas42Game``) on the CPU and, where torch sees one, on CUDA; three-player 42 and Texas 88
(docs/rules.md 3.7, 3.8) run on the numpy engine, which the torch one refuses by name.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
import torch

from domino_env.encoders.base import get_encoder
from domino_env.encoders.texas42_compact import compact_slots, encode_compact
from domino_env.envs.texas42_v0 import raw_env
from domino_env.rules.texas42 import (
    BID,
    DECLARE,
    DISCARD_PHASE,
    PASS,
    PLAY,
    TILES,
    Texas42Config,
    Texas42Game,
)
from domino_env.rules.tiles import iter_bits
from domino_env.vector import Batch, VectorTexas42Game, sample_legal, torch_batch
from domino_env.vector.texas42_torch import TorchTexas42Game
from domino_env.vector.torch_batch import seeded_generator

_NO_CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device")
ENGINES = [
    pytest.param(VectorTexas42Game, id="numpy"),
    pytest.param(partial(TorchTexas42Game, device="cpu"), id="torch-cpu"),
    pytest.param(partial(TorchTexas42Game, device="cuda"), id="torch-cuda", marks=_NO_CUDA),
]
Engine = Callable[..., Any]

# Every option of docs/rules.md 3.1-3.6 and of the environment (episode, reward) appears at least once.
CONFIGS = [
    dict(),
    dict(preset="n42pa", episode="game", target_marks=3),
    dict(forced_bid=True, reward="marks"),
    dict(follow_me_doubles="own_suit", stop_when_decided=False),
    dict(nello="high", sevens=True, reward="win_loss"),
    dict(nello="low", plunge=True, forced_bid=True),
    dict(nello="own_suit", sevens=True, plunge=True, episode="game", target_marks=4, reward="win_loss"),
    dict(nello="low", sevens=True, stop_when_decided=False, open_hands=True),
    dict(plunge=True, follow_me_doubles="own_suit", episode="game", reward="zero_sum"),
]
# Three-player 42 (every option it allows: no Plunge) and Texas 88 (no option but the episode's).
VARIANT_CONFIGS = [
    dict(num_players=3),
    dict(num_players=3, forced_bid=True, nello="low", sevens=True, reward="marks"),
    dict(num_players=3, follow_me_doubles="own_suit", stop_when_decided=False, episode="game", target_marks=3,
         reward="win_loss"),
    dict(num_players=3, nello="own_suit", sevens=True, open_hands=True, episode="game", target_marks=2),
    dict(preset="texas88"),
    dict(preset="texas88", episode="game", target_marks=3, reward="win_loss"),
    dict(preset="texas88", stop_when_decided=False, open_hands=True, reward="marks"),
]  # fmt: skip


def _host(values: Any) -> np.ndarray:
    """A numpy engine's array as is, a torch engine's tensor copied to a host array."""
    return values.cpu().numpy() if isinstance(values, torch.Tensor) else values


def _host_batch(batch: Batch) -> Batch:
    """Every field of a ``Batch`` as a host numpy array (torch engines return tensors)."""
    return Batch(*map(_host, batch))


def _ids(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items()) or "standard"


def _deal_row(game: Texas42Game) -> np.ndarray:
    """The reference's current deal as a permutation: seat ``i``'s tiles in the ``i``-th run of
    ``hand_size`` columns, then the Texas 88 kitty."""
    return np.array([t for hand in (*game.dealt, game.kitty) for t in iter_bits(hand)])


class Lockstep:
    """``num_envs`` reference environments mirrored by one batched engine (``engine``: its class)."""

    def __init__(self, options: dict, num_envs: int, seed: int, engine: Engine = VectorTexas42Game):
        self.rng = np.random.default_rng(seed)
        self.envs = [raw_env(observation_encoder="compact", **options) for _ in range(num_envs)]
        self.live = [False] * num_envs
        self.num_tiles = self.envs[0].config.variant.num_tiles
        self.vec = engine(num_envs, seed=seed, dealer=self._dealer, **options)
        self.batch = _host_batch(self.vec.reset())
        self.seen = dict.fromkeys(("hands", "reshakes", "forced", "plunge", "nello", "sevens", "discards"), 0)
        for g in range(num_envs):
            self._mirror(g)

    def _dealer(self, games: np.ndarray) -> np.ndarray:
        """Reshakes and later hands come from the reference's generator; new episodes from the test's."""
        return np.array(
            [_deal_row(self.envs[g].game) if self.live[g] else self.rng.permutation(self.num_tiles)
             for g in games]
        )

    def _mirror(self, g: int) -> None:
        """Reset reference ``g`` to the batched engine's fresh deal and shaker."""
        hands = [list(iter_bits(int(h))) for h in _host(self.vec.hands[g])]
        deal = {"hands": hands, "shaker": int(_host(self.vec.shaker[g]))}
        if self.envs[g].config.variant.kitty_size:
            deal["kitty"] = list(iter_bits(int(self.vec.kitty[g])))
        self.envs[g].reset(seed=int(self.rng.integers(2**32)), options={"deal": deal})
        self.live[g] = True

    def step(self, rng: np.random.Generator) -> None:
        mask = self.batch.mask
        actions = sample_legal(mask, rng)
        actions[mask[:, PASS] & (rng.random(len(actions)) < 0.6)] = PASS
        for env, a in zip(self.envs, actions, strict=True):
            game, seen, v = env.game, self.seen, env.game.variant
            scored = game.hands_scored
            seen["discards"] += game.phase == DISCARD_PHASE
            all_passed = game.phase == BID and game.current_player == game.shaker and game.bidder < 0
            seen["reshakes"] += all_passed and a == PASS
            seen["forced"] += all_passed and game.config.forced_bid
            env.step(int(a))
            seen["hands"] += game.hands_scored - scored
            seen["plunge"] += v.bid_plunge <= a < v.trump
            seen["nello"] += a == v.nello
            seen["sevens"] += a == v.sevens
        self.live = [not env.game.is_terminal for env in self.envs]
        self.batch = _host_batch(self.vec.step(actions))
        for g, env in enumerate(self.envs):
            assert self.batch.done[g] == env.game.is_terminal, f"game {g}: done differs"
            want = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
            np.testing.assert_array_equal(self.batch.rewards[g], want, err_msg=f"game {g}: rewards")
            if env.game.is_terminal:
                self._mirror(g)

    def check(self) -> None:
        b, marks = self.batch, _host(self.vec.marks)
        assert b.obs.shape == (len(self.envs), self.vec.obs_dim) and b.obs.dtype == np.float32
        assert b.seat.dtype == np.int64 and b.mask.dtype == bool and b.done.dtype == bool
        assert b.rewards.dtype == np.float32
        for g, env in enumerate(self.envs):
            game = env.game
            assert b.seat[g] == game.current_player, f"game {g}: seat {b.seat[g]} != {game.current_player}"
            assert marks[g].tolist() == game.marks, f"game {g}: marks"
            observed = env.observe(env.agent_selection)
            np.testing.assert_array_equal(b.mask[g], observed["action_mask"] == 1, err_msg=f"mask {g}")
            assert b.obs[g].tobytes() == observed["observation"].tobytes(), (
                f"game {g}: observation differs in entries "
                f"{np.flatnonzero(b.obs[g] != observed['observation']).tolist()}"
            )


def _run(options: dict, num_envs: int, steps: int, seed: int, engine: Engine = VectorTexas42Game) -> Lockstep:
    run = Lockstep(options, num_envs=num_envs, seed=seed, engine=engine)
    rng = np.random.default_rng(seed + 1)
    run.check()
    for _ in range(steps):
        run.step(rng)
        run.check()
    return run


def _check_exercised(options: dict, seen: dict[str, int]) -> None:
    """Enough hands scored, and every event the options allow happened at least once."""
    assert seen["hands"] >= 100, "too few hands scored: the comparison barely crossed a reset"
    wanted = {
        "reshakes": not options.get("forced_bid"),
        "forced": options.get("forced_bid"),
        "plunge": options.get("plunge"),
        "nello": options.get("nello"),
        "sevens": options.get("sevens"),
        "discards": options.get("preset") == "texas88",
    }
    assert all(seen[event] > 0 for event, on in wanted.items() if on), f"variant not exercised: {seen}"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", CONFIGS, ids=_ids)
def test_vector_equals_reference(options: dict, engine: Engine) -> None:
    _check_exercised(options, _run(options, num_envs=48, steps=130, seed=7, engine=engine).seen)


@pytest.mark.parametrize("options", VARIANT_CONFIGS, ids=_ids)
def test_vector_equals_reference_three_players_and_texas88(options: dict) -> None:
    """Three-player 42 (lone bidder, marks per player) and Texas 88 (six seats, two copies of every
    tile, kitty and discards, 149 actions) on the numpy engine, as the four-player game above."""
    _check_exercised(options, _run(options, num_envs=48, steps=200, seed=11).seen)


@pytest.mark.parametrize("options", [dict(num_players=3), dict(preset="texas88")], ids=_ids)
def test_torch_engine_refuses_three_players_and_texas88_by_name(options: dict) -> None:
    with pytest.raises(ValueError, match="TorchTexas42Game plays four-player 42 only.*VectorTexas42Game"):
        TorchTexas42Game(2, device="cpu", **options)


@pytest.mark.benchmark
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", CONFIGS, ids=_ids)
def test_vector_equals_reference_long(options: dict, engine: Engine) -> None:
    """The same comparison over many more games (``pytest -m benchmark``)."""
    _run(options, num_envs=200, steps=400, seed=3, engine=engine)


@pytest.mark.benchmark
@pytest.mark.parametrize("options", VARIANT_CONFIGS, ids=_ids)
def test_vector_equals_reference_three_players_and_texas88_long(options: dict) -> None:
    """The same comparison over many more games (``pytest -m benchmark``)."""
    _run(options, num_envs=200, steps=400, seed=3)


def test_compact_encoder_is_registered_and_sized_by_its_slots() -> None:
    env = raw_env(observation_encoder="compact", open_hands=True)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)["observation"]
    assert isinstance(get_encoder("texas42", "compact").encode(env.game.view(0)), np.ndarray)
    assert obs.shape == env.observation_space("player_0")["observation"].shape
    assert obs.shape == (VectorTexas42Game(1, open_hands=True).obs_dim,) == (380 + 84,)
    names = [s.name for s in compact_slots(Texas42Config())]
    assert names[:3] == ["hand", "unknown", "played"] and names[-1] == "marks"


def test_given_deals_and_shakers_start_the_first_hand() -> None:
    deals = np.stack([np.arange(28), np.arange(28)[::-1]])
    vec = VectorTexas42Game(2, seed=0)
    batch = vec.reset(deals=deals, shakers=np.array([3, 1]))
    assert batch.seat.tolist() == [0, 2]  # the seat left of the shaker bids first
    assert [TILES.names(int(h)) for h in vec.hands[0, :1]] == [TILES.names(0b1111111)]
    np.testing.assert_array_equal(batch.obs[1, :28], np.isin(np.arange(28), 27 - np.arange(14, 21)))
    np.testing.assert_array_equal(batch.mask[:, 0], [True, True])  # pass is legal for the first bidder


def test_texas88_deals_the_kitty_to_the_bid_winner_who_discards_non_count_tiles() -> None:
    vec = VectorTexas42Game(1, seed=0, preset="texas88")
    v = vec.variant
    batch = vec.reset(deals=np.arange(56)[None], shakers=np.array([5]))
    assert batch.seat.tolist() == [0] and batch.mask.shape == (1, 149) and batch.rewards.shape == (1, 6)
    assert vec.hands[0].tolist() == [0x1FF << (9 * s) for s in range(6)] and vec.kitty[0] == 0b11 << 54
    for action in (1, PASS, PASS, PASS, PASS, PASS):  # seat 0 bids 60, everyone else passes
        batch = vec.step(np.array([action]))
    assert vec.phase[0] == DISCARD_PHASE and batch.seat[0] == 0 and vec.hands[0, 0] == 0x1FF | 0b11 << 54
    # Seat 0 holds 0-0 ... 0-6, 1-1, 1-2 and the kitty's 5-6', 6-6': all but 0-5 (a count tile) may go.
    assert (np.flatnonzero(batch.mask[0]) - v.discard).tolist() == [0, 1, 2, 3, 4, 6, 7, 8, 54, 55]
    with pytest.raises(ValueError, match=f"illegal action {v.discard + 5} in game 0"):
        vec.step(np.array([v.discard + 5]))
    for tile in (0, 55):
        batch = vec.step(np.array([v.discard + tile]))
    discards = {s.name: s for s in vec.slots}["discards"]
    assert np.flatnonzero(batch.obs[0, discards.start : discards.start + 56]).tolist() == [0, 55]
    assert np.flatnonzero(batch.mask[0]).tolist() == list(range(v.trump, v.trump_doubles + 1))


@pytest.mark.parametrize("options", [dict(num_players=3), dict(preset="texas88")], ids=_ids)
@pytest.mark.parametrize("encoder", ["default", "compact"])
def test_declaration_slot_counts_from_the_variants_trump_id(options: dict, encoder: str) -> None:
    """Three-player 42 and Texas 88 bid 14 ways (42: 12), so ``trump 0`` has another id: its one-hot
    entry is still the slot's first (it once landed two entries on, and Sevens in the next slot)."""
    env = raw_env(observation_encoder=encoder, **options)
    env.reset(seed=0)
    game, v = env.game, env.game.variant
    game.apply(1)  # the lowest point bid, then everyone passes (88: two discards)
    while game.phase != DECLARE:
        game.apply(game.legal_actions()[0])
    game.apply(v.trump)
    slot = {s.name: s for s in get_encoder("texas42", encoder).slots(game.config)}["declaration"]
    obs = get_encoder("texas42", encoder).encode(game.view(game.current_player))
    assert np.flatnonzero(obs[slot.start : slot.start + slot.length]).tolist() == [0]


def test_deals_must_be_permutations() -> None:
    vec = VectorTexas42Game(2, seed=0)
    deals = np.stack([np.arange(28), np.arange(28)])
    deals[1, 0] = 27  # tile 27 dealt twice, tile 0 never
    with pytest.raises(ValueError, match="permutations"):
        vec.reset(deals=deals)


def test_illegal_action_is_refused_and_names_the_legal_ones() -> None:
    vec = VectorTexas42Game(3, seed=0)
    batch = vec.reset()
    actions = batch.mask.argmax(axis=1)
    actions[1] = PLAY  # a tile during the auction
    with pytest.raises(ValueError, match=r"illegal action 35 in game 1 .*legal: \[0, 1,"):
        vec.step(actions)


def test_unseen_counts_follow_the_contract_in_force() -> None:
    """With 5s trump the 5-4 is a trump, not a four; before the declaration it counts in both numbers."""
    game = Texas42Game(Texas42Config(), np.random.default_rng(0), deal={"hands": _deal_hands(), "shaker": 3})
    lay = {s.name: s for s in compact_slots(game.config)}
    unseen = slice(lay["unseen"].start, lay["unseen"].start + 9)
    before = encode_compact(game.view(0))[unseen] * 7
    # Seat 0 holds 6-0 ... 6-5 and 5-5: six unknown tiles of 0-4 each, five 5s, one 6 (6-6).
    np.testing.assert_array_equal(before, [6, 6, 6, 6, 6, 5, 1, 0, 0])
    for action in ("bid 30", "pass", "pass", "pass", "trump 5"):
        game.apply(game.action_from_text(action))
    after = encode_compact(game.view(0))[unseen] * 7
    # The five unknown 5s are now trumps, and 0-4 each lose their five to the trump suit.
    np.testing.assert_array_equal(after, [5, 5, 5, 5, 5, 0, 1, 5, 0])


def _deal_hands() -> list[list[str]]:
    sixes = ["6-0", "6-1", "6-2", "6-3", "6-4", "6-5", "5-5"]
    rest = [TILES.name(t) for t in range(28) if TILES.name(t) not in sixes and t != TILES.index(6, 6)]
    rest.append("6-6")
    return [sixes, rest[:7], rest[7:14], rest[14:]]


# ----- the torch engine's own API ------------------------------------------------------------
DEVICES = ["cpu", pytest.param("cuda", marks=_NO_CUDA)]


def _state(engine: TorchTexas42Game) -> dict[str, torch.Tensor]:
    """Every tensor of a torch engine, copied (its whole state but the generator)."""
    return {name: value.clone() for name, value in vars(engine).items() if isinstance(value, torch.Tensor)}


def _random_actions(batch: Batch, generator: torch.Generator) -> torch.Tensor:
    return torch_batch.sample_legal(batch.mask, generator)


@pytest.mark.parametrize("device", DEVICES)
def test_torch_illegal_action_is_refused_naming_the_legal_ones_and_changes_nothing(device: str) -> None:
    engine = TorchTexas42Game(3, seed=0, device=device)
    batch = engine.reset()
    before = _state(engine)
    actions = batch.mask.long().argmax(dim=1)
    actions[1] = PLAY  # a tile during the auction
    with pytest.raises(ValueError, match=r"illegal action 35 in game 1; legal there: \[0, 1, "):
        engine.step(actions)
    with pytest.raises(ValueError, match="integer"):
        engine.step(actions.float())
    with pytest.raises(ValueError, match="shape"):
        engine.step(actions[:2])
    after = _state(engine)
    assert after.keys() == before.keys() and all(torch.equal(after[k], before[k]) for k in before)
    actions[1] = PASS
    batch = engine.step(actions.tolist())  # any integer array-like plays
    assert batch.seat.device.type == device and batch.done.tolist() == [False] * 3


@pytest.mark.parametrize("device", DEVICES)
def test_torch_given_deals_and_shakers_start_the_first_hand(device: str) -> None:
    deals = np.stack([np.arange(28), np.arange(28)[::-1]])
    engine = TorchTexas42Game(2, seed=0, device=device)
    batch = engine.reset(deals=torch.as_tensor(deals), shakers=np.array([3, 1]))
    assert batch.seat.tolist() == [0, 2]  # the seat left of the shaker bids first
    assert engine.shaker.tolist() == [3, 1] and engine.marks.tolist() == [[0, 0], [0, 0]]
    assert engine.hands[0].tolist() == [0x7F << (7 * i) for i in range(4)]
    tiles = engine.hand_tiles.cpu().numpy()
    assert tiles.shape == (2, 4, 28) and tiles.dtype == bool
    np.testing.assert_array_equal(tiles[1, 2], np.isin(np.arange(28), 27 - np.arange(14, 21)))
    obs = batch.obs.cpu().numpy()
    np.testing.assert_array_equal(obs[1, :28], np.isin(np.arange(28), 27 - np.arange(14, 21)))
    assert batch.mask[:, PASS].tolist() == [True, True]  # pass is legal for the first bidder
    with pytest.raises(ValueError, match="permutations"):
        engine.reset(deals=np.stack([np.arange(28), np.zeros(28, np.int64)]))
    with pytest.raises(ValueError, match="shakers"):
        engine.reset(shakers=[0, 4])


@pytest.mark.parametrize("draw_ahead", [False, True], ids=["draw-when-needed", "draw-ahead"])
@pytest.mark.parametrize("device", DEVICES)
def test_torch_seeds_fix_the_deals(device: str, draw_ahead: bool) -> None:
    """The same seed deals the same games (first and later hands), another seed others. Both ways of
    drawing deals run here: on demand (the CPU's) and drawn ahead (an accelerator's)."""

    def play(seed: int) -> list[list[list[int]]]:
        engine = TorchTexas42Game(16, seed=seed, device=device)
        engine._draw_ahead = draw_ahead
        batch, generator = engine.reset(), seeded_generator(0, engine.device)
        hands = [engine.hands.tolist()]
        for _ in range(60):
            batch = engine.step(_random_actions(batch, generator))
            hands.append(engine.hands.tolist())
        return hands

    first = play(1)
    assert play(1) == first
    assert play(2)[0] != first[0]


@pytest.mark.parametrize("num_envs", [1, 16])
@pytest.mark.parametrize("device", DEVICES)
def test_torch_deals_drawn_ahead_are_fresh_valid_deals(device: str, num_envs: int) -> None:
    """Drawn ahead (a quarter of the games redrawn per step), no game gets a deal twice."""
    engine = TorchTexas42Game(num_envs, seed=5, device=device)
    engine._draw_ahead = True
    batch, generator = engine.reset(), seeded_generator(6, engine.device)
    deals = set()
    for _ in range(250):
        fresh = (engine.bids == -1).all(dim=1).tolist()  # a new hand: no bid yet
        for hands, new in zip(engine.hands.tolist(), fresh, strict=True):
            if new:
                assert sorted(bin(h).count("1") for h in hands) == [7] * 4
                assert hands[0] | hands[1] | hands[2] | hands[3] == TILES.full_mask
                assert tuple(hands) not in deals, "a deal came twice"
                deals.add(tuple(hands))
        batch = engine.step(_random_actions(batch, generator))
    assert len(deals) > 8 * num_envs


@pytest.mark.parametrize("device", DEVICES)
def test_torch_unchecked_actions_play_the_same(device: str) -> None:
    options = dict(nello="low", sevens=True, plunge=True, episode="game", target_marks=3)
    checked = TorchTexas42Game(32, seed=4, device=device, **options)
    trusted = TorchTexas42Game(32, seed=4, device=device, check_actions=False, **options)
    generator = seeded_generator(9, checked.device)
    a, b = checked.reset(), trusted.reset()
    for _ in range(150):
        for x, y in zip(a, b, strict=True):
            assert torch.equal(x, y)
        actions = _random_actions(a, generator)
        a, b = checked.step(actions), trusted.step(actions)
    assert checked.marks.tolist() == trusted.marks.tolist()
