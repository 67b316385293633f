import numpy as np
import pytest
import torch

from domino_env_training.rollout import learner_score, per_seat_gae


def _tensors(*arrays: np.ndarray) -> list[torch.Tensor]:
    return [torch.as_tensor(a) for a in arrays]


def test_rewards_between_decisions_are_credited_to_each_seats_last_decision():
    # Two seats alternate; seat 1's move at t=1 earns seat 0 a point; the game ends at t=3 with
    # +2 / -2; t=4 is the first move of a new game whose outcome lies beyond the rollout.
    seats = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2), np.float32)
    rewards[1, 0] = [1.0, 0.0]
    rewards[3, 0] = [2.0, -2.0]
    dones = np.array([[False], [False], [False], [True], [False]])
    values = np.zeros((5, 1), np.float32)
    adv, ret, valid = per_seat_gae(*_tensors(seats, np.ones((5, 1), bool), values, rewards, dones), 1.0, 1.0)
    assert adv[:4, 0].tolist() == [3.0, -2.0, 2.0, -2.0]
    assert valid[:, 0].tolist() == [True, True, True, True, False]
    np.testing.assert_array_equal(ret.numpy(), adv.numpy() + values)


def test_truncated_trajectory_bootstraps_from_the_seats_next_value():
    seats = np.array([[0], [1], [0]])
    values = np.array([[0.5], [0.2], [0.7]], np.float32)
    rewards = np.zeros((3, 1, 2), np.float32)
    no_dones, learner = np.zeros((3, 1), bool), np.ones((3, 1), bool)
    adv, _, valid = per_seat_gae(*_tensors(seats, learner, values, rewards, no_dones), 0.9, 0.95)
    assert valid[:, 0].tolist() == [True, False, False]
    assert adv[0, 0] == pytest.approx(0.9 * 0.7 - 0.5)  # the unknown decision's advantage is not used


def test_opponent_decisions_are_not_learner_transitions():
    seats = np.array([[0, 1], [1, 0], [0, 1]])
    learner = seats == 0
    rewards = np.zeros((3, 2, 2), np.float32)
    rewards[2] = [[1.0, -1.0], [-1.0, 1.0]]
    dones = np.array([[False, False], [False, False], [True, True]])
    values = np.zeros((3, 2), np.float32)
    adv, _, valid = per_seat_gae(*_tensors(seats, learner, values, rewards, dones), 1.0, 1.0)
    assert (valid.numpy() == learner).all()
    assert adv[torch.as_tensor(learner)].tolist() == [1.0, -1.0, 1.0]  # t=0 game 0, t=1 game 1, t=2 game 0
    assert (adv[torch.as_tensor(~learner)] == 0).all()


def test_learner_score_compares_sides():
    returns = np.array([[5.0, 0.0], [0.0, 5.0], [0.0, 0.0], [3.0, 3.0]])
    learner = np.array([[True, False], [True, False], [True, False], [False, True]])
    assert learner_score(*_tensors(returns, learner)).tolist() == [1.0, 0.0, 0.5, 0.5]
