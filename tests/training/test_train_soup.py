"""``scripts/train_soup.py``: the base run, its view critic, fine-tunes from it side by side, their mean.

The Draw3pBoardpan recipe's own configs, shrunk to a few iterations: what is checked is the wiring
(each fine-tune starts from the base's fitted policy with its own seed; the soup is their mean), not
strength (docs/results.md has the full-size runs)."""

from __future__ import annotations

from pathlib import Path

import torch
from script_loader import load_script

from domino_env_training.checkpoints import load_checkpoint

TINY = ["total_steps=4096", "ppo.num_envs=64", "ppo.num_steps=32", "eval_interval=2", "eval_games=16",
        "harness_every=0", "time_budget_s=0", "checkpoint_interval=2"]


def test_the_soup_is_the_mean_of_fine_tunes_of_the_base(tmp_path: Path) -> None:
    sets = [arg for value in [*TINY, f"run_dir={tmp_path}"] for arg in ("--set", value)]
    assert load_script("train_soup").main([
        "--base", "draw_3p_boardpan_greedy_heavy", "--finetune", "draw_3p_boardpan_finetune",
        "--seed", "7", "--name", "soup", *sets, "--critic-rollouts", "1", "--critic-games", "64",
    ]) == 0
    base = load_checkpoint(tmp_path / "soup_base" / "last.pt")
    start = load_checkpoint(tmp_path / "soup_base" / "view_critic.pt")
    tunes = [load_checkpoint(tmp_path / f"soup_ft{k}" / "last.pt") for k in (1, 2)]
    soup = load_checkpoint(tmp_path / "soup" / "last.pt")

    assert base["config"]["seed"] == 7 and base["config"]["network"]["centralized_critic"]
    assert not start["config"]["network"]["centralized_critic"]  # the oracle critic was replaced
    assert [t["config"]["seed"] for t in tunes] == [8, 9]
    assert all(t["config"]["network"]["init_from"] == str(tmp_path / "soup_base" / "view_critic.pt")
               for t in tunes)
    assert all(t["global_step"] == 4096 for t in tunes)
    weight = "actor.0.weight"
    assert not torch.equal(tunes[0]["model"][weight], tunes[1]["model"][weight])  # two seeds, two runs
    assert torch.allclose(soup["model"][weight], (tunes[0]["model"][weight] + tunes[1]["model"][weight]) / 2)
    assert len(soup["averaged_from"]) == 2
