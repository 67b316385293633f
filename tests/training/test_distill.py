"""Distillation (``domino_env_training.distill``): labels are the teacher's legal moves at the
student's positions, independent of how the games are split, the fine-tune moves the policy toward
them, and the written checkpoint plays as a bot."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from domino_env.evaluation.tasks import baseline_path
from domino_env.rules.line import LineConfig, LineGame
from domino_env_training import distill as distill_module
from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoint_bot import CheckpointAgent
from domino_env_training.checkpoints import load_checkpoint
from domino_env_training.distill import Labels, collect, distill, fine_tune, label_games, main

BASE = baseline_path("Block2p")


def test_labels_are_legal_teacher_moves_at_real_decisions() -> None:
    labels = collect(BASE, "greedy", games=6, seed=3, teacher_share=0.5)
    assert len(labels.actions) >= 20
    assert labels.mask[np.arange(len(labels.actions)), labels.actions].all()
    assert (labels.mask.sum(axis=1) >= 2).all()  # forced moves are not labelled
    assert np.array_equal(labels.targets, np.eye(labels.mask.shape[1], dtype=np.float32)[labels.actions])
    assert labels.obs.shape == (len(labels.actions), PolicyAgent.from_checkpoint(BASE).model.obs_dim)
    assert not labels.agrees.all()  # greedy and the network differ somewhere


def test_the_student_as_its_own_teacher_always_agrees() -> None:
    labels = collect(BASE, f"checkpoint:path={BASE}", games=4, seed=5, teacher_share=0.0)
    assert len(labels.actions) > 0 and labels.agrees.all()


def test_soft_targets_spread_over_the_search_candidates_and_peak_at_its_move() -> None:
    labels = collect(BASE, "search:budget=16", games=3, seed=4, teacher_share=0.5, temperature=0.5)
    assert len(labels.actions) >= 10
    assert np.allclose(labels.targets.sum(axis=1), 1.0, atol=1e-5)
    assert (labels.targets[~labels.mask] == 0).all()
    rows = np.arange(len(labels.actions))
    assert np.allclose(labels.targets[rows, labels.actions], labels.targets.max(axis=1))
    assert ((labels.targets > 0).sum(axis=1) >= 2).any()  # not one-hot: near moves keep weight
    hard = collect(BASE, "search:budget=16", games=3, seed=4, teacher_share=0.5)
    assert np.array_equal(hard.actions, labels.actions)  # the same moves as the search's act


def test_labels_do_not_depend_on_how_the_games_are_split() -> None:
    whole = label_games(BASE, "greedy", range(0, 4), seed=7, teacher_share=0.5)
    halves = Labels.join([label_games(BASE, "greedy", range(0, 2), seed=7, teacher_share=0.5),
                          label_games(BASE, "greedy", range(2, 4), seed=7, teacher_share=0.5)])
    for name in ("obs", "mask", "actions", "targets", "agrees"):
        assert np.array_equal(getattr(whole, name), getattr(halves, name))
    other_seed = label_games(BASE, "greedy", range(0, 4), seed=8, teacher_share=0.5)
    assert not np.array_equal(other_seed.obs[:10], whole.obs[:10])


def test_labels_do_not_depend_on_how_many_games_play_in_lockstep(monkeypatch) -> None:
    together = label_games(BASE, "search:budget=16", range(0, 3), seed=9, teacher_share=0.5, temperature=1.0)
    monkeypatch.setattr(distill_module, "LOCKSTEP_GAMES", 1)  # every game alone: one decision a call
    alone = label_games(BASE, "search:budget=16", range(0, 3), seed=9, teacher_share=0.5, temperature=1.0)
    assert len(together.actions) >= 10
    for name in ("obs", "mask", "actions", "targets", "agrees"):
        assert np.array_equal(getattr(together, name), getattr(alone, name))


def test_fine_tuning_raises_the_teachers_moves_probability() -> None:
    labels = collect(BASE, "greedy", games=12, seed=11, teacher_share=1.0)
    agent = PolicyAgent.from_checkpoint(BASE)
    obs, mask = torch.from_numpy(labels.obs), torch.from_numpy(labels.mask)

    def teacher_log_prob() -> float:
        with torch.no_grad():
            logits = agent.model.actor(obs).masked_fill(~mask, -1e9)
            return float(torch.log_softmax(logits, -1)[torch.arange(len(obs)), labels.actions].mean())

    before = teacher_log_prob()
    critic = [p.clone() for p in agent.model.critic.parameters()]
    figures = fine_tune(agent, labels, lr=1e-3, epochs=5, kl_coef=0.0, seed=0)
    assert teacher_log_prob() > before + 0.05
    assert all(torch.equal(a, b) for a, b in zip(critic, agent.model.critic.parameters(), strict=True))
    assert set(figures) == {"held_out_agreement_before", "held_out_agreement_after", "held_out_changed"}


def test_distill_writes_a_checkpoint_that_plays_and_records_how(tmp_path) -> None:
    out = tmp_path / "distilled.pt"
    figures = distill(BASE, out, "greedy", games=4, seed=2, epochs=2, lr=1e-3)
    bot = CheckpointAgent("dominoes", out)
    payload, original = load_checkpoint(out), load_checkpoint(BASE)
    record = payload["distillation"]
    assert record["teacher"] == "greedy" and record["labels"] == figures["labels"]
    changed = [k for k in original["model"] if not torch.equal(original["model"][k], payload["model"][k])]
    assert changed and all(k.startswith("actor.") for k in changed)
    game = LineGame(LineConfig(target_score=None, variant="block", preset="pagat"), np.random.default_rng(0))
    assert game.legal_mask() >> bot.act(game.view(game.current), np.random.default_rng(0)) & 1


@pytest.mark.parametrize("args, message", [
    (["--teacher", "no_such_bot"], "no_such_bot"),
    (["--teacher", "greedy", "--teacher-share", "1.5"], "--teacher-share"),
    (["--teacher", "greedy", "--games", "0"], "--games"),
    (["--teacher", "greedy", "--kl-coef", "-1"], "--kl-coef"),
    (["--teacher", "greedy", "--temperature", "1"], "--temperature"),
])
def test_bad_arguments_stop_before_any_game(args, message, tmp_path, capsys) -> None:
    base = ["--checkpoint", str(BASE), "--games", "3", "--out", str(tmp_path / "x.pt")]
    with pytest.raises(SystemExit) as stop:
        main(base + args)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()
