"""The batched Mexican Train engine equals the reference step by step, over every option it plays.

The reference is ``mexican_train_v0.raw_env`` (the rules engine ``MexicanTrainGame``, its rewards and
the compact encoder) with one environment per game. Both sides get the same deals and the same first
player by lot (the batched engine deals through its ``dealer`` hook and each environment is reset to
that deal; a match's later rounds come from the environment's own generator, which the hook copies)
and the same random legal actions. Every step compares seat, legal mask, compact observation (bit for
bit), every seat's reward, match scores and done flags.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from domino_env.bots.mexican_train import sample_world
from domino_env.encoders.mexican_train_compact import (
    CompactMexicanTrainEncoder,
    coverable_doubles,
    known_voids,
    plan_bits,
)
from domino_env.envs.mexican_train_v0 import raw_env
from domino_env.games import MEXICAN_TRAIN
from domino_env.rules.mexican_train import (
    DOUBLE_TILE,
    NUM_TILES,
    SUIT,
    TILE_HIGH,
    TILE_LOW,
    MexicanTrainGame,
    engine_value,
)
from domino_env.vector.batch import hidden_hands, sample_legal
from domino_env.vector.mexican_train import VectorMexicanTrainGame, _home_plans
from vector.refusals import BAD_ACTIONS, check_bad_actions_refused

# 2 to 8 players, both presets and every option of RULES-new-games.md 3.1 the batched engine plays,
# and the environment's episode and reward options. Small hands end rounds often.
CONFIGS = [
    dict(num_players=2),
    dict(num_players=3, episode="match", rounds=3, hand_size=6, reward="penalty"),
    dict(num_players=4, preset="cardinal"),
    dict(num_players=4, hand_size=4, episode="match", rounds=13, reward="win_loss"),
    dict(num_players=5, own_train_first=False, blank_scoring="double_blank_50", hand_size=5),
    dict(num_players=6, preset="cardinal", opening="single", hand_size="fundex", open_hands=True),
    dict(num_players=7, unsatisfiable_double="stand", hand_size=4, episode="match", rounds=2),
    dict(num_players=8, preset="cardinal", blank_scoring="blank_halves_25", episode="match", rounds=2),
    dict(num_players=3, engine_source="holder", opening="run", own_train_first=False, hand_size=7),
    dict(num_players=2, preset="cardinal", hand_size=12, open_hands=True, reward="win_loss", episode="match",
         rounds=2),
    dict(num_players=4, hand_size=5, first_round=9),
    dict(num_players=3, hand_size=5, episode="match", first_round=11, reward="win_loss"),
    dict(num_players=4, hand_size=5, first_round="random"),
]
CONFIG_IDS = {"ids": lambda o: "-".join(f"{k}={v}" for k, v in o.items())}


def _deal_row(game: MexicanTrainGame) -> np.ndarray:
    """The reference's current round as a dealt permutation: hands, boneyard, then the set-aside engine."""
    deal = json.loads(game.to_json())["deal"]
    order = [t for hand in deal["hands"] for t in hand] + deal["boneyard"]
    return np.array(order + sorted(set(range(NUM_TILES)) - set(order)))


