"""TorchRL: the batched environment (specs, equality with the engine, state, bad input), the PPO
example against ``random``, and the single-game path through ``PettingZooWrapper``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torchrl")
import torch  # noqa: E402
from script_loader import load_script  # noqa: E402
from tensordict import TensorDict  # noqa: E402
from torchrl.envs import EnvBase, PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from domino_env.dominoes_v0 import env as dominoes_env  # noqa: E402
from domino_env.integrations.torchrl import DominoTorchRLEnv  # noqa: E402
from domino_env.vector import VectorLineGame, VectorTexas42Game  # noqa: E402
from domino_env.vector.batch import hidden_hands  # noqa: E402
from domino_env.wrappers.vector_env import DominoVectorEnv  # noqa: E402

CONFIGS = {
    "block 2p": dict(variant="block", num_players=2),
    "draw 3p match": dict(variant="draw", num_players=3, episode="match", target_score=30),
    "block 4p teams, state": dict(variant="block", num_players=4, teams=True, state=True),
    "texas42, state": dict(game="texas42", state=True),
    "texas42 every contract": dict(
        game="texas42", nello="own_suit", sevens=True, plunge=True, forced_bid=True
    ),
}


@pytest.fixture(autouse=True)
def one_thread():
    """Two torch threads on a shared two-core machine run small ops ten times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


