"""The batched fives engine equals the reference step by step, over every option.

The reference is ``fives_v0.raw_env`` (the rules engine ``FivesGame``, its rewards and the compact
encoder) with one environment per game. Both sides get the same deals and the same leaders by lot
(the batched engine through its ``dealer`` hook; each environment through
``reset(options={"deal": ...})`` and then its own generator for later hands, which the hook copies)
and the same random legal actions. Every step compares seat, legal mask, compact observation (bit
for bit), every seat's reward, match scores and done flags.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from domino_env.encoders.fives_compact import compact_slots, encode_compact, known_voids
from domino_env.envs.fives_v0 import raw_env
from domino_env.games import FIVES
from domino_env.rules.fives import NUM_TILES, FivesGame
from domino_env.rules.tiles import DOUBLE_SIX
from domino_env.vector.batch import sample_legal
from domino_env.vector.fives import VectorFivesGame
from vector.refusals import BAD_ACTIONS, check_bad_actions_refused

# Every option of RULES-new-games.md 2.1 and 4.1 and of the environment (episode, reward) appears.
CONFIGS = [
    dict(variant="all_fives", num_players=2),
    dict(variant="all_fives", num_players=3, episode="hand", reward="points"),
    dict(variant="all_fives", num_players=4, teams=True, reward="win_loss", target_score=50),
    dict(variant="all_fives", num_players=4, preset="classic", spinner="none", draw_policy="may_draw",
         draw_reserve=2, episode="hand"),
    dict(variant="all_fives", num_players=2, lead_rule="highest_double", next_leader="rotate",
         double_count="one_half", hand_rounding="exact", blocked_scoring="others_minus_own", target_score=60),
    dict(variant="all_fives", num_players=3, score_unit="fives", target_check="end_of_hand", target_score=10,
         reward="win_loss"),
    dict(variant="all_fives", num_players=2, preset="classic", hand_size=5, open_hands=True, target_score=40),
    dict(variant="all_fives", num_players=4, teams=True, target_check="end_of_hand", draw_reserve=4,
         draw_policy="may_draw", target_score=60, lead_rule="highest_double"),
    dict(variant="fives_and_threes", num_players=2),
    dict(variant="fives_and_threes", num_players=4, teams=True, target_score="exact_61", reward="points"),
    dict(variant="fives_and_threes", num_players=3, episode="hand", chip_out_bonus=0, reward="win_loss"),
    dict(variant="fives_and_threes", num_players=4, teams=False, open_hands=True, target_score=20),
]
CONFIG_IDS = {"ids": lambda o: "-".join(f"{k}={v}" for k, v in o.items())}


def _deal_row(game: FivesGame) -> np.ndarray:
    """The reference's current hand as a dealt permutation: hands, stock, then the out-of-play tiles."""
    deal = json.loads(game.to_json())["deal"]
    order = [t for hand in deal["hands"] for t in hand] + deal["stock"]
    return np.array(order + sorted(set(range(NUM_TILES)) - set(order)))


