"""The optional centralized critic: the critic reads the hidden hands, the actor never does."""

import numpy as np
import pytest
import torch
from fake_game import high_card_factory

from domino_env.vector import VectorLineGame, VectorTexas42Game
from domino_env.vector.batch import hidden_hands
from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoints import CHECKPOINT_NAME, load_checkpoint
from domino_env_training.config import NetworkConfig, from_dict
from domino_env_training.networks import ActorCritic
from domino_env_training.ppo import train


@pytest.mark.parametrize("engine", [VectorLineGame(5, seed=1, num_players=4, teams=True),
                                    VectorTexas42Game(5, seed=1)], ids=["line 4p", "texas42"])
def test_hidden_hands_are_the_other_seats_hands_from_the_actors_left(engine):
    batch = engine.reset()
    hidden = hidden_hands(engine, batch.seat, 28)
    assert hidden.shape == (5, 3 * 28)
    for g in range(5):
        for j in range(1, 4):
            hand = int(np.asarray(engine.hands[g, (batch.seat[g] + j) % 4]).reshape(-1)[0])
            expected = [hand >> t & 1 for t in range(28)]
            assert hidden[g, (j - 1) * 28: j * 28].tolist() == expected
        assert hidden[g].sum() == 21  # three hands of seven: nothing of the actor's own hand


def test_actor_ignores_the_critic_input():
    """Same action distribution whatever the critic reads; only the value changes."""
    torch.manual_seed(0)
    net = ActorCritic(10, 6, NetworkConfig(hidden_sizes=[16]), critic_dim=10 + 12)
    obs, mask = torch.randn(32, 10), torch.ones(32, 6, dtype=torch.bool)
    actions = torch.randint(6, (32,))
    a = net.get_action_and_value(obs, mask, actions, critic_input=torch.cat([obs, torch.zeros(32, 12)], 1))
    b = net.get_action_and_value(obs, mask, actions, critic_input=torch.cat([obs, torch.ones(32, 12)], 1))
    assert torch.equal(a[1], b[1]) and torch.equal(a[2], b[2])  # log-probabilities, entropies
    assert not torch.equal(a[3], b[3])  # values
    assert net.actor[0].in_features == 10 and net.critic[0].in_features == 22


def test_centralized_run_keeps_the_actor_on_the_observation(tmp_path):
    config = from_dict({
        "run_dir": str(tmp_path), "total_steps": 2 * 16 * 16, "eval_interval": 2, "eval_games": 16,
        "game": {"options": {"target_score": None}}, "ppo": {"num_envs": 16, "num_steps": 16},
        "network": {"hidden_sizes": [16], "centralized_critic": True},
    })
    result = train(config, progress=False)
    checkpoint = load_checkpoint(result.run_path / CHECKPOINT_NAME)
    obs_dim = checkpoint["obs_dim"]
    assert checkpoint["critic_dim"] == obs_dim + 28  # one other hand of the 28 tiles
    assert checkpoint["model"]["actor.0.weight"].shape[1] == obs_dim
    assert checkpoint["model"]["critic.0.weight"].shape[1] == obs_dim + 28
    agent = PolicyAgent.from_checkpoint(result.run_path / CHECKPOINT_NAME)  # plays from obs alone
    batch = VectorLineGame(8, seed=2, target_score=None).reset()
    assert batch.mask[np.arange(8), agent.act(batch.obs, batch.mask)].all()


def test_centralized_critic_needs_a_batched_engine(tiny_config):
    tiny_config.network.centralized_critic = True
    with pytest.raises(ValueError, match="centralized_critic and .* need a batched engine"):
        train(tiny_config, make_game=high_card_factory, progress=False)