class Lockstep:
    """``num_envs`` reference environments mirrored by one ``VectorMexicanTrainGame``."""

    def __init__(self, options: dict, num_envs: int, seed: int):
        self.rng = np.random.default_rng(seed)
        self.envs = [raw_env(observation_encoder="compact", **options) for _ in range(num_envs)]
        self.options, self.config = options, self.envs[0].config
        self.live = [False] * num_envs
        self.rounds_ended = 0
        self.vec = VectorMexicanTrainGame(num_envs, seed=seed, dealer=self._dealer, **options)
        self.batch = self.vec.reset()
        for g in range(num_envs):
            self._mirror(g)

    def _dealer(self, games: np.ndarray) -> np.ndarray:
        """A match's later rounds come from the reference; new episodes from the test's generator."""
        return np.array([_deal_row(self.envs[g].game) if self.live[g] else self.rng.permutation(NUM_TILES)
                         for g in games])

    def _mirror(self, g: int) -> None:
        """Reset reference ``g`` to the batched engine's fresh deal, first seat by lot and, when it is
        drawn (``first_round="random"``, one round), first round."""
        cfg, vec = self.config, self.vec
        if cfg.first_round == "random":
            start = int(vec.round_index[g]) + 1
            self.envs[g] = raw_env(observation_encoder="compact", **{**self.options, "first_round": start})
        h, n = cfg.hand_size, cfg.num_players
        order = vec.order[g].tolist()
        self.envs[g].reset(seed=int(self.rng.integers(2**32)), options={"deal": {
            "hands": [order[i * h:(i + 1) * h] for i in range(n)],
            "boneyard": order[n * h: NUM_TILES - (cfg.engine_source == "set_aside")],
            "first_player": int(vec.nominal_first[g]),
        }})
        self.live[g] = True

    def step(self, actions: np.ndarray) -> None:
        for env, a in zip(self.envs, actions, strict=True):
            rounds = len(env.game.results)
            env.step(int(a))
            self.rounds_ended += len(env.game.results) > rounds
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
            assert b.seat[g] == game.current_player, f"game {g}: seat {b.seat[g]} != {game.current_player}"
            assert self.vec.scores[g].tolist() == game.scores, f"game {g}: scores"
            observed = env.observe(env.agent_selection)
            np.testing.assert_array_equal(b.mask[g], observed["action_mask"] == 1, err_msg=f"game {g}: mask")
            assert b.obs[g].tobytes() == observed["observation"].tobytes(), (
                f"game {g}: observation differs in slots "
                f"{np.flatnonzero(b.obs[g] != observed['observation']).tolist()}"
            )


@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_vector_equals_reference(options: dict) -> None:
    run = Lockstep(options, num_envs=16, seed=7)
    rng = np.random.default_rng(11)
    run.check()
    for _ in range(200):
        run.step(sample_legal(run.batch.mask, rng))
        run.check()
    assert run.rounds_ended >= 8, "too few rounds finished: the comparison barely crossed a deal"


def test_first_round_random_deals_every_engine() -> None:
    """``first_round="random"`` draws each new episode's round (the lockstep above mirrors the draw)."""
    vec = VectorMexicanTrainGame(256, seed=3, hand_size=4, first_round="random")
    batch = vec.reset()
    assert set(vec.round_index.tolist()) == set(range(13))
    np.testing.assert_array_equal(vec.ends, np.repeat(12 - vec.round_index[:, None], 5, axis=1))
    rng, redealt = np.random.default_rng(0), []
    for _ in range(100):
        batch = vec.step(sample_legal(batch.mask, rng))
        redealt += vec.round_index[batch.done].tolist()
    assert len(redealt) > 200 and set(redealt) == set(range(13))


@pytest.mark.benchmark
@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_vector_equals_reference_long(options: dict) -> None:
    """The same comparison over three times as many games, two and a half times as long
    (``pytest -m benchmark``; minutes per option set: the reference replays each round's history)."""
    run = Lockstep(options, num_envs=48, seed=3)
    rng = np.random.default_rng(5)
    for _ in range(500):
        run.step(sample_legal(run.batch.mask, rng))
        run.check()


