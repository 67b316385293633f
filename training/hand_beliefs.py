"""How well a trained hand head (``network.hand_head_coef``) knows where the unseen tiles are.

The yardstick is ``domino_env.search.beliefs``: its sampler deals the unseen tiles uniformly among the deals
consistent with the seat's view (hand sizes, passes, failures to follow). The marginal it implies,
"seat s holds tile t", is estimated from ``samples`` such deals with add-half smoothing. Both are
scored by log-loss (mean binary cross-entropy, nats) on the true deal, over every pair of another
seat and a tile the viewer cannot see, at positions of games the checkpoint plays against itself.
A head below the sampler has learnt more than the rules prove: how the seats' play reveals hands.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from domino_env.evaluation import GameSetup
from domino_env.rules.line import LineView
from domino_env.rules.tiles import iter_bits
from domino_env.search.beliefs import sample_consistent_deal
from domino_env_training.checkpoint_bot import CheckpointAgent


def unseen_tiles(view: LineView) -> int:
    """The tiles whose place the seat does not know (a bit set): neither in its hand nor played."""
    played = 0
    for tiles in view.played_by:
        played |= tiles
    return ((1 << view.config.tiles.num_tiles) - 1) & ~view.hand & ~played


def binary_log_loss(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Binary cross-entropy (nats) of each probability ``p`` for its 0/1 outcome ``y``."""
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return -(y * np.log(p) + (1 - y) * np.log1p(-p))


def hand_log_loss(checkpoint: str | Path, positions: int = 500, samples: int = 100, seed: int = 0,
                  sample_prob: float = 0.25) -> dict[str, float]:
    """Log-loss of the checkpoint's hand head and of the uniform sampler on the same positions.

    Games are played by the checkpoint on every seat (most probable action); each decision is kept
    with probability ``sample_prob`` until ``positions`` are kept. Returns both log-losses (means
    over the pairs), the network's minus the sampler's with a 95% interval over positions (normal,
    on each position's mean difference), the share of pairs where the seat holds the tile, and the counts.
    """
    agent = CheckpointAgent("dominoes", checkpoint)  # line games: Texas 42 views have no played line
    model = agent.policy.model
    if not model.hands_dim:
        raise ValueError(f"checkpoint {checkpoint} has no hand head (trained with network.hand_head_coef=0)")
    setup = GameSetup(agent.policy.config.game.name, dict(agent.policy.config.game.options))
    rng = np.random.default_rng(seed)
    num_players, num_tiles = setup.num_players, setup.config.tiles.num_tiles
    net_p, uniform_p, truth, position = [], [], [], []
    kept = 0
    while kept < positions:
        game = setup.record.new_engine(setup.config, rng)
        while not game.is_terminal and kept < positions:
            seat = game.current
            view = game.view(seat)
            if view.legal_mask.bit_count() > 1 and rng.random() < sample_prob:
                kept += 1
                unseen = np.fromiter(iter_bits(unseen_tiles(view)), dtype=np.int64)
                obs, _ = agent.encode(view)
                with torch.no_grad():
                    held = torch.sigmoid(model.hand_logits(torch.as_tensor(obs[None])))[0].numpy()
                held = held.reshape(num_players - 1, num_tiles)  # row j - 1: the seat j places on
                counts = np.zeros((num_players, num_tiles))
                for _ in range(samples):
                    for holder, hand in enumerate(sample_consistent_deal(view, rng)["hands"]):
                        counts[holder, list(hand)] += 1
                for j in range(1, num_players):
                    other = (seat + j) % num_players
                    net_p.append(held[j - 1, unseen])
                    uniform_p.append((counts[other, unseen] + 0.5) / (samples + 1))
                    truth.append(game.hands[other] >> unseen & 1)
                    position.append(np.full(unseen.size, kept - 1))
            game.apply(agent.act(view, rng))
    y = np.concatenate(truth).astype(np.float64)
    network = binary_log_loss(np.concatenate(net_p).astype(np.float64), y)
    uniform = binary_log_loss(np.concatenate(uniform_p), y)
    position = np.concatenate(position)
    pairs = np.bincount(position)
    per_position = np.bincount(position, weights=network - uniform)[pairs > 0] / pairs[pairs > 0]
    mean, half = per_position.mean(), 1.96 * per_position.std(ddof=1) / np.sqrt(per_position.size)
    return {"network": float(network.mean()), "uniform": float(uniform.mean()), "difference": float(mean),
            "difference_low": float(mean - half), "difference_high": float(mean + half),
            "held_share": float(y.mean()), "positions": kept, "pairs": int(y.size)}