DEVICES = [
    pytest.param(None, id="numpy engine"),
    pytest.param("cpu", id="torch engine cpu"),
    pytest.param("cuda", id="torch engine cuda",
                 marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device")),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("options", CONFIGS.values(), ids=CONFIGS.keys())
def test_specs_hold_on_rollouts(options, device):
    env = DominoTorchRLEnv(num_envs=32, device=device, **options)
    check_env_specs(env, seed=0)  # random actions from the masked action spec: all legal
    data = env.rollout(40, break_when_any_done=False)
    assert data.shape == (32, 40) and data["next", "done"].any()
    assert data["next", "reward"].shape == (32, 40, env.num_players)
    assert (data["action_mask"].gather(-1, data["action"].unsqueeze(-1))).all()
    if device is not None:  # every key made on the engine's device
        assert {value.device.type for value in data.values(True, True)} == {torch.device(device).type}


@pytest.mark.parametrize("game, options", [("dominoes", dict(variant="block", num_players=4, teams=True)),
                                           ("texas42", dict())], ids=["block 4p teams", "texas42"])
def test_device_env_steps_the_torch_engine_step_by_step(game, options):
    """With ``device``, the env is the torch engine's batches and its other seats' hands, unchanged."""
    env = DominoTorchRLEnv(game, 16, seed=4, state=True, device="cpu", **options)
    data = env.rollout(80, break_when_any_done=False)
    engine = type(env.engine)(16, seed=4, device="cpu", **options)
    batch = engine.reset()
    tiles = engine.hand_tiles.shape[-1]
    for t in range(80):
        step = data[:, t]
        assert torch.equal(step["observation"], batch.obs), f"step {t}"
        assert torch.equal(step["action_mask"], batch.mask) and torch.equal(step["seat"], batch.seat)
        others = [(batch.seat + r) % engine.num_players for r in range(1, engine.num_players)]
        want = torch.cat([engine.hand_tiles[torch.arange(16), seat] for seat in others], dim=1).float()
        assert torch.equal(step["state"], want)
        assert step["state"].shape[-1] == (engine.num_players - 1) * tiles
        batch = engine.step(step["action"])
        assert torch.equal(step["next", "reward"], batch.rewards)
        assert torch.equal(step["next", "done"].squeeze(-1), batch.done)
    assert data["next", "done"].sum() > 5


def test_rollout_equals_the_engine_step_by_step():
    """Every observation, mask, seat, reward and done flag of a rollout (done steps and the partial
    resets after them included) is what the engine gives for the same actions from the same seed."""
    env = DominoTorchRLEnv("texas42", 16, seed=4, state=True)
    data = env.rollout(120, break_when_any_done=False)
    engine = VectorTexas42Game(16, seed=4)
    batch = engine.reset()
    for t in range(120):
        step = data[:, t]
        np.testing.assert_array_equal(step["observation"].numpy(), batch.obs, err_msg=f"step {t}")
        np.testing.assert_array_equal(step["action_mask"].numpy(), batch.mask)
        np.testing.assert_array_equal(step["seat"].numpy(), batch.seat)
        np.testing.assert_array_equal(step["state"].numpy(), hidden_hands(engine, batch.seat, 28))
        batch = engine.step(step["action"].numpy())
        np.testing.assert_array_equal(step["next", "reward"].numpy(), batch.rewards)
        np.testing.assert_array_equal(step["next", "done"].squeeze(-1).numpy(), batch.done)
    assert data["next", "done"].sum() > 5


@pytest.mark.parametrize(
    "game, options",
    [("dominoes", dict(variant="draw", num_players=3)), ("texas42", dict(state=True))],
    ids=["draw 3p", "texas42, state"],
)
def test_partial_reset_after_done_steps_is_torchrls_own(game, options):
    """The env's ``maybe_reset`` (what non-stopping rollouts and collectors call after each step)
    only clears the done flags; TorchRL's general partial reset (``reset`` with ``"_reset"``, through
    ``_reset`` and a ``where`` over every key) gives the same tensordict, and neither deals again.
    Only ``"action"`` differs: TorchRL zeroes it in reset games, and the policy overwrites it."""
    env = DominoTorchRLEnv(game, 32, seed=2, **options)
    td, compared = env.reset(), 0
    for _ in range(100):
        td = env.step_mdp(env.step(env.rand_action(td)))
        if td["done"].any():
            fast, general = env.maybe_reset(td.clone()), EnvBase.maybe_reset(env, td.clone())
            assert not fast["done"].any() and not fast["terminated"].any()
            assert (fast.exclude("action") == general.exclude("action")).all()
            assert set(fast.keys()) == set(general.keys())
            compared += 1
            td = fast
    assert compared > 3


def test_state_is_the_other_hands_and_never_in_the_observation():
    env = DominoTorchRLEnv(num_envs=8, seed=1, state=True, variant="block", num_players=4, teams=True)
    td = env.reset()
    engine = env.engine
    assert isinstance(engine, VectorLineGame)
    hands = np.unpackbits(engine.hands.view(np.uint8), axis=-1, count=28, bitorder="little")  # (8, 4, 28)
    seat = td["seat"].numpy()
    state = td["state"].numpy().reshape(8, 3, 28)
    for g in range(8):
        for r in range(1, 4):
            np.testing.assert_array_equal(state[g, r - 1], hands[g, (seat[g] + r) % 4])
    assert "state" not in DominoTorchRLEnv(num_envs=8, variant="block", num_players=2).reset().keys()
    # The observation's own hand slot is the acting seat's hand only.
    np.testing.assert_array_equal(td["observation"][:, :28].numpy(), hands[np.arange(8), seat])


def test_bad_input_is_refused():
    env = DominoTorchRLEnv(num_envs=4, seed=0, variant="block", num_players=2)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(TensorDict({"action": torch.zeros(4, dtype=torch.int64)}, batch_size=[4]))
    td = env.reset()
    mask = td["action_mask"]
    illegal = torch.where(mask, -1, torch.arange(mask.shape[-1])).max(-1).values
    with pytest.raises(ValueError, match="illegal action"):
        env.step(td.clone().set("action", illegal))
    with pytest.raises(ValueError, match="must be an integer array"):
        env._step(td.clone().set("action", torch.zeros(4)))
    after = env.step(td.clone().set("action", env.action_spec.rand()))  # the games are still playable
    assert after["next", "observation"].shape == (4, env.engine.obs_dim)
    with pytest.raises(ValueError, match="no batched engine plays"):
        DominoTorchRLEnv("mexican_train", 4, double_bonus="any")
    with pytest.raises(ValueError, match="num_envs must be"):
        DominoTorchRLEnv(num_envs=0)


def test_transformed_env_plays_legal_random_moves_with_torchrls_action_mask():
    """A TransformedEnv copies the action spec, so the mask the env updates never reaches the copy:
    TorchRL's ``ActionMask`` transform carries ``"action_mask"`` over (docs/vector_envs.md). Without
    it a random rollout is refused on its first illegal move, and the games stay playable."""
    from torchrl.envs import StepCounter, TransformedEnv
    from torchrl.envs.transforms import ActionMask, Compose

    masked = TransformedEnv(DominoTorchRLEnv(num_envs=8, seed=1), Compose(StepCounter(), ActionMask()))
    data = masked.rollout(60, break_when_any_done=False)
    assert data["next", "done"].any()
    assert data["action_mask"].gather(-1, data["action"].unsqueeze(-1)).all()
    unmasked = TransformedEnv(DominoTorchRLEnv(num_envs=8, seed=1), StepCounter())
    with pytest.raises(ValueError, match="illegal action"):
        unmasked.rollout(60, break_when_any_done=False)
    assert masked.rollout(5, break_when_any_done=False).shape == (8, 5)


def test_ppo_example_beats_random():
    """Ten iterations of self-play (about 120k agent-steps) beat ``random`` from both seats:
    the mean zero-sum reward per round over 2,000 rounds each is above 0 by 3 standard errors."""
    example = load_script("torchrl_ppo")
    actor, history = example.train(iterations=10, num_envs=256, num_steps=48, hidden=64, seed=0)
    assert history[-1]["entropy"] < history[0]["entropy"]
    policy = example.greedy_policy(actor)
    for seat in (0, 1):
        env = DominoVectorEnv(num_envs=500, seat=seat, variant="block", num_players=2)
        obs, _ = env.reset(seed=10 + seat)
        rewards: list[float] = []
        while len(rewards) < 2000:
            obs, reward, terminated, _, _ = env.step(policy(obs, env.action_masks()))
            rewards += reward[terminated].tolist()
        mean, error = np.mean(rewards), np.std(rewards) / np.sqrt(len(rewards))
        assert mean > 3 * error, f"seat {seat}: {mean:.2f} +- {error:.2f} against random"


def test_pettingzoo_wrapper_passes_round_results_on():
    """The single-game path: reset infos carry ``round_points`` and ``scores``, so TorchRL sizes
    them and a finished round's points reach the tensordict; the policy reads
    ``("player_i", "observation", "observation")`` and ``("player_i", "action_mask")``."""
    env = PettingZooWrapper(dominoes_env(variant="block", num_players=2), use_mask=True, seed=0)
    check_env_specs(env, seed=0)
    data = env.rollout(200, break_when_any_done=True)
    assert data["next", "done"][-1].all()
    points = torch.stack([data["next", p, "info", "round_points"][-1] for p in ("player_0", "player_1")])
    assert points.sum() > 0  # the round's winner scored (a blocked tie scores 0 for both: rare)
    assert (
        data["player_0", "observation", "observation"].shape[-1]
        == env.observation_spec["player_0", "observation", "observation"].shape[-1]
    )
