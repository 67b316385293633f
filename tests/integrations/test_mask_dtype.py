"""One action-mask dtype across the adapters: int8 0/1, PettingZoo's (the environments' observation),
in ``SingleAgentEnv``, ``DominoVectorEnv`` and ``SB3VecEnv``. TorchRL's (bool, what ``MaskedCategorical``
and its specs take) and RLlib's (float32, ``ActionMaskingTorchRLModule`` takes its log) are the
exceptions, tested with those adapters. Also: ``SB3VecEnv`` reports finished episodes as
``VecMonitor`` does."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import domino_env.wrappers  # noqa: F401  (registers the domino_env/... ids)
from domino_env import dominoes_v0
from domino_env.vector.batch import sample_legal
from domino_env.wrappers.vector_env import AutoresetMode, DominoVectorEnv

BLOCK_2P = {"variant": "block", "num_players": 2}


def test_the_environments_and_the_single_agent_env_give_int8():
    env = dominoes_v0.raw_env(**BLOCK_2P)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"].dtype == np.int8
    single = gymnasium.make("domino_env/Block2p-v0", flatten=True).unwrapped
    _, info = single.reset(seed=0)
    assert single.action_masks().dtype == info["action_mask"].dtype == np.int8


needs_autoreset = pytest.mark.skipif(AutoresetMode is None, reason="DominoVectorEnv needs gymnasium >= 1.1")


@needs_autoreset
def test_the_vector_env_gives_int8_and_one_minus_the_mask_works():
    env = DominoVectorEnv(num_envs=8, **BLOCK_2P)
    _, info = env.reset(seed=0)
    mask = env.action_masks()
    assert mask.dtype == info["action_mask"].dtype == np.int8
    assert set(np.unique(mask)) <= {0, 1} and mask.any(1).all()
    np.testing.assert_array_equal(1 - mask, mask == 0)  # what AgileRL computes; bool raises there
    _, _, _, _, info = env.step(sample_legal(mask, np.random.default_rng(0)))
    assert info["action_mask"].dtype == np.int8


@needs_autoreset
def test_sb3_adapter_gives_int8_masks_and_logs_episodes():
    pytest.importorskip("stable_baselines3")
    from domino_env.integrations.sb3 import SB3VecEnv

    venv = SB3VecEnv(DominoVectorEnv(num_envs=16, **BLOCK_2P))
    venv.reset()
    assert venv.action_masks().dtype == venv.env_method("action_masks")[0].dtype == np.int8
    rng = np.random.default_rng(0)
    returns, totals, finished = np.zeros(16), [], []
    for _ in range(40):
        _, rewards, dones, infos = venv.step(sample_legal(venv.action_masks(), rng))
        returns += rewards
        for i in np.flatnonzero(dones):
            totals.append(returns[i])
            finished.append(infos[i]["episode"])
            returns[i] = 0.0
        assert all("episode" not in infos[i] for i in np.flatnonzero(~dones))
    assert len(finished) >= 16
    assert [e["r"] for e in finished] == pytest.approx(totals)
    assert all(e["l"] >= 1 and e["t"] >= 0 for e in finished)
