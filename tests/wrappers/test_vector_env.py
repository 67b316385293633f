"""The Gymnasium vector environment over the batched engines, and its Stable-Baselines3 adapter.

Gymnasium 1.4 has no checker for vector environments (``gymnasium.utils.env_checker`` checks a
single ``Env``), so the tests here check what its ``VectorEnv`` contract says: batched spaces that
contain every observation and action, ``(num_envs,)`` rewards and flags, same-step autoreset, seeded
replay; then game by game against the reference environment, the waiting games of ``step_games``,
bad input, Gymnasium's vector wrappers, and MaskablePPO learning on the SB3 adapter.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from domino_env.bots import make_bot
from domino_env.encoders.line_compact import encode_compact
from domino_env.envs.dominoes_v0 import raw_env
from domino_env.vector import VectorLineGame, VectorTexas42Game, sample_legal
from domino_env.vector.batch import step_games
from domino_env.wrappers.vector_env import AutoresetMode, DominoVectorEnv

# the lowest declared gymnasium (1.0) has no autoreset modes: DominoVectorEnv needs 1.1 and says so
pytestmark = pytest.mark.skipif(AutoresetMode is None, reason="DominoVectorEnv needs gymnasium >= 1.1")

CONFIGS = {
    "block 2p": dict(game="dominoes", variant="block", num_players=2),
    "draw 3p greedy, seat 1": dict(
        game="dominoes", variant="draw", num_players=3, preset="pagat", opponents="greedy", seat=1
    ),
    "block 4p team": dict(
        game="dominoes",
        variant="block",
        num_players=4,
        teams=True,
        team=True,
        opponents={1: "greedy", 3: "random"},
    ),
    "texas42 team heuristic": dict(game="texas42", team=True, opponents="heuristic"),
}


def play(env: DominoVectorEnv, steps: int, seed: int) -> list[tuple]:
    """``steps`` random legal learner moves; what every step returned."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(sample_legal(env.action_masks(), rng))
        out.append((obs.copy(), reward.copy(), terminated.copy(), truncated.copy(), info["seat"].copy()))
    return out


@pytest.mark.parametrize("options", CONFIGS.values(), ids=CONFIGS.keys())
def test_vector_env_contract(options):
    env = DominoVectorEnv(num_envs=16, **options)
    assert isinstance(env, VectorEnv) and env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and obs.shape == (16, env.single_observation_space.shape[0])
    assert env.action_masks().shape == (16, env.single_action_space.n) and env.action_masks().any(1).all()
    assert env.action_space.contains(sample_legal(env.action_masks(), np.random.default_rng(0)))
    steps = play(env, 60, seed=1)
    episodes = 0
    for obs, reward, terminated, truncated, seat in steps:
        assert env.observation_space.contains(obs)
        assert reward.shape == terminated.shape == truncated.shape == (16,) and reward.dtype == np.float32
        assert not truncated.any() and np.isin(seat, env.learner_seats).all()  # always the learner's turn
        episodes += terminated.sum()
    assert episodes > 0
    # A seeded reset replays the same deals, moves and rewards.
    env.reset(seed=3)
    again = play(env, 60, seed=1)
    for first, second in zip(steps, again, strict=True):
        for a, b in zip(first, second, strict=True):
            np.testing.assert_array_equal(a, b)


def test_each_game_plays_as_the_reference_env_would():
    """Game by game, the learner's observations and its episode reward equal those of
    ``dominoes_v0`` dealt the same tiles, the learner making the same moves and the other seats
    playing ``bots.line`` greedy (which the batched greedy equals in pagat Draw): the games that
    waited for the others while opponents moved were left exactly as they were."""
    options = dict(variant="draw", num_players=3, preset="pagat")
    env = DominoVectorEnv("dominoes", 24, seat=1, opponents="greedy", **options)
    env.reset(seed=5)
    deals, leaders = env.engine.deal.copy(), env.engine.leader.copy()
    rng = np.random.default_rng(2)
    seen = [[] for _ in range(24)]  # (observation, action) of each learner decision of the first episode
    total, finished = np.zeros(24), np.zeros(24, bool)
    obs = env.reset(seed=5)[0]
    for _ in range(80):
        actions = sample_legal(env.action_masks(), rng)
        for g in np.flatnonzero(~finished):
            seen[g].append((obs[g].copy(), int(actions[g])))
        obs, reward, terminated, _, _ = env.step(actions)
        total += np.where(finished, 0, reward)
        finished |= terminated
    assert finished.all()

    greedy, bot_rng = make_bot("dominoes", "greedy"), np.random.default_rng(0)
    h = 7
    for g in range(24):
        ref = raw_env(observation_encoder="compact", **options)
        deal = deals[g].tolist()
        ref.reset(
            options={
                "deal": {
                    "hands": [deal[i * h : (i + 1) * h] for i in range(3)],
                    "stock": deal[3 * h :],
                    "leader": int(leaders[g]),
                }
            }
        )
        decisions, reward = iter(seen[g]), 0.0
        while not ref.game.is_terminal:
            seat = ref.game.current_player
            if seat == 1:
                want, action = next(decisions)
                assert encode_compact(ref.game.view(1)).tobytes() == want.tobytes(), f"game {g}"
            else:
                action = greedy.act(ref.game.view(seat), bot_rng)
            ref.step(action)
            reward += ref.rewards["player_1"]
        assert next(decisions, None) is None, f"game {g}: the vector env saw more learner decisions"
        assert reward == pytest.approx(total[g]), f"game {g}"


