"""AgileRL's DQN on ``DominoVectorEnv`` with no glue: its masked action selection takes the int8
``info["action_mask"]`` (a bool mask fails there: AgileRL computes ``1 - mask``), and a short run of
``scripts/agilerl_dqn.py`` beats ``random`` on duplicate deals.

Needs the ``agilerl`` extra (its own venv: scripts/ci_agilerl.sh); the main suite skips this module.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("agilerl")

import torch  # noqa: E402
from agilerl.algorithms import DQN  # noqa: E402
from script_loader import load_script  # noqa: E402

from domino_env.integrations.scoring import score_policy  # noqa: E402
from domino_env.wrappers.vector_env import DominoVectorEnv  # noqa: E402

BLOCK_2P = {"variant": "block", "num_players": 2}


def test_dqn_acts_legally_on_the_vector_envs_mask():
    env = DominoVectorEnv(num_envs=32, **BLOCK_2P)
    obs, info = env.reset(seed=0)
    agent = DQN(env.single_observation_space, env.single_action_space)
    for epsilon in (0.0, 1.0):  # the policy's moves and the random ones are both masked
        actions = agent.get_action(obs, epsilon, action_mask=info["action_mask"])
        assert info["action_mask"][np.arange(32), actions].all()
    with pytest.raises(RuntimeError, match="bool"):
        agent.get_action(obs, 0.0, action_mask=info["action_mask"].astype(bool))
    env.step(actions)  # legal: no error


def test_short_dqn_run_beats_random():
    """50k learner steps against ``random`` (about 30 s on one thread): the greedy policy's margin
    against ``random`` over 100 duplicate deals is above 0 (95% interval); measured +2.6 [+1.5, +3.8]."""
    example = load_script("agilerl_dqn")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # two threads on a shared two-core machine: ten times slower
    try:
        agent, fitnesses = example.train(steps=50_000, evo_steps=10_000, verbose=False)
        scores = score_policy(example.greedy_policy(agent), "dominoes", BLOCK_2P, num_deals=100)
    finally:
        torch.set_num_threads(threads)
    assert len(fitnesses) >= 5
    margin, low, _ = scores["random"]["margin"]
    assert low > 0, f"margin {margin:+.2f} against random, interval from {low:+.2f}"
