"""A real saved checkpoint plays through the evaluation harness (torch and the trainer needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from domino_env.bots import make_bot  # noqa: E402
from domino_env.evaluation import AgentSpec, GameSetup, evaluate  # noqa: E402
from domino_env_training.checkpoints import CHECKPOINT_NAME, load_checkpoint, save_checkpoint  # noqa: E402
from domino_env_training.config import load_config  # noqa: E402
from domino_env_training.ppo import train  # noqa: E402

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


def test_trained_checkpoint_plays_legal_moves_in_the_harness(tmp_path: Path) -> None:
    # Two PPO iterations of 16 games x 16 steps: a real checkpoint file, written by the trainer.
    overrides = [f"run_dir={tmp_path}", "device=cpu", "total_steps=512", "ppo.num_envs=16",
                 "ppo.num_steps=16", "eval_interval=100", "eval_games=8", "checkpoint_interval=1"]
    run = train(load_config(SMOKE, overrides), progress=False)
    path = run.run_path / CHECKPOINT_NAME
    assert path.is_file()
    agents = [AgentSpec("ppo", "checkpoint", {"path": str(path)}), AgentSpec("random", "random")]
    # The harness's engine raises IllegalActionError on any illegal move, so finishing is the check.
    result = evaluate(GameSetup("dominoes", {"variant": "block"}), agents, 4, seed=0)
    assert len(result.records) == 8 and all(r["rounds"] == 1 for r in result.records)
    assert result.summary[0]["agent"] == "ppo" and result.summary[0]["groups"] == 4


def test_checkpoint_bot_refuses_another_game_and_an_unnamed_encoder(tmp_path: Path) -> None:
    """The bot plays with the encoder the checkpoint records, for the game it was trained on only."""

    overrides = [f"run_dir={tmp_path}", "device=cpu", "total_steps=256", "ppo.num_envs=16",
                 "ppo.num_steps=16", "eval_interval=100", "eval_games=8"]
    path = train(load_config(SMOKE, overrides), progress=False).run_path / CHECKPOINT_NAME
    assert make_bot("dominoes", "checkpoint", path=str(path)).encoder.name == "compact"
    with pytest.raises(ValueError, match="trained on 'dominoes', not 'texas42'"):
        make_bot("texas42", "checkpoint", path=str(path))
    payload = load_checkpoint(path)
    del payload["observation_encoder"]
    unnamed = tmp_path / "unnamed.pt"
    save_checkpoint(unnamed, payload)
    with pytest.raises(ValueError, match="does not record its observation encoder"):
        make_bot("dominoes", "checkpoint", path=str(unnamed))


def test_checkpoint_probabilities_are_the_distribution_act_draws_from(tmp_path: Path) -> None:
    """``probabilities`` (read by exact exploitability) is one-hot on ``act``'s move when greedy, else
    the actor's softmax over the legal actions, zero elsewhere."""
    import numpy as np
    import torch

    overrides = [f"run_dir={tmp_path}", "device=cpu", "total_steps=256", "ppo.num_envs=16",
                 "ppo.num_steps=16", "eval_interval=100", "eval_games=8"]
    path = train(load_config(SMOKE, overrides), progress=False).run_path / CHECKPOINT_NAME
    greedy = make_bot("dominoes", "checkpoint", path=str(path))
    sampling = make_bot("dominoes", "checkpoint", path=str(path), greedy=False)
    engine = GameSetup("dominoes", {"variant": "block"}).new_engine(np.random.default_rng(4))
    rng = np.random.default_rng(0)
    while not engine.is_terminal:
        view = engine.view(engine.current_player)
        obs, mask = greedy.encode(view)
        one_hot = greedy.probabilities(view)
        assert one_hot.sum() == 1 and one_hot[greedy.act(view, rng)] == 1
        expected = torch.softmax(torch.as_tensor(sampling.logits(view)), -1).numpy()
        assert np.allclose(sampling.probabilities(view), expected)
        assert np.all(sampling.probabilities(view)[mask == 0] == 0)
        engine.apply(greedy.act(view, rng))