ENGINES = {
    "line": lambda: VectorLineGame(32, seed=1, variant="draw", num_players=4),
    "texas42": lambda: VectorTexas42Game(32, seed=1),
}


@pytest.mark.parametrize("make", ENGINES.values(), ids=ENGINES.keys())
def test_step_games_leaves_waiting_games_untouched(make):
    """After 25 lockstep moves of two equal engines, ``step_games`` on one steps its active games
    as a full step steps the other's, and leaves every array and the batch of the waiting ones."""
    engine, twin = make(), make()
    rng = np.random.default_rng(0)
    batch = engine.reset()
    twin.reset()
    for _ in range(25):
        actions = sample_legal(batch.mask, rng)
        batch = engine.step(actions)
        twin.step(actions)
    actions, active = sample_legal(batch.mask, rng), rng.random(32) < 0.5
    before = {k: v.copy() for k, v in vars(engine).items() if isinstance(v, np.ndarray) and len(v) == 32}
    new = step_games(engine, batch, actions, active)
    full = twin.step(np.where(active, actions, batch.mask.argmax(1)))
    for field, got, previous, stepped in zip(new._fields, new, batch, full, strict=True):
        np.testing.assert_array_equal(got[active], stepped[active], err_msg=field)
        if field in ("rewards", "done"):
            assert not got[~active].any()
        else:
            np.testing.assert_array_equal(got[~active], previous[~active], err_msg=field)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(engine, name)[~active], value[~active], err_msg=name)
    assert active.any() and not active.all()


def test_bad_input_is_refused_and_leaves_the_games_alone():
    env = DominoVectorEnv(num_envs=4, variant="block", num_players=2)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(np.zeros(4, np.int64))
    env.reset(seed=0)
    env.step(sample_legal(env.action_masks(), np.random.default_rng(0)))
    mask, hands = env.action_masks().copy(), env.engine.hands.copy()
    illegal = np.where(mask, -1, np.arange(mask.shape[1])).max(1)  # the highest illegal action of each game
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match="must be an integer array"):
        env.step(np.zeros(4))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.zeros(3, np.int64))
    np.testing.assert_array_equal(env.action_masks(), mask)
    np.testing.assert_array_equal(env.engine.hands, hands)
    env.step(sample_legal(mask, np.random.default_rng(1)))  # still playable
    broken = DominoVectorEnv(num_envs=4, variant="block", num_players=2, opponents=lambda obs, mask, rng: -1)
    with pytest.raises(ValueError, match=r"an opponent policy failed \(illegal action -1"):
        broken.reset(seed=0)
        broken.step(sample_legal(broken.action_masks(), np.random.default_rng(0)))
    with pytest.raises(RuntimeError, match="before reset"):
        broken.step(np.zeros(4, np.int64))  # no half-played games are handed out
    with pytest.raises(ValueError, match="seat must be"):
        DominoVectorEnv(num_envs=4, seat=2, variant="block", num_players=2)
    with pytest.raises(ValueError, match="team=True needs"):
        DominoVectorEnv(num_envs=4, team=True, variant="block", num_players=4)
    with pytest.raises(ValueError, match="no batched scripted opponent 'heuristic' for dominoes"):
        DominoVectorEnv(num_envs=4, opponents="heuristic")
    with pytest.raises(ValueError, match="opponents must map exactly the seats"):
        DominoVectorEnv(num_envs=4, variant="block", num_players=3, opponents={1: "random"})
    with pytest.raises(ValueError, match="no batched engine plays"):
        DominoVectorEnv("mexican_train", 4, double_bonus="any")
    with pytest.raises(ValueError, match="num_envs must be"):
        DominoVectorEnv(num_envs=0)
    with pytest.raises(TypeError, match="an opponent is"):
        DominoVectorEnv(num_envs=4, opponents=3)


