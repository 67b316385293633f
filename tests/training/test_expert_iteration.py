"""``scripts/expert_iteration.py``: the scripted bot's copy, then distillation rounds, each from the
policy of the round before.

The All Fives 2p recipe's own config, shrunk to a few games with ``greedy`` as the teacher: what is
checked is the wiring (the copy is the imitation stage alone; round k starts from round k-1 with its
own seed; ``last.pt`` is the last round), not strength (docs/results.md has the full-size runs)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from script_loader import load_script

from domino_env_training.checkpoints import load_checkpoint


def test_each_round_distills_into_the_policy_of_the_round_before(tmp_path: Path) -> None:
    tiny = [f"run_dir={tmp_path}", "imitation.num_envs=16", "imitation.num_steps=128", "imitation.rounds=1",
            "harness_every=0", "eval_interval=1000"]
    assert load_script("expert_iteration").main([
        "--config", "all_fives_2p_imitation", "--seed", "5", "--name", "ei", "--teacher", "greedy",
        "--rounds", "2", "--games", "2", "--distill-seed", "40", "--workers", "1",
        *[arg for value in tiny for arg in ("--set", value)],
    ]) == 0
    copy = load_checkpoint(tmp_path / "ei_copy" / "last.pt")
    rounds = [load_checkpoint(tmp_path / "ei" / f"round_{k}.pt") for k in (1, 2)]
    last = load_checkpoint(tmp_path / "ei" / "last.pt")
    assert copy["global_step"] == 0 and copy["config"]["seed"] == 5  # the imitation stage alone
    assert rounds[0]["distillation"]["from"] == str(tmp_path / "ei_copy" / "last.pt")
    assert rounds[1]["distillation"]["from"] == str(tmp_path / "ei" / "round_1.pt")
    assert [r["distillation"]["seed"] for r in rounds] == [40, 41]
    assert all(r["distillation"]["teacher"] == "greedy" and r["distillation"]["games"] == 2 for r in rounds)
    assert all((tmp_path / "ei" / f"labels_{k}.npz").exists() for k in (1, 2))  # kept to fine-tune again
    weight = "actor.0.weight"
    assert not torch.equal(copy["model"][weight], rounds[0]["model"][weight])  # fine-tuned
    assert torch.equal(last["model"][weight], rounds[1]["model"][weight])


def test_a_config_without_an_imitation_stage_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        load_script("expert_iteration").main([
            "--config", "all_fives_2p_greedy_heavy", "--seed", "1", "--name", "x",
            "--teacher", "greedy", "--games", "1", "--distill-seed", "1",
        ])
    assert "no imitation stage" in capsys.readouterr().err
