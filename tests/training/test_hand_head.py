"""The optional hand head: an auxiliary loss on the true deal, scored against the uniform sampler."""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from fake_game import high_card_factory

from domino_env.rules.line import LineConfig, LineGame
from domino_env.rules.tiles import iter_bits
from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoints import CHECKPOINT_NAME, load_checkpoint
from domino_env_training.config import NetworkConfig, from_dict
from domino_env_training.hand_beliefs import binary_log_loss, hand_log_loss, unseen_tiles
from domino_env_training.networks import ActorCritic
from domino_env_training.ppo import train

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from hand_logloss import main as hand_logloss_script  # noqa: E402


def test_hand_head_reads_the_actors_hidden_layer_and_leaves_acting_alone():
    torch.manual_seed(0)
    net = ActorCritic(10, 6, NetworkConfig(hidden_sizes=[16, 8]), hands_dim=12)
    obs = torch.randn(4, 10)
    assert net.hand_logits(obs).shape == (4, 12)
    net.hand_logits(obs).sum().backward()
    assert net.actor[0].weight.grad is not None and net.critic[0].weight.grad is None
    assert net.actor[-1].weight.grad is None  # the policy's own output layer is not shared
    plain = ActorCritic(10, 6, NetworkConfig(hidden_sizes=[16, 8]))
    assert not any(name.startswith("hand_head") for name in plain.state_dict())  # old checkpoints load


def test_unseen_tiles_are_neither_held_nor_played():
    game = LineGame(LineConfig(variant="block", num_players=2), np.random.default_rng(3))
    for _ in range(4):
        game.apply(next(iter_bits(game.legal_mask())))
    view = game.view(game.current)
    unseen = unseen_tiles(view)
    played = [tile for tile, _seat, _side in view.line]
    assert unseen & view.hand == 0 and all(not unseen >> t & 1 for t in played)
    assert unseen.bit_count() == 28 - view.hand.bit_count() - len(played)
    other = game.hands[1 - view.seat]
    assert other & ~unseen == 0  # the other hand is among the unseen tiles


def test_binary_log_loss():
    losses = binary_log_loss(np.array([0.5, 0.5, 0.9, 0.9]), np.array([0.0, 1.0, 1.0, 0.0]))
    assert losses == pytest.approx([math.log(2), math.log(2), -math.log(0.9), -math.log(0.1)])


def test_run_trains_the_hand_head_below_a_coin_flip(tmp_path, capsys):
    config = from_dict({
        "run_dir": str(tmp_path), "total_steps": 8 * 16 * 16, "eval_interval": 8, "eval_games": 16,
        "game": {"options": {"target_score": None}}, "ppo": {"num_envs": 16, "num_steps": 16, "lr": 3e-3},
        "network": {"hidden_sizes": [32], "hand_head_coef": 1.0},
    })
    result = train(config, progress=False)
    path = result.run_path / CHECKPOINT_NAME
    checkpoint = load_checkpoint(path)
    assert checkpoint["hands_dim"] == 28  # one other hand of the 28 tiles
    assert checkpoint["model"]["hand_head.weight"].shape == (28, 32)
    assert PolicyAgent.from_checkpoint(path).model.hands_dim == 28
    scores = hand_log_loss(path, positions=20, samples=20, seed=1)
    assert scores["positions"] == 20 and scores["pairs"] > 20 * 7
    assert scores["network"] < math.log(2) - 0.02  # the untrained head's logits are about 0: ln 2
    assert 0 < scores["held_share"] < 1 and scores["uniform"] < math.log(2)
    assert scores["difference_low"] < scores["difference"] < scores["difference_high"]
    assert hand_logloss_script([str(path), "--positions", "20", "--samples", "20", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out) == scores  # the command line prints the same figures


def test_the_hand_head_adds_no_pass_through_the_actors_hidden_layers(tmp_path, monkeypatch):
    """The update feeds the policy layer and the hand head from one trunk pass (it once ran twice)."""
    calls = []
    features = ActorCritic.features
    monkeypatch.setattr(ActorCritic, "features", lambda self, obs: calls.append(1) or features(self, obs))

    def trunk_passes(hand_head_coef: float) -> int:
        calls.clear()
        train(from_dict({
            "run_dir": str(tmp_path / str(hand_head_coef)), "total_steps": 2 * 8 * 8, "eval_interval": 100,
            "game": {"options": {"target_score": None}}, "ppo": {"num_envs": 8, "num_steps": 8},
            "network": {"hidden_sizes": [16], "hand_head_coef": hand_head_coef},
        }), progress=False)
        return len(calls)

    without_head = trunk_passes(0.0)
    assert without_head > 0 and trunk_passes(1.0) == without_head


def test_hand_head_needs_a_batched_engine(tiny_config):
    tiny_config.network.hand_head_coef = 0.5
    with pytest.raises(ValueError, match="hand_head_coef need a batched engine"):
        train(tiny_config, make_game=high_card_factory, progress=False)