class Lockstep:
    """``num_envs`` reference environments mirrored by one ``VectorFivesGame``."""

    def __init__(self, options: dict, num_envs: int, seed: int):
        self.rng = np.random.default_rng(seed)
        self.envs = [raw_env(observation_encoder="compact", **options) for _ in range(num_envs)]
        self.config = self.envs[0].config
        self.live = [False] * num_envs
        self.hands_ended = 0  # hands finished so far (a match's later hands, or whole episodes)
        self.vec = VectorFivesGame(num_envs, seed=seed, dealer=self._dealer, **options)
        self.batch = self.vec.reset()
        for g in range(num_envs):
            self._mirror(g)

    def _dealer(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Later hands and their leaders come from the reference; new matches from the test's generator."""
        n, live = self.config.num_players, self.live
        deals = [_deal_row(self.envs[g].game) if live[g] else self.rng.permutation(NUM_TILES) for g in games]
        leaders = [self.envs[g].game.leader if live[g] else self.rng.integers(n) for g in games]
        return np.array(deals), np.array(leaders)

    def _mirror(self, g: int) -> None:
        """Reset reference ``g`` to the batched engine's fresh deal (and leader, where drawn by lot)."""
        cfg, deal = self.config, self.vec.deal[g].tolist()
        h, n = cfg.hand_size, cfg.num_players
        leader = None if cfg.lead_rule == "highest_double" else int(self.vec.leader[g])
        self.envs[g].reset(seed=int(self.rng.integers(2**32)), options={"deal": {
            "hands": [deal[i * h:(i + 1) * h] for i in range(n)],
            "stock": deal[n * h:] if cfg.is_all_fives else [],
            "leader": leader,
        }})
        self.live[g] = True

    def step(self, rng: np.random.Generator) -> None:
        actions = sample_legal(self.batch.mask, rng)
        for env, a in zip(self.envs, actions, strict=True):
            hand = env.game.hand_index
            env.step(int(a))
            self.hands_ended += env.game.is_terminal or env.game.hand_index > hand
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
            np.testing.assert_array_equal(b.mask[g], observed["action_mask"] == 1, err_msg=f"game {g}: mask")
            assert b.obs[g].tobytes() == observed["observation"].tobytes(), (
                f"game {g}: observation differs in slots "
                f"{np.flatnonzero(b.obs[g] != observed['observation']).tolist()}"
            )


@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_vector_equals_reference(options: dict) -> None:
    run = Lockstep(options, num_envs=24, seed=7)
    rng = np.random.default_rng(11)
    run.check()
    for _ in range(120):
        run.step(rng)
        run.check()
    assert run.hands_ended >= 20, "too few hands finished: the comparison barely crossed a deal"


@pytest.mark.benchmark
@pytest.mark.parametrize("options", CONFIGS, **CONFIG_IDS)
def test_vector_equals_reference_long(options: dict) -> None:
    """The same comparison over eight times as many games (``pytest -m benchmark``)."""
    run = Lockstep(options, num_envs=200, seed=3)
    rng = np.random.default_rng(5)
    for _ in range(300):
        run.step(rng)
        run.check()


def test_voids_are_sound() -> None:
    """Every void the encoder states holds for a seat not to act (the only seats whose voids an
    observation shows): it really has no tile of that number. (The seat to act may be drawing.)"""
    for options in (dict(variant="all_fives", num_players=3),
                    dict(variant="all_fives", draw_policy="may_draw"),
                    dict(variant="fives_and_threes", num_players=4)):
        config = FIVES.config(**options)
        game, rng = FivesGame(config, np.random.default_rng(3)), np.random.default_rng(4)
        for _ in range(400):
            if game.is_terminal:
                game = FivesGame(config, np.random.default_rng(int(rng.integers(99))))
            for seat, voids in enumerate(known_voids(game.view(0))):
                if seat == game.current_player:
                    continue
                for v in range(7):
                    if voids >> v & 1:
                        assert not game.hands[seat] & DOUBLE_SIX.suit_mask[v], (options, seat, v)
            game.apply(int(rng.choice(game.legal_actions())))


def test_obs_dim_matches_the_slots() -> None:
    for options in CONFIGS:
        vec = VectorFivesGame(2, seed=0, **options)
        config = FIVES.config(**options)
        last = compact_slots(config)[-1]
        assert vec.obs_dim == last.start + last.length == vec.reset().obs.shape[1]
        assert vec.num_actions == config.num_actions == vec.reset().mask.shape[1]


def test_same_seed_same_deals_other_seed_other_deals() -> None:
    def run(seed: int) -> list[np.ndarray]:
        vec = VectorFivesGame(16, seed=seed, num_players=3)
        out, rng = [vec.reset().obs], np.random.default_rng(0)
        for _ in range(60):
            batch = vec.step(sample_legal(vec._mask, rng))
            out.append(batch.obs)
        return out

    first, again, other = run(5), run(5), run(6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])


@pytest.mark.parametrize("bad", BAD_ACTIONS)
def test_illegal_action_is_refused_and_leaves_state_untouched(bad: str) -> None:
    check_bad_actions_refused(VectorFivesGame(8, seed=1, variant="all_fives", num_players=2), bad)


def test_dealer_deals_and_fixed_leaders_are_checked() -> None:
    with pytest.raises(ValueError, match="permutations"):
        VectorFivesGame(2, dealer=lambda games: np.zeros((games.size, NUM_TILES), np.int64)).reset()
    rows = np.tile(np.arange(NUM_TILES), (2, 1))
    with pytest.raises(ValueError, match="leaders"):
        VectorFivesGame(2, dealer=lambda games: (rows[: games.size], np.full(games.size, 9))).reset()
    vec = VectorFivesGame(2, dealer=lambda games: (rows[: games.size], np.full(games.size, 1)))
    assert vec.reset().seat.tolist() == [1, 1]


def test_reset_deals_the_given_hands_and_stock() -> None:
    deals = np.stack([np.random.default_rng(k).permutation(NUM_TILES) for k in range(3)])
    vec = VectorFivesGame(3, seed=0, lead_rule="highest_double")
    batch = vec.reset(deals)
    for g, deal in enumerate(deals.tolist()):
        reference = FivesGame(vec.config, np.random.default_rng(0), deal={
            "hands": [deal[:9], deal[9:18]], "stock": deal[18:]})
        assert vec.hands[g].tolist() == reference.hands and batch.seat[g] == reference.current_player
        assert batch.obs[g].tobytes() == encode_compact(reference.view(reference.current_player)).tobytes()
    with pytest.raises(ValueError, match="permutations"):
        vec.reset(np.zeros((3, NUM_TILES), np.int64))


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="episode"):
        VectorFivesGame(2, episode="round")
    with pytest.raises(ValueError, match="target_score"):
        VectorFivesGame(2, target_score=None)
    with pytest.raises(ValueError, match="reward"):
        VectorFivesGame(2, reward="marks")
    with pytest.raises(ValueError, match="teams"):
        VectorFivesGame(2, num_players=3, teams=True)
    with pytest.raises(ValueError, match="num_envs"):
        VectorFivesGame(0)


def test_compact_encoder_is_registered_and_matches_its_slots() -> None:
    env = raw_env(observation_encoder="compact", num_players=3)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.shape == env.observation_space("player_0")["observation"].shape
    assert obs.shape == (VectorFivesGame(1, num_players=3).obs_dim,)
    np.testing.assert_array_equal(obs, encode_compact(env.game.view(env.game.current_player)))
