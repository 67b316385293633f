"""The best-response trainer: a frozen agent as the only opponent, a warm start from it, the bound's
report, and clear refusals of agents it cannot train against."""

import json

import pytest
import torch

from domino_env.evaluation.tasks import baseline_path, get_task
from domino_env_training.agent import PolicyAgent
from domino_env_training.best_response import best_response_bound, frozen_overrides, main
from domino_env_training.config import ConfigError, load_config
from domino_env_training.ppo import make_setup, new_learner
from domino_env_training.rollout import DeviceGame

BLOCK2P = get_task("Block2p")


def block_2p_config(tmp_path, against: str, *extra: str):
    """The shipped best-response config, shrunk to seconds."""
    return load_config("best_response_block_2p", [
        *frozen_overrides(BLOCK2P, against, warm_start=True), f"run_dir={tmp_path}", "total_steps=2048",
        "ppo.num_envs=64", "ppo.num_steps=16", "eval_interval=1", "eval_games=16", *extra])


def test_a_checkpoint_is_frozen_alone_and_starts_the_learner(tmp_path):
    config = block_2p_config(tmp_path, "trained")
    assert config.pool.frozen == ["Block2p"] and config.pool.scripted == [] and config.pool.latest_prob == 0
    learner = new_learner(make_setup(config, None, resume=False, overwrite=False))
    baseline = PolicyAgent.from_checkpoint(baseline_path("Block2p")).model
    for name, value in baseline.state_dict().items():  # actor and critic carried over
        assert torch.equal(learner.agent.state_dict()[name], value), name
    assert [(e.name, e.kind) for e in learner.pool.entries] == [("Block2p", "frozen")]


def test_the_frozen_opponent_plays_the_checkpoints_most_probable_action(tmp_path):
    config = block_2p_config(tmp_path, "trained")
    setup = make_setup(config, None, resume=False, overwrite=False)
    learner = new_learner(setup)
    batch = DeviceGame(setup.make_game(32, 5), setup.device).reset()
    obs, mask = batch.obs, batch.mask
    ids = torch.zeros(32, dtype=torch.long)  # every row: pool entry 0, the frozen baseline
    mine = torch.full((32,), -1)
    played = learner.pool.act(ids, obs, mask, torch.Generator().manual_seed(0), mine)
    baseline = PolicyAgent.from_checkpoint(baseline_path("Block2p")).model
    assert torch.equal(played, baseline.act(obs, mask, greedy=True))


def test_a_short_run_reports_a_bound_over_the_tasks_deals(tmp_path):
    config = block_2p_config(tmp_path, "greedy", "network.hidden_sizes=[32]", "ppo.lr=3e-3")
    report = best_response_bound(BLOCK2P, config, num_deals=30, progress=False)
    assert report["against"]["bot"] == "greedy" and report["seed"] == BLOCK2P.seed
    low, mean, high = report["margin"][1], report["margin"][0], report["margin"][2]
    assert low <= mean <= high and high - low > 0
    saved = json.loads((tmp_path / config.name / "best_response.json").read_text())
    assert saved["margin"] == report["margin"]
    assert saved["training"]["steps"] == report["training"]["steps"] > 0
    pool = json.loads((tmp_path / config.name / "pool.json").read_text())
    assert [(e["name"], e["kind"]) for e in pool] == [("greedy", "scripted")] and pool[0]["games"] > 0


@pytest.mark.parametrize(("argv", "message"), [
    (["--against", "search"], "neither a checkpoint file nor a benchmark task"),
    (["--against", "Texas42"], "trained on other rules"),
    (["--set", "network.hidden_sizes=[64]"], "actor's layers"),
])
def test_agents_it_cannot_train_against_are_refused_in_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        main(["--task", "Block2p", "--config", "best_response_block_2p", "--set", f"run_dir={tmp_path}",
              "--no-progress", *argv])
    assert message in capsys.readouterr().err


def test_the_config_must_play_the_tasks_rules(tmp_path):
    config = block_2p_config(tmp_path, "greedy", "game.options.num_players=3")
    with pytest.raises(ConfigError, match="the task Block2p is dominoes"):
        best_response_bound(BLOCK2P, config, num_deals=2, progress=False)
