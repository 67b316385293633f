"""sb3-contrib's MaskablePPO on ``SB3VecEnv(DominoVectorEnv)``: Block, two players, one learner seat
against a batched bot (``random`` by default), hundreds of games per step.

    .venv/bin/python scripts/sb3_maskable_ppo.py --steps 200000
    .venv/bin/python scripts/sb3_maskable_ppo.py --opponents greedy --steps 1000000

Progress: SB3's own log table after every rollout; ``rollout/ep_rew_mean`` (the learner's mean
zero-sum reward per round against the training opponent, over SB3's last 100 episodes) comes from
the ``info["episode"]`` records ``SB3VecEnv`` writes, with no ``VecMonitor``. ``--tensorboard DIR``
writes the same scalars for TensorBoard. The run ends with the deterministic policy's score against
``random`` and ``greedy`` on duplicate deals (``domino_env.integrations.scoring``).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from domino_env.bots.batched import BatchedPolicy
from domino_env.integrations.sb3 import SB3VecEnv
from domino_env.integrations.scoring import score_policy, scores_text
from domino_env.wrappers.vector_env import DominoVectorEnv

BLOCK_2P = {"variant": "block", "num_players": 2}


def train(steps: int = 100_000, num_envs: int = 256, opponents: str = "random", seed: int = 0,
          verbose: int = 1, tensorboard: str | None = None) -> MaskablePPO:
    """MaskablePPO for ``steps`` learner steps (settings measured in docs/vector_envs.md)."""
    venv = SB3VecEnv(DominoVectorEnv(num_envs=num_envs, opponents=opponents, **BLOCK_2P))
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=1024, n_epochs=4, learning_rate=1e-3,
                        seed=seed, verbose=verbose, tensorboard_log=tensorboard,
                        policy_kwargs={"net_arch": [64, 64]})
    return model.learn(steps)


def greedy_policy(model: MaskablePPO) -> BatchedPolicy:
    """The model's deterministic move as a batched policy ``(obs, mask, rng) -> actions``."""

    def policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        return model.predict(obs, action_masks=mask, deterministic=True)[0]

    return policy


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="learner steps")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--opponents", default="random", help="the batched bot the learner trains against")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals of the final score")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tensorboard", help="a folder for SB3's TensorBoard logs")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a small network: more threads only contend, ten times slower on two cores
    model = train(args.steps, args.num_envs, args.opponents, args.seed, tensorboard=args.tensorboard)
    print(scores_text(score_policy(greedy_policy(model), "dominoes", BLOCK_2P, num_deals=args.deals)))


if __name__ == "__main__":
    main()
