"""The batched engines inside standard RL libraries: throughput and strength, each beside its peer.

    .venv/bin/python scripts/speed_vector_envs.py                      # every section, short budgets
    .venv/bin/python scripts/speed_vector_envs.py --only torchrl --seconds 10
    .venv/bin/python scripts/speed_vector_envs.py --only strength --minutes 10

``torchrl``: agent-steps per second through TorchRL's ``env.rollout`` of ``DominoTorchRLEnv`` at
4,096 Block 2p games (a policy module drawing uniformly random legal moves from ``"action_mask"``),
as called by default and with ``out=`` a reused tensordict (no fresh 70 MB each rollout), beside
``VectorLineGame`` alone stepped with the same draws, interleaved; then TorchRL's
``PettingZooWrapper`` around one ``dominoes_v0`` game (its rollout's random masked actions) for
scale. ``sb3``: MaskablePPO's steps per second, updates included, on ``SB3VecEnv`` of
``DominoVectorEnv`` beside ``make_vec_env`` of ``SingleAgentEnv`` (flattened compact observation)
with the same settings (games, ``n_steps``, batch, epochs, network), and the vector adapter at
1,024 games. ``strength``: MaskablePPO trained ``--minutes`` each way against the batched
``greedy`` bot, then both policies and ``greedy`` on the same duplicate deals
(``domino_env.evaluation``, with ``random`` to anchor the Bradley-Terry Elo at 0).

Every figure is printed with the load average at the time: the machine is shared, so compare the
ratios within one run, not the absolute rates across runs. torch runs on one thread (``--threads``):
on a loaded two-core machine two threads made small tensor ops ten times slower.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
import torch

from domino_env.vector import VectorLineGame, sample_legal

BLOCK_2P = {"variant": "block", "num_players": 2}
SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {}


def section(function: Callable[[argparse.Namespace], None]) -> Callable[[argparse.Namespace], None]:
    SECTIONS[function.__name__] = function
    return function


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def interleaved(runs: dict[str, Callable[[], int]], seconds: float, rounds: int = 8) -> dict[str, float]:
    """Steps per second of each runner (returns the steps it took), given ``seconds`` each in
    ``rounds`` alternating slices, so that load drifts on the shared machine spread over them all."""
    steps = dict.fromkeys(runs, 0)
    spent = dict.fromkeys(runs, 0.0)
    for _ in range(rounds):
        for name, run in runs.items():
            deadline = time.perf_counter() + seconds / rounds
            while (now := time.perf_counter()) < deadline:
                steps[name] += run()
                spent[name] += time.perf_counter() - now
    return {name: steps[name] / spent[name] for name in runs}


@section
def torchrl(args: argparse.Namespace) -> None:
    from torchrl.envs import PettingZooWrapper

    from domino_env.dominoes_v0 import env as dominoes_env
    from domino_env.integrations.torchrl import DominoTorchRLEnv

    num_envs, length = 4096, args.rollout_steps
    rng = np.random.default_rng(0)

    def random_legal(td):
        return td.set("action", torch.from_numpy(sample_legal(td["action_mask"].numpy(), rng)))

    env = DominoTorchRLEnv(num_envs=num_envs, seed=0, **BLOCK_2P)
    engine = VectorLineGame(num_envs, seed=0, **BLOCK_2P)
    state = {"batch": engine.reset()}

    def through_torchrl() -> int:
        env.rollout(length, random_legal, break_when_any_done=False)
        return num_envs * length

    reused = env.rollout(length, random_legal, break_when_any_done=False)

    def into_reused() -> int:
        env.rollout(length, random_legal, break_when_any_done=False, out=reused)
        return num_envs * length

    def engine_alone() -> int:
        for _ in range(length):
            state["batch"] = engine.step(sample_legal(state["batch"].mask, rng))
        return num_envs * length

    runs = {"rollout": through_torchrl, "rollout_out": into_reused, "engine": engine_alone}
    rates = interleaved(runs, args.seconds)
    print(f"[torchrl] {num_envs} Block 2p games, rollouts of {length} steps ({load()})")
    print(f"  DominoTorchRLEnv.rollout          {rates['rollout']:>12,.0f} agent-steps/s")
    print(f"  the same with out= (reused)       {rates['rollout_out']:>12,.0f} agent-steps/s")
    print(f"  VectorLineGame alone              {rates['engine']:>12,.0f} agent-steps/s")
    print(f"  rollout / engine                  {rates['rollout'] / rates['engine']:.2f}")
    print(f"  rollout(out=) / engine            {rates['rollout_out'] / rates['engine']:.2f}")
    single = PettingZooWrapper(dominoes_env(**BLOCK_2P), use_mask=True, seed=0)
    start, steps = time.perf_counter(), 0
    while time.perf_counter() - start < min(args.seconds, 5):
        steps += single.rollout(200, break_when_any_done=True).shape[0]
    rate = steps / (time.perf_counter() - start)
    print(
        f"  PettingZooWrapper, one game {rate:>10,.0f} agent-steps/s ({rates['rollout'] / rate:,.0f}x slower)"
    )


def _maskable_ppo(venv, n_steps: int, batch_size: int, seed: int = 0):
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=4,
        learning_rate=1e-3,
        seed=seed,
        policy_kwargs={"net_arch": [64, 64]},
    )


def _vector(num_envs: int, opponents: str = "random"):
    from domino_env.integrations.sb3 import SB3VecEnv
    from domino_env.wrappers.vector_env import DominoVectorEnv

    return SB3VecEnv(DominoVectorEnv("dominoes", num_envs, opponents=opponents, **BLOCK_2P))


def _single(num_envs: int, opponents: str = "random"):
    from stable_baselines3.common.env_util import make_vec_env

    from domino_env.wrappers.single_agent import SingleAgentEnv

    kwargs = {"opponents": opponents, "flatten": True, "observation_encoder": "compact", **BLOCK_2P}
    return make_vec_env(SingleAgentEnv, n_envs=num_envs, seed=0, env_kwargs=kwargs)


def _ppo_rates(venvs: dict[str, object], n_steps: int, batch_size: int, seconds: float) -> dict[str, float]:
    """MaskablePPO steps per second (collection and updates) on each env, interleaved: one rollout
    and its update at a time, in turn, so that load drifts spread over all of them."""
    models = {name: _maskable_ppo(venv, n_steps, batch_size) for name, venv in venvs.items()}
    for model in models.values():
        model.learn(model.n_envs * n_steps)  # first rollout and update: set-up and warm caches, not timed

    def one_rollout(model) -> Callable[[], int]:
        def run() -> int:
            model.learn(model.n_envs * n_steps, reset_num_timesteps=False)
            return model.n_envs * n_steps

        return run

    return interleaved({name: one_rollout(model) for name, model in models.items()}, seconds)


@section
def sb3(args: argparse.Namespace) -> None:
    num_envs, n_steps, batch = 64, 64, 1024
    print(f"[sb3] MaskablePPO on Block 2p against random, updates included ({load()})")
    print(f"  equal settings: {num_envs} games, n_steps={n_steps}, batch {batch}, 4 epochs, MLP 64x64")
    rates = _ppo_rates(
        {"vector": _vector(num_envs), "single": _single(num_envs)}, n_steps, batch, args.seconds
    )
    print(f"  SB3VecEnv(DominoVectorEnv)     {rates['vector']:>10,.0f} steps/s")
    print(f"  make_vec_env(SingleAgentEnv)   {rates['single']:>10,.0f} steps/s")
    print(f"  vector / single                {rates['vector'] / rates['single']:.1f}")
    wide = _ppo_rates({"wide": _vector(1024)}, 16, 4096, args.seconds)["wide"]
    print(f"  SB3VecEnv at 1024 games, n_steps=16, batch 4096: {wide:,.0f} steps/s ({load()})")


@section
def strength(args: argparse.Namespace) -> None:
    from domino_env.bots.base import register_bot
    from domino_env.bots.batched import BatchedPolicyAgent
    from domino_env.evaluation import GameSetup, evaluate

    budget = args.minutes * 60
    print(f"[strength] MaskablePPO against greedy, {args.minutes:g} minutes each way ({load()})")
    ways = {"vector": (_vector(1024, "greedy"), 16, 4096), "single": (_single(64, "greedy"), 64, 1024)}
    for label, (venv, n_steps, batch) in ways.items():
        model = _maskable_ppo(venv, n_steps, batch)
        start, steps = time.perf_counter(), 0
        while time.perf_counter() - start < budget:
            model.learn(venv.num_envs * n_steps, reset_num_timesteps=steps == 0)
            steps += venv.num_envs * n_steps
        print(f"  {label}: {steps:,} learner steps in {time.perf_counter() - start:.0f} s ({load()})")

        def policy(obs, mask, rng, model=model):
            return model.predict(obs, action_masks=mask, deterministic=True)[0]

        register_bot("dominoes", f"bench_{label}")(
            lambda policy=policy: BatchedPolicyAgent(policy, "dominoes", 58)
        )
    result = evaluate(
        GameSetup("dominoes", BLOCK_2P),
        ["vector=bench_vector", "single=bench_single", "greedy", "random"],
        num_deals=args.deals,
        seed=1,
    )
    print(result.to_markdown())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(SECTIONS), action="append")
    parser.add_argument("--seconds", type=float, default=6.0, help="timing budget per throughput figure")
    parser.add_argument(
        "--rollout-steps", type=int, default=16, help="steps per TorchRL rollout (each deals anew)"
    )
    parser.add_argument("--minutes", type=float, default=1.0, help="training budget each way (strength)")
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals of the strength evaluation")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    for name in args.only or SECTIONS:
        SECTIONS[name](args)


if __name__ == "__main__":
    main()
