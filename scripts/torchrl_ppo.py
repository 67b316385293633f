"""Self-play PPO from TorchRL's parts on ``DominoTorchRLEnv`` (Block, two players, by default).

    .venv/bin/python scripts/torchrl_ppo.py --iterations 40 --num-envs 1024
    .venv/bin/python scripts/torchrl_ppo.py --game texas42 --option preset=standard --iterations 200

One policy plays every seat (observations are seat-relative). TorchRL supplies the pieces:
``ProbabilisticActor`` with ``MaskedCategorical`` reads the logits and the env's ``"action_mask"``
(illegal moves get probability 0, in sampling and in the loss), ``ValueOperator`` is the critic,
``env.rollout`` collects, ``ClipPPOLoss`` is the objective. Advantages are not TorchRL's GAE, which
runs along the batch's time axis: in a turn-based game consecutive steps belong to different seats,
so GAE runs along each seat's own decisions, crediting a seat with every reward it received until
its next decision (``domino_env_training.rollout.per_seat_gae``, the project trainer's function). Each
iteration deals fresh games; decisions whose outcome the rollout did not reach are left out.

Progress: one JSON line per iteration. Its self-play reward (``seat0_reward_per_episode``) stays near
0 however well the policy plays, since it plays itself; every ``--score-every`` iterations the line
adds ``margin_vs_random``, the greedy policy's mean margin against ``random`` over 50 duplicate
deals, which rises as it learns. The run ends with the policy's score against ``random`` and the
scripted bot (``greedy``; ``heuristic`` in Texas 42) on duplicate deals, with 95% intervals
(``domino_env.integrations.scoring``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss

from domino_env.integrations.scoring import score_policy, scores_text
from domino_env.integrations.torchrl import DominoTorchRLEnv
from domino_env_training.rollout import per_seat_gae

BLOCK_2P = {"variant": "block", "num_players": 2}


def build_modules(env: DominoTorchRLEnv, hidden: int = 128) -> tuple[ProbabilisticActor, ValueOperator]:
    """The masked policy (``"observation"``, ``"action_mask"`` -> ``"action"``) and the critic."""
    obs_dim = env.observation_spec["observation"].shape[-1]
    cells = [hidden, hidden]
    logits = TensorDictModule(
        MLP(in_features=obs_dim, out_features=env.num_actions, num_cells=cells, activation_class=nn.Tanh),
        in_keys=["observation"],
        out_keys=["logits"],
    )
    actor = ProbabilisticActor(
        logits,
        in_keys={"logits": "logits", "mask": "action_mask"},
        out_keys=["action"],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    critic = ValueOperator(
        MLP(in_features=obs_dim, out_features=1, num_cells=cells, activation_class=nn.Tanh),
        in_keys=["observation"],
    )
    return actor, critic


def greedy_policy(actor: ProbabilisticActor) -> Any:
    """The actor's most probable legal move as a batched policy ``(obs, mask, rng) -> actions``
    (``domino_env.bots.batched``): for ``DominoVectorEnv`` opponents and ``BatchedPolicyAgent``."""
    network = actor.module[0].module  # the logits MLP

    @torch.no_grad()
    def policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        logits = network(torch.as_tensor(obs, dtype=torch.float32))
        legal = torch.as_tensor(np.asarray(mask, bool))
        return logits.masked_fill(~legal, -torch.inf).argmax(-1).numpy()

    return policy


def train(
    *,
    game: str = "dominoes",
    options: Mapping[str, Any] = BLOCK_2P,
    iterations: int = 30,
    num_envs: int = 512,
    num_steps: int = 48,
    epochs: int = 4,
    minibatches: int = 4,
    lr: float = 1e-3,
    gamma: float = 1.0,
    gae_lambda: float = 0.95,
    entropy_coef: float = 0.01,
    hidden: int = 128,
    seed: int = 0,
    log: bool = False,
    score_every: int = 0,
) -> tuple[ProbabilisticActor, list[dict[str, float]]]:
    """Train and return the actor and one record per iteration (mean episode reward of seat 0,
    losses, agent-steps per second; every ``score_every`` iterations, if not 0, the margin against
    ``random``)."""
    torch.manual_seed(seed)
    env = DominoTorchRLEnv(game, num_envs, seed=seed, **options)
    actor, critic = build_modules(env, hidden)
    loss_module = ClipPPOLoss(
        actor, critic, clip_epsilon=0.2, entropy_coeff=entropy_coef, normalize_advantage=True
    )
    optimizer = torch.optim.Adam(loss_module.parameters(), lr=lr)
    history = []
    for iteration in range(iterations):
        start = time.perf_counter()
        with torch.no_grad():
            data = env.rollout(num_steps, actor, break_when_any_done=False)  # (games, steps), fresh deals
            data = critic(data)
        # per_seat_gae works time-major: (T, B[, P]).
        seats = data["seat"].T
        rewards = data["next", "reward"].transpose(0, 1)
        dones = data["next", "done"].squeeze(-1).T
        values = data["state_value"].squeeze(-1).T
        advantages, returns, valid = per_seat_gae(
            seats, torch.ones_like(dones), values, rewards, dones, gamma, gae_lambda
        )
        data["advantage"] = advantages.T.unsqueeze(-1)
        data["value_target"] = returns.T.unsqueeze(-1)
        samples = data[valid.T]  # complete decisions only, flattened
        for _ in range(epochs):
            for batch in samples[torch.randperm(samples.shape[0])].split(-(-samples.shape[0] // minibatches)):
                losses = loss_module(batch)
                loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_module.parameters(), 0.5)
                optimizer.step()
        ended = dones.any()
        record = {
            "iteration": iteration,
            "agent_steps_per_s": num_envs * num_steps / (time.perf_counter() - start),
            "seat0_reward_per_episode": float(rewards[..., 0].sum() / max(dones.sum(), 1)) if ended else 0.0,
            "loss_objective": losses["loss_objective"].item(),
            "loss_critic": losses["loss_critic"].item(),
            "entropy": losses["entropy"].item(),
        }
        if score_every and (iteration + 1) % score_every == 0:
            scores = score_policy(greedy_policy(actor), game, options, num_deals=50, opponents=("random",))
            record["margin_vs_random"] = scores["random"]["margin"][0]
        history.append(record)
        if log:
            print(json.dumps(record))
    return actor, history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dominoes")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option (JSON value or text); default Block 2p",
    )
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--num-envs", type=int, default=512)
    parser.add_argument("--num-steps", type=int, default=48)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--score-every", type=int, default=10, help="iterations between scores vs random")
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals of the final score")
    parser.add_argument("--save", help="write the actor's state_dict here")
    args = parser.parse_args(argv)
    options = dict(BLOCK_2P) if not args.option and args.game == "dominoes" else {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option {item!r} must be KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    actor, _ = train(
        game=args.game,
        options=options,
        iterations=args.iterations,
        num_envs=args.num_envs,
        num_steps=args.num_steps,
        seed=args.seed,
        log=True,
        score_every=args.score_every,
    )
    if args.save:
        torch.save(actor.state_dict(), args.save)
    scores = score_policy(greedy_policy(actor), args.game, options, num_deals=args.deals)
    print(scores_text(scores, args.game))


if __name__ == "__main__":
    main()