@pytest.mark.parametrize("unsatisfiable_double", ["lapse", "stand"])
def test_doubles_that_can_never_be_covered(unsatisfiable_double: str) -> None:
    """Big hands make long rounds, where doubles are played whose every cover is already in a train
    (section 3.4, M7): they lapse, or stand until the round blocks, as in the reference."""
    options = dict(num_players=3, hand_size=25, own_train_first=False)
    run = Lockstep({**options, "unsatisfiable_double": unsatisfiable_double}, num_envs=16, seed=5)
    rng, uncoverable = np.random.default_rng(6), 0
    for _ in range(200):
        actions = sample_legal(run.batch.mask, rng)
        tile = np.minimum(actions // 4, NUM_TILES - 1)
        double = (actions < NUM_TILES * 4) & (TILE_LOW[tile] == TILE_HIGH[tile]) & ~run.vec.in_run
        uncoverable += int((double & (run.vec.numbers_out[np.arange(16), TILE_LOW[tile]] == 12)).sum())
        run.step(actions)
        run.check()
    assert uncoverable >= 2, "no double without a cover left was played: the case went untested"


def test_hidden_hands_are_the_other_seats_hands() -> None:
    """The public ``hands`` bit sets feed ``vector.batch.hidden_hands`` (the centralized critic)."""
    vec = VectorMexicanTrainGame(4, seed=2, num_players=3)
    batch = vec.reset()
    hidden = hidden_hands(vec, batch.seat, NUM_TILES).reshape(4, 2, NUM_TILES)
    for g in range(4):
        for r in (1, 2):
            hand = vec.hands[g, (batch.seat[g] + r) % 3]
            held = np.unpackbits(hand.view(np.uint8), count=NUM_TILES, bitorder="little")
            np.testing.assert_array_equal(hidden[g, r - 1], held)


def test_voids_are_sound() -> None:
    """Every void the compact encoder states holds for a seat not to act: it has no tile of that number."""
    for options in (dict(num_players=3), dict(num_players=4, preset="cardinal"),
                    dict(num_players=5, unsatisfiable_double="stand", own_train_first=False)):
        config = MEXICAN_TRAIN.config(**options)
        game, rng = MexicanTrainGame(config, np.random.default_rng(3)), np.random.default_rng(4)
        for _ in range(600):
            if game.is_terminal:
                game = MexicanTrainGame(config, np.random.default_rng(int(rng.integers(99))))
            for seat, voids in enumerate(known_voids(game.view(0))):
                if seat != game.current_player:
                    for v in range(13):
                        assert not (voids >> v & 1 and game.hands[seat] & SUIT[v]), (options, seat, v)
            game.apply(int(rng.choice(game.legal_actions())))


def test_sizes_match_the_config() -> None:
    for options in CONFIGS:
        vec = VectorMexicanTrainGame(2, seed=0, **options)
        config = MEXICAN_TRAIN.config(**options)
        batch = vec.reset()
        assert batch.obs.shape == (2, vec.obs_dim) and batch.mask.shape == (2, config.num_actions)


def test_same_seed_same_deals_other_seed_other_deals() -> None:
    def run(seed: int) -> list[np.ndarray]:
        vec = VectorMexicanTrainGame(16, seed=seed, num_players=3)
        batch, rng = vec.reset(), np.random.default_rng(0)
        out = [batch.obs]
        for _ in range(60):
            batch = vec.step(sample_legal(batch.mask, rng))
            out.append(batch.obs)
        return out

    first, again, other = run(5), run(5), run(6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])


@pytest.mark.parametrize("bad", BAD_ACTIONS)
def test_illegal_action_is_refused_and_leaves_state_untouched(bad: str) -> None:
    check_bad_actions_refused(VectorMexicanTrainGame(8, seed=1, num_players=4), bad)


def test_reset_deals_the_given_hands_and_boneyard() -> None:
    deals = np.stack([np.random.default_rng(k).permutation(NUM_TILES) for k in range(3)])
    vec = VectorMexicanTrainGame(3, seed=0, num_players=2, hand_size=10)
    vec.reset(deals)
    engine = DOUBLE_TILE[engine_value(0)]
    for g, deal in enumerate(deals.tolist()):
        deal.remove(engine)
        for seat in (0, 1):
            held = np.unpackbits(vec.hands[g, seat].view(np.uint8), bitorder="little")
            assert np.flatnonzero(held).tolist() == sorted(deal[10 * seat:10 * seat + 10])
        assert vec.order[g, vec.ptr[g]:90].tolist() == deal[20:]
    with pytest.raises(ValueError, match="permutations"):
        vec.reset(np.zeros((3, NUM_TILES), np.int64))


