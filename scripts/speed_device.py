"""Throughput on any machine, a GPU's included: the batched engines (numpy, and torch on every
device), the policy's forward pass and PPO self-play on each engine, in one sitting.

The numpy engines run on one host core whatever the device; the torch engines run where their
tensors live, so on a GPU the whole rollout stays there. Every figure is printed beside its peers
from the same run (docs/speed.md, "GPU" and "Torch engines"):

    python scripts/speed_device.py --out device.json            # under 5 minutes on one GPU host
    python scripts/speed_device.py --seconds 1 --iterations 2   # quick check on a laptop (CPU only)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from domino_env.games import get_game
from domino_env.vector import sample_legal, torch_batch
from domino_env_training.config import load_config
from domino_env_training.networks import ActorCritic
from domino_env_training.ppo import train

ENGINES = {
    "Block 2p": ("dominoes", {"variant": "block", "num_players": 2}),
    "Block 4p teams": ("dominoes", {"variant": "block", "num_players": 4, "teams": True}),
    "Texas 42": ("texas42", {}),
}

ENGINE_SIZES_CPU = (4096, 65536)
ENGINE_SIZES_GPU = (4096, 65536, 262144, 1048576)
TRAIN_SIZES_CPU = (512, 4096)
TRAIN_SIZES_GPU = (4096, 65536)


def engine_steps_per_second(game: str, options: dict, num_envs: int, seconds: float,
                            device: torch.device | None = None) -> float:
    """Agent-steps/s of a batched engine with random legal actions, observation and mask made every
    step: the numpy engine when ``device`` is None, else the torch engine on ``device``."""
    record = get_game(game)
    rules = record.config(**options)
    if device is None:
        vec = record.vector_class(rules)(num_envs, seed=0, **options)
        rng = np.random.default_rng(0)
        choose = lambda mask: sample_legal(mask, rng)  # noqa: E731
    else:
        vec = record.torch_class(rules)(num_envs, seed=0, device=device, check_actions=False, **options)
        generator = torch_batch.seeded_generator(0, device)
        choose = lambda mask: torch_batch.sample_legal(mask, generator)  # noqa: E731
    batch = vec.reset()
    for _ in range(3):  # warm-up steps excluded (allocations, CUDA kernels)
        batch = vec.step(choose(batch.mask))
    synchronize(device)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            batch = vec.step(choose(batch.mask))
        synchronize(device)
        steps += 10 * num_envs
    return steps / (time.perf_counter() - start)


def synchronize(device: torch.device | None) -> None:
    """Wait for the device's queued work, so a timer reads work done, not work queued."""
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize()


def forward_rows_per_second(device: torch.device, num_rows: int, seconds: float) -> float:
    """Rows/s of the Block 2p policy's masked action sampling (what a rollout step costs the network),
    inputs copied from host memory each call as in the trainer."""
    config = load_config("configs/block_2p.yaml")
    record = get_game("dominoes")
    vec = record.vector_class(record.config(variant="block", num_players=2))(num_rows, seed=0)
    batch = vec.reset()
    obs_dim, num_actions = batch.obs.shape[1], batch.mask.shape[1]
    model = ActorCritic(obs_dim, num_actions, config.network).to(device)
    generator = torch.Generator(device=device).manual_seed(0)
    rows, start = 0, None
    for call in range(1_000_000):
        if call == 3:  # warm-up calls excluded (CUDA context, kernels)
            if device.type == "cuda":
                torch.cuda.synchronize()
            rows, start = 0, time.perf_counter()
        with torch.no_grad():
            action, *_ = model.get_action_and_value(
                torch.as_tensor(batch.obs, device=device), torch.as_tensor(batch.mask, device=device),
                generator=generator,
            )
        action.cpu()
        rows += num_rows
        if start is not None and time.perf_counter() - start >= seconds:
            break
    return rows / (time.perf_counter() - start)


def training_steps_per_second(device: str, backend: str, num_envs: int, iterations: int,
                              run_dir: str) -> dict:
    """PPO self-play on Block 2p (configs/block_2p.yaml) with ``backend`` (``vector``: the numpy
    engine, ``torch``: the torch engine on ``device``) for ``iterations`` iterations: env steps/s over
    the whole loop (rollout, GAE, update), after one warm-up iteration on the same device."""
    def run(name: str, count: int) -> tuple[float, int]:
        config = load_config("configs/block_2p.yaml", [
            f"name={name}", f"run_dir={run_dir}", f"device={device}", "time_budget_s=0",
            f"game.backend={backend}", f"ppo.num_envs={num_envs}", f"total_steps={count * num_envs * 32}",
            "eval_interval=100000", "eval_games=64", "checkpoint_interval=100000",
        ])
        start = time.perf_counter()
        result = train(config, overwrite=True, progress=False)
        return time.perf_counter() - start, result.global_step

    run(f"warm_{device}_{backend}_{num_envs}", 1)
    wall, steps = run(f"bench_{device}_{backend}_{num_envs}", iterations)
    return {"device": device, "backend": backend, "num_envs": num_envs, "iterations": iterations,
            "steps": steps, "wall_s": round(wall, 2), "steps_per_s": round(steps / wall)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per engine / forward row")
    parser.add_argument("--iterations", type=int, default=5, help="PPO iterations per training row")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--only", choices=("engines", "forward", "training"), action="append",
                        help="run only these sections (repeatable; default: all)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's own choice)")
    args = parser.parse_args()
    sections = set(args.only or ("engines", "forward", "training"))
    if args.threads:
        torch.set_num_threads(args.threads)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    report: dict = {
        "host": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__,
                 "numpy": np.__version__, "torch_threads": torch.get_num_threads(),
                 "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None},
        "engine_agent_steps_per_s": {}, "forward_rows_per_s": {}, "training": [],
    }
    print(report["host"], flush=True)
    for name, (game, options) in ENGINES.items() if "engines" in sections else ():
        for device in [None, *devices]:
            label = "numpy" if device is None else f"torch {device.type}"
            sizes = ENGINE_SIZES_GPU if device is not None and device.type == "cuda" else ENGINE_SIZES_CPU
            for num_envs in sizes:
                rate = engine_steps_per_second(game, options, num_envs, args.seconds, device)
                report["engine_agent_steps_per_s"][f"{name} {label} x{num_envs}"] = round(rate)
                print(f"engine {name:<15} {label:<10} x{num_envs:<8} {rate:>14,.0f} agent-steps/s",
                      flush=True)
    for device in devices if "forward" in sections else ():
        for num_rows in (512, 4096, 65536):
            rate = forward_rows_per_second(device, num_rows, args.seconds)
            report["forward_rows_per_s"][f"{device.type} x{num_rows}"] = round(rate)
            print(f"forward {device.type:<4} x{num_rows:<6} {rate:>12,.0f} rows/s", flush=True)
    with tempfile.TemporaryDirectory() as run_dir:
        for device in devices if "training" in sections else ():
            sizes = TRAIN_SIZES_GPU if device.type == "cuda" else TRAIN_SIZES_CPU
            for backend in ("vector", "torch"):
                for num_envs in sizes:
                    row = training_steps_per_second(device.type, backend, num_envs, args.iterations, run_dir)
                    report["training"].append(row)
                    print(f"train {row}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
