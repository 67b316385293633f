import pytest
import torch

from domino_env_training.config import Config, from_dict


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)  # the CI machine has two cores shared by two test workers


@pytest.fixture
def tiny_config(tmp_path) -> Config:
    """A few-second run on the fake high-card game (tests/training/fake_game.py)."""
    return from_dict({
        "name": "tiny", "run_dir": str(tmp_path), "seed": 3, "total_steps": 64 * 16 * 6,
        "eval_interval": 3, "eval_games": 128, "checkpoint_interval": 2,
        "ppo": {"num_envs": 64, "num_steps": 16, "lr": 3.0e-3},
        "network": {"hidden_sizes": [32]},
        "pool": {"snapshot_interval": 2, "max_snapshots": 2},
    })