def test_options_it_cannot_play_are_refused() -> None:
    """``double_bonus="any"`` keeps several open doubles: the registry offers no batched engine for it
    (the trainer falls back) and the engine refuses it naming the option."""
    assert MEXICAN_TRAIN.vector_class(MEXICAN_TRAIN.config(double_bonus="any")) is None
    assert MEXICAN_TRAIN.vector_class(MEXICAN_TRAIN.config(preset="cardinal")) is VectorMexicanTrainGame
    with pytest.raises(ValueError, match="double_bonus"):
        VectorMexicanTrainGame(2, double_bonus="any")
    with pytest.raises(ValueError, match="episode"):
        VectorMexicanTrainGame(2, episode="hand")
    with pytest.raises(ValueError, match="reward"):
        VectorMexicanTrainGame(2, reward="points")
    with pytest.raises(ValueError, match="num_players"):
        VectorMexicanTrainGame(2, num_players=9)
    with pytest.raises(ValueError, match="num_envs"):
        VectorMexicanTrainGame(0)


def test_compiled_home_plans_equal_the_encoder() -> None:
    """The compiled ``plan``, ``plan_first`` and ``coverable`` slots equal the encoder's Python ones on
    random hands up to 70 tiles: random games rarely reach the hands of 40 and more where the chain
    search stops at ``CHAIN_NODES`` positions, and there the two must stop alike."""
    rng = np.random.default_rng(11)
    hands = [sum(1 << int(t) for t in rng.choice(NUM_TILES, size=int(size), replace=False))
             for size in rng.integers(1, 71, size=400)]
    ends = rng.integers(13, size=len(hands))
    words = [np.array([h >> (64 * w) & (2**64 - 1) for h in hands], np.uint64) for w in range(2)]
    plan, first, (coverable,) = _home_plans(words, ends)
    for i, (hand, end) in enumerate(zip(hands, ends.tolist(), strict=True)):
        want_plan, want_first = plan_bits(end, hand)
        assert int(plan[0][i]) | int(plan[1][i]) << 64 == want_plan, f"hand {i}"
        assert int(first[0][i]) | int(first[1][i]) << 64 == want_first, f"hand {i}"
        assert int(coverable[i]) == coverable_doubles(hand), f"hand {i}"
    assert sum(bool(plan_bits(end, hand)[0]) for hand, end in zip(hands, ends.tolist(), strict=True)) > 300


# Mid-round positions loaded into the batched engine: a search's worlds (``MexicanTrainGame.at_position``)
# and positions of real play, every option set of the batched engine but the open-hands ones, and long
# rounds where doubles without a cover stand or lapse (several trains end in doubles).
POSITION_CONFIGS = [o for o in CONFIGS if not o.get("open_hands")] + [
    dict(num_players=3, hand_size=25, own_train_first=False, unsatisfiable_double=rule)
    for rule in ("stand", "lapse")
]


def _positions(options: dict, count: int, seed: int) -> list[MexicanTrainGame]:
    """``count`` live positions of random play, each a sampled world of its seat's view half the time."""
    config = MEXICAN_TRAIN.config(**options)
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        game = MexicanTrainGame(config, np.random.default_rng(int(rng.integers(2**31))))
        for _ in range(int(rng.integers(1, 150))):
            if game.is_terminal:
                break
            game.apply(int(rng.choice(game.legal_actions())))
        if not game.is_terminal and game.history:
            out.append(sample_world(game.view(game.current), rng) if rng.random() < 0.5 else game.clone())
    return out


@pytest.mark.parametrize("options", POSITION_CONFIGS, **CONFIG_IDS)
def test_set_positions_then_play_equals_reference(options: dict) -> None:
    """Loaded rows show the reference's mask and compact observation bit for bit, and playing the same
    random legal moves on both keeps them equal to the round's end, with the same round points."""
    options = {k: v for k, v in options.items() if k not in ("episode", "reward", "rounds")}
    _check_loaded_play(options, _positions(options, 30, seed=len(options)))


def _ends_in_double(game: MexicanTrainGame, train: int) -> bool:
    laid = game.trains[train]
    return bool(laid) and bool(TILE_LOW[laid[-1][0]] == TILE_HIGH[laid[-1][0]])


