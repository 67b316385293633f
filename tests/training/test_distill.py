"""Distillation (``domino_env_training.distill``): labels are the teacher's legal moves at the
student's positions, independent of how the games are split, the fine-tune moves the policy toward
them, saved labels fine-tune as the labels collected, and the written checkpoint plays as a bot."""

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
from domino_env_training.distill import SOFTENED, Labels, collect, distill, fine_tune, label_games, main

BASE = baseline_path("Block2p")


def test_labels_are_legal_teacher_moves_at_real_decisions() -> None:
    labels = collect(BASE, "greedy", games=6, seed=3, teacher_share=0.5)
    assert len(labels.actions) >= 20
    assert labels.mask[np.arange(len(labels.actions)), labels.actions].all()
    assert (labels.mask.sum(axis=1) >= 2).all()  # forced moves are not labelled
    one_hot = np.eye(labels.mask.shape[1], dtype=np.float32)[labels.actions]
    assert np.array_equal(labels.targets(), one_hot)
    assert np.array_equal(labels.targets(temperature=2.0), one_hot)  # no scores: the move alone
    assert np.array_equal(np.isfinite(labels.mean_scores), one_hot.astype(bool))
    assert labels.obs.shape == (len(labels.actions), PolicyAgent.from_checkpoint(BASE).model.obs_dim)
    assert not labels.agrees.all()  # greedy and the network differ somewhere


def test_the_student_as_its_own_teacher_always_agrees() -> None:
    labels = collect(BASE, f"checkpoint:path={BASE}", games=4, seed=5, teacher_share=0.0)
    assert len(labels.actions) > 0 and labels.agrees.all()


@pytest.mark.parametrize("soften", SOFTENED)
def test_soft_targets_spread_over_the_search_candidates_and_peak_at_its_move(soften: str) -> None:
    labels = collect(BASE, "search:budget=16", games=3, seed=4, teacher_share=0.5)
    targets = labels.targets(temperature=0.5, soften=soften)
    assert len(labels.actions) >= 10
    assert np.allclose(targets.sum(axis=1), 1.0, atol=1e-5)
    assert (targets[~labels.mask] == 0).all()
    rows = np.arange(len(labels.actions))
    assert np.allclose(targets[rows, labels.actions], targets.max(axis=1))
    assert ((targets > 0).sum(axis=1) >= 2).any()  # not one-hot: near moves keep weight


def test_fives_targets_softened_by_the_searchs_own_rule_peak_at_its_move() -> None:
    """The Fives search keeps greedy's move unless another gains more than one standard error
    (``FivesSearchAgent.scores``): ``--soften move`` peaks there, where the best mean may not."""
    labels = label_games(baseline_path("AllFives2p"), "search:budget=12", range(1), seed=6, teacher_share=1.0)
    assert len(labels.actions) >= 10
    rows = np.arange(len(labels.actions))
    move = labels.targets(temperature=1.0, soften="move")
    assert np.allclose(move[rows, labels.actions], move.max(axis=1))
    mean = labels.targets(temperature=1.0, soften="mean")
    assert (mean[rows, labels.actions] < mean.max(axis=1) - 1e-6).any()  # the best mean is elsewhere


def test_labels_do_not_depend_on_how_the_games_are_split(capsys) -> None:
    whole = label_games(BASE, "greedy", range(0, 4), seed=7, teacher_share=0.5)
    halves = Labels.join([label_games(BASE, "greedy", range(0, 2), seed=7, teacher_share=0.5, progress=True),
                          label_games(BASE, "greedy", range(2, 4), seed=7, teacher_share=0.5)])
    assert "games 0-1" in capsys.readouterr().err  # the progress bar names its block, and changes nothing
    for name in Labels.FIELDS:
        assert np.array_equal(getattr(whole, name), getattr(halves, name))
    other_seed = label_games(BASE, "greedy", range(0, 4), seed=8, teacher_share=0.5)
    assert not np.array_equal(other_seed.obs[:10], whole.obs[:10])


