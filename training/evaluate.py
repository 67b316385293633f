"""The periodic evaluation hooks of the training loop.

- ``win_rate_vs_random`` (every ``eval_interval`` iterations): the greedy learner against uniform
  random play on fresh batched games. Cheap, so it runs often; a sanity check, not a benchmark.
- ``harness_evaluation`` (every ``harness_every``-th of those): the learner, saved as a checkpoint,
  against the scripted bots through ``domino_env.evaluation``: duplicate deals, seats rotated,
  95% intervals over deals. Slower (the bots play on seat views, one game at a time), so it runs
  on a small number of deals; the figures in docs/results.md use ``domino-evaluate`` on many more.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from domino_env.evaluation import GameSetup, evaluate
from domino_env_training.checkpoints import save_checkpoint
from domino_env_training.config import Config
from domino_env_training.networks import ActorCritic
from domino_env_training.rollout import OBSERVATION_ENCODER, DeviceGame, GameFactory, learner_score
from domino_env_training.scripted import random_actions


def win_rate_vs_random(model: ActorCritic, make_game: GameFactory, sides: np.ndarray, num_games: int,
                       seed: int, device: torch.device) -> float:
    """Mean score (win 1, tie 0.5) of the greedy ``model`` against random play over ``num_games``
    games, each played once in one batch; the learner's side rotates over the games."""
    game = DeviceGame(make_game(num_games, seed), device)
    generator = torch.Generator(device=device).manual_seed(seed)
    sides = torch.as_tensor(sides, device=device)
    side_ids = sides.unique()
    rotation = side_ids[torch.arange(num_games, device=device) % len(side_ids)]
    learner_seats = sides[None, :] == rotation[:, None]
    returns = torch.zeros((num_games, game.num_players), device=device)
    scores = torch.zeros(num_games, device=device)
    finished = torch.zeros(num_games, dtype=torch.bool, device=device)
    batch = game.reset()
    while not bool(finished.all()):
        obs, mask = batch.obs, batch.mask
        learner_turn = learner_seats.gather(1, batch.seat[:, None])[:, 0]
        greedy = model.act(obs, mask, greedy=True)
        batch = game.step(torch.where(learner_turn, greedy, random_actions(obs, mask, generator)))
        returns += batch.rewards * ~finished[:, None]
        ended = batch.done & ~finished
        scores = torch.where(ended, learner_score(returns, learner_seats), scores)
        finished |= batch.done
    return float(scores.mean())


def harness_evaluation(model: ActorCritic, config: Config, global_step: int) -> dict[str, float]:
    """The learner against each harness opponent on ``config.harness_deals`` duplicate deals.

    The weights go to ``<run>/eval/policy.pt`` (a checkpoint the ``checkpoint`` bot loads); each
    opponent's full result goes to ``<run>/eval/step_<global_step>_vs_<bot>.json`` / ``.md``. Returns
    the learner's win rate, mean margin per round and cross-play share (the measure of the benchmark
    tasks' targets, comparable across seat counts) with their 95% intervals, per opponent.
    """
    out = config.run_path / "eval"
    policy = out / "policy.pt"
    save_checkpoint(policy, {
        "config": config.to_dict(), "obs_dim": model.obs_dim, "num_actions": model.num_actions,
        "observation_encoder": OBSERVATION_ENCODER, "critic_dim": model.critic_dim,
        "hands_dim": model.hands_dim,
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    })
    setup = GameSetup(config.game.name, dict(config.game.options))
    opponents = config.harness_opponents or [config.game.record.default_bot]
    scalars = {}
    for bot in opponents:
        result = evaluate(setup, [f"learner=checkpoint:path={policy}", bot], config.harness_deals,
                          seed=config.seed, workers=config.harness_workers)
        stem = Path(out, f"step_{global_step}_vs_{bot.replace(':', '_').replace('=', '_')}")
        stem.with_suffix(".json").write_text(result.to_json())
        stem.with_suffix(".md").write_text(result.to_markdown())
        learner = result.summary[0]
        stats = {"win_rate": learner["win_rate"], "margin": learner["margin"],
                 "crossplay": result.crossplay_ci[0][1]}
        for stat, (mean, low, high) in stats.items():
            scalars.update({f"harness_{stat}_vs_{bot}": mean, f"harness_{stat}_vs_{bot}_low": low,
                            f"harness_{stat}_vs_{bot}_high": high})
    return scalars
