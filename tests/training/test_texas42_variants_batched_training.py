"""Three-player 42 and Texas 88 train on the numpy batched engine (``game.backend=vector``),
heuristic opponent, centralized critic and hand head (which read the engine's hands) included. In
three-player 42 every seat is its own side: the learner holds one seat, its marks are its reward, so
the bidder alone against the other two needs no side of its own."""

import pytest

from domino_env.vector.texas42 import VectorTexas42Game
from domino_env_training.config import from_dict
from domino_env_training.ppo import train


@pytest.mark.parametrize("options", [{"preset": "texas88"}, {"num_players": 3}], ids=["texas88", "three"])
def test_the_variants_train_on_the_batched_engine(tmp_path, options):
    config = from_dict({
        "name": "variant", "run_dir": str(tmp_path), "total_steps": 2 * 16 * 16, "eval_interval": 2,
        "eval_games": 16, "checkpoint_interval": 2,
        "game": {"name": "texas42", "options": options, "backend": "vector"},
        "ppo": {"num_envs": 16, "num_steps": 16},
        "network": {"hidden_sizes": [16], "centralized_critic": True, "hand_head_coef": 0.1},
        "pool": {"scripted": ["random", "heuristic"], "latest_prob": 0.0},
    })
    assert config.game.vector_class() is VectorTexas42Game
    assert config.game.torch_class() is None  # the torch twin plays four-player 42 only
    result = train(config, progress=False)
    assert result.global_step == 512
    assert "eval_win_rate_vs_random" in result.history[-1]
