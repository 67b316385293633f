"""``domino_env.integrations.benchmarl``: the tasks' environments pass TorchRL's spec check with what
BenchMARL reads (one group, masks, state, the step bound), and a short MAPPO run of
``scripts/benchmarl_mappo.py`` trains, plays legal moves and is scored by the harness.

Needs the ``benchmarl`` extra (its own venv: scripts/ci_benchmarl.sh); the main suite skips this module.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("benchmarl")

import torch  # noqa: E402
from script_loader import load_script  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from domino_env.integrations.benchmarl import DominoTask  # noqa: E402
from domino_env.integrations.scoring import score_policy  # noqa: E402
from domino_env.wrappers.vector_env import DominoVectorEnv  # noqa: E402


@pytest.mark.parametrize("member", [DominoTask.BLOCK2P, DominoTask.BLOCKTEAMS4P, DominoTask.TEXAS42])
def test_task_environment_is_what_benchmarl_reads(member):
    task = member.get_task()
    env = task.get_env_fun(1, False, 0, "cpu")()
    check_env_specs(env, seed=0)
    players = task.config.get("num_players", 4)
    assert task.group_map(env) == {"agents": [f"player_{i}" for i in range(players)]}
    assert task.max_steps(env) == member.benchmark.config.max_decisions
    assert task.supports_discrete_actions() and not task.supports_continuous_actions()
    assert task.state_spec(env) is not None and task.action_mask_spec(env) is not None
    td = env.reset()
    acting = td["agents", "mask"]
    assert acting.sum() == 1  # one seat to act; the others' masks are all True
    assert td["agents", "action_mask"][~acting].all() and not td["agents", "action_mask"][acting].all()


def test_get_task_takes_environment_options():
    task = DominoTask.BLOCK2P.get_task({"observation_encoder": "compact", "reward": "points"})
    assert task.config["observation_encoder"] == "compact" and task.config["variant"] == "block"
    env = task.get_env_fun(1, False, 0, "cpu")()
    assert env.observation_spec["agents", "observation", "observation"].shape[-1] == 121


def test_short_mappo_run_trains_and_is_scored(tmp_path, capsys):
    """Three MAPPO iterations of 600 steps (about a minute on one thread): BenchMARL's loop runs
    through the task, the callback prints the score against random, the trained policy plays legal
    moves on the batched environment and the harness scores it."""
    example = load_script("benchmarl_mappo")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # two threads on a shared two-core machine: ten times slower
    try:
        experiment = example.build("BLOCK2P", iterations=3, frames=600, evaluate_every=2,
                                   save_folder=str(tmp_path))
        experiment.run()
        assert experiment.n_iters_performed == 3 and experiment.total_frames == 1800
        assert "margin against random" in capsys.readouterr().out
        policy = example.batched_policy(experiment)
        env = DominoVectorEnv(num_envs=16, variant="block", num_players=2)
        obs, info = env.reset(seed=0)
        for _ in range(20):
            actions = policy(obs, env.action_masks())
            assert env.action_masks()[np.arange(16), actions].all()
            obs, *_ = env.step(actions)
        task = DominoTask.BLOCK2P.benchmark
        scores = score_policy(policy, task.game, task.options, num_deals=20)
    finally:
        torch.set_num_threads(threads)
    assert set(scores) == {"random", "greedy"}
    assert all(math.isfinite(s["margin"][0]) for s in scores.values())