def test_labels_do_not_depend_on_how_many_games_play_in_lockstep(monkeypatch) -> None:
    together = label_games(BASE, "search:budget=16", range(0, 3), seed=9, teacher_share=0.5)
    monkeypatch.setattr(distill_module, "LOCKSTEP_GAMES", 1)  # every game alone: one decision a call
    alone = label_games(BASE, "search:budget=16", range(0, 3), seed=9, teacher_share=0.5)
    assert len(together.actions) >= 10
    for name in Labels.FIELDS:
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
    figures = fine_tune(agent, labels, labels.targets(), lr=1e-3, epochs=5, kl_coef=0.0, seed=0)
    assert teacher_log_prob() > before + 0.05
    assert all(torch.equal(a, b) for a, b in zip(critic, agent.model.critic.parameters(), strict=True))
    assert set(figures) == {"held_out_agreement_before", "held_out_agreement_after", "held_out_changed"}


def test_distill_writes_a_checkpoint_that_plays_and_records_how(tmp_path) -> None:
    out = tmp_path / "distilled.pt"
    labels = collect(BASE, "greedy", games=4, seed=2, teacher_share=0.5)
    figures = distill(BASE, out, labels, {"teacher": "greedy", "games": 4}, epochs=2, lr=1e-3)
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
    (["--teacher", "greedy", "--soften", "median"], "--soften"),
    (["--teacher", "greedy", "--save-labels", "labels.txt"], "--save-labels"),
    (["--load-labels", "labels.npz"], "--load-labels"),  # beside --teacher and --games
    ([], "--teacher and --games"),
])
def test_bad_arguments_stop_before_any_game(args, message, tmp_path, capsys) -> None:
    base = ["--checkpoint", str(BASE), "--games", "3", "--out", str(tmp_path / "x.pt")]
    with pytest.raises(SystemExit) as stop:
        main(base + args)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_saved_labels_fine_tune_as_the_labels_collected(tmp_path) -> None:
    common = ["--checkpoint", str(BASE), "--seed", "4", "--epochs", "2", "--lr", "1e-3", "--temperature", "2"]
    saved = tmp_path / "labels.npz"
    assert main(common + ["--teacher", "search:budget=8", "--games", "2", "--save-labels", str(saved),
                          "--out", str(tmp_path / "collected.pt")]) == 0
    labels, about = Labels.load(saved)
    assert about == {"teacher": "search:budget=8", "games": 2, "seed": 4, "teacher_share": 0.5,
                     "scored": True}
    assert main(common + ["--load-labels", str(saved), "--out", str(tmp_path / "loaded.pt")]) == 0
    collected, loaded = load_checkpoint(tmp_path / "collected.pt"), load_checkpoint(tmp_path / "loaded.pt")
    assert all(torch.equal(collected["model"][k], loaded["model"][k]) for k in collected["model"])
    assert collected["distillation"] == loaded["distillation"]
    assert loaded["distillation"]["labels"] == len(labels.actions)


def test_several_label_files_fine_tune_as_one_collection(tmp_path) -> None:
    files, parts = [], []
    for seed in (1, 2):
        parts.append(collect(BASE, "greedy", games=2, seed=seed, teacher_share=0.5))
        files.append(tmp_path / f"round_{seed}.npz")
        parts[-1].save(files[-1], {"teacher": "greedy", "games": 2, "seed": seed, "scored": False})
    joined, about = Labels.load_many(files)
    for name in Labels.FIELDS:
        assert np.array_equal(getattr(joined, name), getattr(Labels.join(parts), name))
    assert about["teacher"] == "greedy" and not about["scored"]
    assert [a["seed"] for a in about["collections"]] == [1, 2]
    assert main(["--checkpoint", str(BASE), "--load-labels", *map(str, files), "--epochs", "1",
                 "--out", str(tmp_path / "joined.pt")]) == 0
    assert load_checkpoint(tmp_path / "joined.pt")["distillation"]["labels"] == len(joined.actions)


def test_labels_of_another_game_or_teacher_or_none_are_refused(tmp_path, capsys) -> None:
    greedy_labels = tmp_path / "greedy.npz"
    collect(BASE, "greedy", games=2, seed=1, teacher_share=0.5).save(greedy_labels, {
        "teacher": "greedy", "games": 2, "seed": 1, "teacher_share": 0.5, "scored": False})
    fives = str(baseline_path("AllFives2p"))
    for checkpoint, labels, extra, message in [
            (fives, greedy_labels, [], "observations of width"),
            (str(BASE), greedy_labels, ["--temperature", "1"], "--temperature"),
            (str(BASE), tmp_path / "missing.npz", [], "missing.npz")]:
        with pytest.raises(SystemExit):
            main(["--checkpoint", checkpoint, "--load-labels", str(labels), "--out", str(tmp_path / "x.pt"),
                  *extra])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()
