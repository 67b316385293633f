"""AgileRL's DQN on ``DominoVectorEnv`` (Block, two players, against ``random`` by default), no glue.

    .venv-agilerl/bin/python scripts/agilerl_dqn.py --steps 200000
    .venv-agilerl/bin/python scripts/agilerl_dqn.py --opponents greedy

AgileRL takes the environment as it is: ``DominoVectorEnv`` is a ``gymnasium.vector.VectorEnv``
whose ``info["action_mask"]`` (int8 0/1, the mask AgileRL's DQN subtracts from one) its
``train_off_policy`` loop reads at every step. One agent, no evolution (``tournament`` and
``mutation`` off). Progress: AgileRL's bar, and after each ``--evo-steps`` the agent's mean episode
return over the batch (``fitness``: its greedy policy, one episode per game). The run ends with the
policy's score against ``random`` and ``greedy`` on duplicate deals (``domino_env.integrations.scoring``).
AgileRL 2.58 pins pettingzoo < 1.27: its own venv, ``scripts/ci_agilerl.sh`` (the ``agilerl`` extra).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from agilerl.algorithms import DQN
from agilerl.components.replay_buffer import ReplayBuffer
from agilerl.training.train_off_policy import train_off_policy

from domino_env.bots.batched import BatchedPolicy
from domino_env.integrations.scoring import score_policy, scores_text
from domino_env.wrappers.vector_env import DominoVectorEnv

BLOCK_2P = {"variant": "block", "num_players": 2}


def train(
    *,
    steps: int = 100_000,
    num_envs: int = 64,
    evo_steps: int = 10_000,
    opponents: str = "random",
    hidden: int = 128,
    seed: int = 0,
    verbose: bool = True,
) -> tuple[DQN, list[float]]:
    """Train one DQN agent for ``steps`` learner steps; the agent and its fitness after each
    ``evo_steps`` (mean episode return of its greedy policy)."""
    torch.manual_seed(seed)
    env = DominoVectorEnv(num_envs=num_envs, opponents=opponents, **BLOCK_2P)
    env.reset(seed=seed)
    agent = DQN(
        env.single_observation_space,
        env.single_action_space,
        net_config={"head_config": {"hidden_size": [hidden, hidden]}},
        batch_size=256,
        lr=1e-3,
        learn_step=num_envs,
        gamma=1.0,  # one round per episode, rewards only at its end
        tau=0.01,
    )
    population, _ = train_off_policy(
        env,
        "Block2p",
        "DQN",
        [agent],
        ReplayBuffer(max_size=50_000),
        max_steps=steps,
        evo_steps=evo_steps,
        eps_start=1.0,
        eps_end=0.05,
        eps_decay=1 - 4 / (steps // num_envs),  # at eps_end (0.05, about e^-3) three quarters through
        verbose=verbose,
    )
    return population[0], list(population[0].fitness)


def greedy_policy(agent: DQN) -> BatchedPolicy:
    """The agent's best legal move as a batched policy ``(obs, mask, rng) -> actions``."""

    def policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        return agent.get_action(obs, epsilon=0.0, action_mask=np.asarray(mask, np.int8))

    return policy


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="learner steps")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--evo-steps", type=int, default=10_000, help="learner steps between evaluations")
    parser.add_argument("--opponents", default="random", help="the batched bot the learner trains against")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals of the final score")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a small network: more threads only contend, ten times slower on two cores
    agent, fitnesses = train(steps=args.steps, num_envs=args.num_envs, evo_steps=args.evo_steps,
                             opponents=args.opponents, seed=args.seed)
    print("fitness after each evaluation:", " ".join(f"{f:+.2f}" for f in fitnesses))
    print(scores_text(score_policy(greedy_policy(agent), "dominoes", BLOCK_2P, num_deals=args.deals)))


if __name__ == "__main__":
    main()
