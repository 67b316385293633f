"""Steps per second through each integration of docs/integrations.md, random legal play.

    .venv/bin/python scripts/speed_integrations.py                 # every library installed
    .venv/bin/python scripts/speed_integrations.py --seconds 5 --only sb3

Each row plays Block 2p (the lightest game: the cost of the library's plumbing shows most) with
random legal actions for ``--seconds`` and counts environment steps as the library sees them:
PettingZoo agent-steps (``env()``, the documented ``agent_iter`` loop), Gymnasium steps of the
learner (``SingleAgentEnv``: the opponent's moves happen inside a step), Stable-Baselines3 steps
of a ``make_vec_env`` vector env summed over its environments, Tianshou collector steps, and
OpenSpiel decisions (chance moves not counted) of ``python_domino_env_dominoes``, bare and through
its ``rl_environment``. A library that is not installed is skipped with a note. Not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable

import numpy as np

Steps = Callable[[], int]  # plays a while, returns the steps it took


def rate(play: Steps, seconds: float) -> float:
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += play()
    return steps / elapsed


def pettingzoo_loop() -> Steps:
    """PettingZoo's documented loop on ``env()``: the same loop as ``domino-speed``'s documented row."""
    from domino_env import dominoes_v0
    from domino_env.cli.speed import documented_games

    return documented_games(dominoes_v0.env, np.random.default_rng(0))


def gymnasium_env() -> Steps:
    import gymnasium

    import domino_env.wrappers  # noqa: F401  (registers the ids)

    env, rng = gymnasium.make("domino_env/Block2p-v0", opponents="random"), np.random.default_rng(0)
    env.reset(seed=0)

    def play() -> int:
        _obs, info = env.reset()
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _obs, _reward, terminated, truncated, info = env.step(legal[rng.integers(len(legal))])
            done, steps = terminated or truncated, steps + 1
        return steps

    return play


def sb3_vec_env(num_envs: int = 4) -> Steps:
    from stable_baselines3.common.env_util import make_vec_env

    import domino_env.wrappers  # noqa: F401

    vec = make_vec_env(
        "domino_env/Block2p-v0", n_envs=num_envs, seed=0, env_kwargs={"flatten": True, "opponents": "random"}
    )
    vec.reset()
    rng = np.random.default_rng(0)

    def play() -> int:
        masks = np.stack(vec.env_method("action_masks"))
        actions = [legal[rng.integers(len(legal))] for legal in map(np.flatnonzero, masks)]
        vec.step(np.array(actions))
        return num_envs

    return play


def tianshou_collector(num_envs: int = 4) -> Steps:
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    from domino_env import dominoes_v0

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(dominoes_v0.env())

    env = make_env()
    random_play = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
    collector = Collector(
        MultiAgentPolicy(dict.fromkeys(env.agents, random_play)), DummyVectorEnv([make_env] * num_envs)
    )
    collector.reset()

    def play() -> int:
        return collector.collect(n_step=256).n_collected_steps

    return play


def openspiel_states() -> Steps:
    from domino_env.cli.speed import openspiel_games
    from domino_env.integrations import openspiel

    return openspiel_games(np.random.default_rng(0), openspiel.short_name("dominoes"))


def openspiel_rl_environment() -> Steps:
    from open_spiel.python import rl_environment

    from domino_env.integrations import openspiel

    env = rl_environment.Environment(
        openspiel.short_name("dominoes"), chance_event_sampler=rl_environment.ChanceEventSampler(seed=0)
    )
    rng = np.random.default_rng(0)

    def play() -> int:
        time_step, steps = env.reset(), 0
        while not time_step.last():
            player = time_step.observations["current_player"]
            legal = time_step.observations["legal_actions"][player]
            time_step = env.step([legal[rng.integers(len(legal))]])
            steps += 1
        return steps

    return play


ROWS: dict[str, tuple[str, str, Callable[[], Steps]]] = {
    # name: (library module, what a step is, runner)
    "pettingzoo": (
        "pettingzoo",
        "PettingZoo env(), documented agent_iter loop (agent-steps)",
        pettingzoo_loop,
    ),
    "gymnasium": ("gymnasium", "Gymnasium domino_env/Block2p-v0 vs random (learner steps)", gymnasium_env),
    "sb3": ("stable_baselines3", "SB3 make_vec_env, 4 envs, DummyVecEnv (env steps)", sb3_vec_env),
    "tianshou": (
        "tianshou",
        "Tianshou Collector, PettingZooEnv x 4, DummyVectorEnv (agent-steps)",
        tianshou_collector,
    ),
    "openspiel": (
        "pyspiel",
        "OpenSpiel python_domino_env_dominoes + observation_tensor (decisions)",
        openspiel_states,
    ),
    "openspiel-rl": ("pyspiel", "OpenSpiel rl_environment.Environment (decisions)", openspiel_rl_environment),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(ROWS), action="append", help="rows to run")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row")
    args = parser.parse_args(argv)
    print(f"| integration | steps/s ({args.seconds:g} s each, Block 2p, random legal play) |")
    print("|---|---|")
    for name in args.only or ROWS:
        module, label, runner = ROWS[name]
        if importlib.util.find_spec(module) is None:
            print(f"| {label} | skipped: {module} is not installed |")
            continue
        print(f"| {label} | {rate(runner(), args.seconds):,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