def test_set_positions_keeps_the_play_order_of_doubles() -> None:
    """With several trains ending in doubles (lapsed ones that can never be covered), a pass proves the
    seat lacks the number of the double laid *first*: the loaded rows must know that order
    (``double_at``), or the voids, and with them the observations, part from the reference's."""
    options = dict(num_players=3, hand_size=25, own_train_first=False, unsatisfiable_double="lapse")
    config, rng, positions = MEXICAN_TRAIN.config(**options), np.random.default_rng(7), []
    while len(positions) < 30:
        game = MexicanTrainGame(config, np.random.default_rng(int(rng.integers(2**31))))
        while not game.is_terminal and len(positions) < 30:
            if sum(_ends_in_double(game, train) for train in range(len(game.trains))) >= 2:
                positions.append(game.clone())
            game.apply(int(rng.choice(game.legal_actions())))
    _check_loaded_play(options, positions)


def _check_loaded_play(options: dict, positions: list[MexicanTrainGame]) -> None:
    """Load ``positions`` twice each (the second time copied from the first) into a batched engine of
    ``options``, then compare it with the reference under the same random play to each round's end."""
    vec = VectorMexicanTrainGame(64, seed=1, reward="penalty", **options)
    vec.reset()
    rows = np.arange(2, 2 + 2 * len(positions))
    batch = vec.set_positions(rows, positions + positions)  # each loaded once, then copied
    for name, state in vars(vec).items():  # every public per-game array: the copy equals its source
        if isinstance(state, np.ndarray) and not name.startswith("_") and len(state) == vec.num_envs:
            np.testing.assert_array_equal(state[rows[:len(positions)]], state[rows[len(positions):]],
                                          err_msg=name)
    games = [game.clone() for game in positions + positions]
    encoder, rng, live = CompactMexicanTrainEncoder(), np.random.default_rng(2), list(range(len(games)))
    while live:
        for i in live:
            game, row = games[i], rows[i]
            obs, mask = encoder.encode_with_mask(game.view(game.current), game.num_actions)
            assert batch.seat[row] == game.current
            np.testing.assert_array_equal(batch.mask[row], mask == 1, err_msg=f"game {i}: mask")
            assert batch.obs[row].tobytes() == obs.tobytes(), (
                f"game {i}: observation differs in slots {np.flatnonzero(batch.obs[row] != obs).tolist()}")
        actions = sample_legal(batch.mask, rng)
        rounds = [len(game.results) for game in games]
        for i in live:
            games[i].apply(int(actions[rows[i]]))
        batch = vec.step(actions)
        for i in list(live):
            if len(games[i].results) > rounds[i]:
                assert batch.done[rows[i]] or options.get("episode") == "match"
                np.testing.assert_array_equal(-batch.rewards[rows[i]], games[i].results[-1].round_points)
                live.remove(i)
            else:
                assert not batch.rewards[rows[i]].any()


def test_set_positions_refuses_what_it_cannot_load() -> None:
    """Bad rows, games of other rules or finished, and scripted positions are refused naming the
    problem, before any row changes."""
    vec = VectorMexicanTrainGame(4, seed=0, num_players=3)
    vec.reset()
    before = {name: np.copy(state) for name, state in vars(vec).items() if isinstance(state, np.ndarray)}
    def new(**options) -> MexicanTrainGame:
        return MexicanTrainGame(MEXICAN_TRAIN.config(**options), np.random.default_rng(0))

    game, cardinal, other = new(num_players=3), new(num_players=3, preset="cardinal"), new(num_players=4)
    scripted = MexicanTrainGame(MEXICAN_TRAIN.config(num_players=3), np.random.default_rng(0),
                                deal={"hands": [[1, 2], [3, 4], [5, 6]], "boneyard": [7],
                                      "trains": [[], [], [], ["11-12"]]})
    for rows, games, message in [([0, 0], [game, game], "distinct row indices"), ([4], [game], "0..3"),
                                 ([0, 1], [game, other], r"games\[1\] is not a live round"),
                                 ([1, 0], [game, cardinal], "rules"),
                                 ([0, 1], [game, scripted], "history")]:
        with pytest.raises(ValueError, match=message):
            vec.set_positions(rows, games)
        for name, state in before.items():
            np.testing.assert_array_equal(getattr(vec, name), state, err_msg=name)
    with pytest.raises(ValueError, match="other rules"):
        vec.copy_rows(VectorMexicanTrainGame(4, seed=0, num_players=3, preset="cardinal"), [0], [1])
