"""The imitation warm start (domino_env_training.imitation) on the fake high-card game."""

import numpy as np
import pytest
import torch
from fake_game import high_card_factory

from domino_env_training.config import from_dict
from domino_env_training.imitation import imitate, label_games
from domino_env_training.networks import ActorCritic
from domino_env_training.ppo import seeded_history, train


def lowest_legal(obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """A teacher no reward would teach (high card rewards the highest action)."""
    return mask.float().argmax(-1)


def test_the_network_copies_its_teacher(tiny_config):
    config = from_dict({**tiny_config.to_dict(), "imitation": {
        "teacher": "random", "num_envs": 256, "num_steps": 24, "epochs": 30, "minibatch_size": 512}})
    probe = high_card_factory(1, 0)
    torch.manual_seed(0)
    agent = ActorCritic(probe.obs_dim, probe.num_actions, config.network)
    figures = imitate(agent, lowest_legal, high_card_factory, config, torch.device("cpu"))
    assert figures["imitation_samples"] == 256 * 24  # a game lasts 6 steps: every decision is complete
    assert figures["imitation_held_out_samples"] == 256 // 16 * 24  # whole games: one in 16
    assert figures["imitation_accuracy"] > 0.95
    assert figures["imitation_held_out_accuracy"] > 0.95

    fresh = high_card_factory(2048, seed=99).reset()  # positions the imitation never saw
    obs, mask = torch.as_tensor(fresh.obs), torch.as_tensor(fresh.mask)
    agreement = (agent.act(obs, mask, greedy=True) == lowest_legal(obs, mask, None)).float().mean()
    assert agreement > 0.95


def test_imitation_returns_train_the_critic(tiny_config):
    """The critic learns the teacher's Monte Carlo returns: after the epochs its error is well below
    that of the same critic left untrained (a learning rate of 1e-9) on the same games."""
    def value_loss(lr: float) -> float:
        config = from_dict({**tiny_config.to_dict(), "imitation": {
            "teacher": "random", "num_envs": 256, "num_steps": 24, "epochs": 30, "minibatch_size": 512,
            "lr": lr}})
        torch.manual_seed(0)
        agent = ActorCritic(14, 8, config.network)  # high card: 8 actions, 8 + 6 observation entries
        return imitate(agent, lowest_legal, high_card_factory, config, torch.device("cpu"))[
            "imitation_value_loss"]

    assert value_loss(1e-3) < 0.9 * value_loss(1e-9)


def test_training_with_imitation_records_it_and_is_reproducible(tiny_config, tmp_path):
    data = {**tiny_config.to_dict(), "imitation": {"teacher": "random", "num_envs": 64, "num_steps": 12}}
    first = train(from_dict(data), make_game=high_card_factory, progress=False)
    again = train(from_dict({**data, "run_dir": str(tmp_path / "again")}), make_game=high_card_factory,
                  progress=False)
    start = first.history[0]
    assert start["iteration"] == 0 and start["global_step"] == 0
    assert start["imitation_samples"] == 64 * 12 and 0.0 < start["imitation_accuracy"] < 1.0
    assert start["imitation_held_out_samples"] == 4 * 12
    assert 0.0 <= start["imitation_held_out_accuracy"] <= 1.0
    assert seeded_history(first.history) == seeded_history(again.history)
    assert np.isclose(first.history[-1]["global_step"], tiny_config.total_steps)


def test_resume_after_imitation_does_not_imitate_again(tiny_config, tmp_path):
    data = {**tiny_config.to_dict(), "imitation": {"teacher": "random", "num_envs": 64, "num_steps": 12}}
    whole = train(from_dict(data), make_game=high_card_factory, progress=False)
    config = from_dict({**data, "run_dir": str(tmp_path / "interrupted")})
    calls = 0

    def crashing_factory(num_envs: int, seed: int):
        nonlocal calls
        calls += 1
        if calls == 3:  # probe, imitation, then the first rollout: killed
            raise KeyboardInterrupt
        return high_card_factory(num_envs, seed)

    with pytest.raises(KeyboardInterrupt):
        train(config, make_game=crashing_factory, progress=False)
    resumed = train(config, make_game=high_card_factory, progress=False, resume=True)
    # One imitation record, then the same iterations.
    assert seeded_history(resumed.history) == seeded_history(whole.history)


def test_rounds_play_fresh_games_and_the_first_is_the_one_round_imitation(tiny_config):
    seeds: list[int] = []

    def recording_factory(num_envs: int, seed: int):
        seeds.append(seed)
        return high_card_factory(num_envs, seed)

    def run(rounds: int) -> dict[str, float]:
        config = from_dict({**tiny_config.to_dict(), "imitation": {
            "teacher": "random", "num_envs": 32, "num_steps": 12, "rounds": rounds}})
        torch.manual_seed(0)
        agent = ActorCritic(14, 8, config.network)
        return imitate(agent, lowest_legal, recording_factory, config, torch.device("cpu"))

    one = run(1)
    three = run(3)
    assert seeds[0] == seeds[1] and len(set(seeds[1:])) == 3  # round 0 unchanged, then fresh deals
    assert three["imitation_samples"] == 3 * one["imitation_samples"] == 3 * 32 * 12
    assert three["imitation_steps"] == 3 * 32 * 12


def test_dagger_plays_the_students_moves_and_labels_them_with_the_teachers(tiny_config):
    config = from_dict({**tiny_config.to_dict(), "imitation": {
        "teacher": "random", "num_envs": 64, "num_steps": 12}})
    torch.manual_seed(0)
    student = ActorCritic(14, 8, config.network)

    def label(by_student: bool):
        generator = torch.Generator().manual_seed(5)
        return label_games(lowest_legal, student if by_student else None, high_card_factory, config,
                           torch.device("cpu"), 0, 11, generator)

    teacher_played, student_played = label(False), label(True)
    for data in (teacher_played, student_played):
        assert torch.equal(data.teacher_actions, lowest_legal(data.obs, data.mask, None))
    # High card deals its legal moves whatever is played, so only the results tell whose moves
    # were played: always the lowest card (the teacher) scores differently from the network.
    assert torch.equal(teacher_played.obs, student_played.obs)
    assert not torch.equal(teacher_played.returns, student_played.returns)
