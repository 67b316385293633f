"""The periodic evaluation hook of the training loop.

For now: the greedy learner against the uniformly random policy on fresh batched games. The
evaluation harness of issue 5 (scripted bots, duplicate deals, confidence intervals) will replace
the body of ``periodic_evaluation``; the loop only relies on its signature and its dict of scalars.
"""

from __future__ import annotations

import numpy as np
import torch

from training.networks import ActorCritic
from training.rollout import GameFactory, learner_score
from training.scripted import random_actions


def win_rate_vs_random(model: ActorCritic, make_game: GameFactory, sides: np.ndarray, num_games: int,
                       seed: int, device: torch.device) -> float:
    """Mean score (win 1, tie 0.5) of the greedy ``model`` against random play over ``num_games``
    games, each played once in one batch; the learner's side rotates over the games."""
    game = make_game(num_games, seed)
    generator = torch.Generator(device=device).manual_seed(seed)
    side_ids = np.unique(sides)
    learner_seats = sides[None, :] == side_ids[np.arange(num_games) % len(side_ids)][:, None]
    returns = np.zeros((num_games, game.num_players))
    scores = np.zeros(num_games)
    finished = np.zeros(num_games, dtype=bool)
    batch = game.reset()
    while not finished.all():
        obs = torch.as_tensor(batch.obs, device=device)
        mask = torch.as_tensor(batch.mask, device=device)
        learner_turn = torch.as_tensor(learner_seats[np.arange(num_games), batch.seat], device=device)
        greedy = model.act(obs, mask, greedy=True)
        actions = torch.where(learner_turn, greedy, random_actions(obs, mask, generator))
        batch = game.step(actions.cpu().numpy())
        returns[~finished] += batch.rewards[~finished]
        ended = batch.done & ~finished
        scores[ended] = learner_score(returns[ended], learner_seats[ended])
        finished |= batch.done
    return float(scores.mean())


def periodic_evaluation(model: ActorCritic, make_game: GameFactory, sides: np.ndarray, num_games: int,
                        seed: int, device: torch.device) -> dict[str, float]:
    """Scalars logged under ``charts/`` every ``eval_interval`` iterations (the issue-5 hook)."""
    return {"eval_win_rate_vs_random": win_rate_vs_random(model, make_game, sides, num_games, seed, device)}