def test_gymnasium_vector_wrappers_count_episodes():
    env = RecordEpisodeStatistics(DominoVectorEnv(num_envs=8, variant="block", num_players=2))
    env.reset(seed=0)
    rng, returns = np.random.default_rng(0), []
    for _ in range(40):
        *_, info = env.step(sample_legal(env.unwrapped.action_masks(), rng))
        if "episode" in info:
            returns += info["episode"]["r"][info["_episode"]].tolist()
    assert returns and all(-200 < r < 200 for r in returns)


def test_a_frozen_checkpoint_plays_the_other_seats():
    """A trained policy as opponent: ``domino_env_training.agent.PolicyAgent.act`` takes the batch as
    it comes."""
    torch = pytest.importorskip("torch")
    from domino_env_training.agent import PolicyAgent
    from domino_env_training.config import Config, NetworkConfig
    from domino_env_training.networks import ActorCritic

    torch.manual_seed(0)
    env = DominoVectorEnv(num_envs=32, variant="block", num_players=3, opponents="random")
    agent = PolicyAgent(
        ActorCritic(
            env.single_observation_space.shape[0], env.single_action_space.n, NetworkConfig(hidden_sizes=[16])
        ),
        Config(),
    )
    calls = []

    def frozen(obs, mask, rng):
        calls.append(len(obs))
        return agent.act(obs, mask)

    env = DominoVectorEnv(num_envs=32, variant="block", num_players=3, opponents={1: frozen, 2: "greedy"})
    env.reset(seed=0)
    steps = play(env, 30, seed=0)
    assert sum(calls) > 32 and sum(t.sum() for _, _, t, _, _ in steps) > 0


def test_maskable_ppo_trains_on_the_sb3_adapter_and_beats_random():
    """MaskablePPO, 40k learner steps on 256 Block 2p games against ``random``: its deterministic
    policy's mean zero-sum reward per round over 2,000 rounds is above 0 by 3 standard errors
    (about +2.7 points per round when measured; random against random: about 0)."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from domino_env.integrations.sb3 import SB3VecEnv

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # two threads on a shared two-core machine: ten times slower
    try:
        venv = SB3VecEnv(DominoVectorEnv(num_envs=256, variant="block", num_players=2))
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=16,
            batch_size=1024,
            n_epochs=4,
            learning_rate=1e-3,
            seed=0,
            policy_kwargs={"net_arch": [64, 64]},
        )
        model.learn(40_000)
        np.testing.assert_array_equal(venv.env_method("action_masks", indices=[3])[0], venv.action_masks()[3])
        env = DominoVectorEnv(num_envs=500, variant="block", num_players=2)
        obs, _ = env.reset(seed=99)
        rewards: list[float] = []
        while len(rewards) < 2000:
            actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, _, _ = env.step(actions)
            rewards += reward[terminated].tolist()
    finally:
        torch.set_num_threads(threads)
    mean, error = np.mean(rewards), np.std(rewards) / np.sqrt(len(rewards))
    assert mean > 3 * error, f"{mean:.2f} +- {error:.2f} against random"


def test_sb3_adapter_refuses_what_it_cannot_do():
    pytest.importorskip("stable_baselines3")
    from domino_env.integrations.sb3 import SB3VecEnv

    with pytest.raises(TypeError, match="wraps a DominoVectorEnv"):
        SB3VecEnv(object())
    venv = SB3VecEnv(DominoVectorEnv(num_envs=4, variant="block", num_players=2))
    with pytest.raises(RuntimeError, match="without step_async"):
        venv.step_wait()
    with pytest.raises(ValueError, match="whole batch only"):
        venv.set_attr("x", 1, indices=[0])
    venv.seed(5)
    first = venv.reset()
    venv.seed(5)
    np.testing.assert_array_equal(venv.reset(), first)  # VecEnv.seed reaches the games
    obs, rewards, dones, infos = venv.step(sample_legal(venv.action_masks(), np.random.default_rng(0)))
    assert obs.shape == (4, 121) and rewards.shape == dones.shape == (4,) and len(infos) == 4
