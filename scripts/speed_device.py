"""Throughput on a machine with a GPU: the batched engines, the policy's forward pass and PPO
training iterations, each on the CPU and on CUDA in the same run.

The batched engines are numpy, so they run on the host's CPU whatever the device; what a GPU can
speed up is the network (rollout forward passes and the PPO update). This script measures how much,
so the figures in docs/speed.md ("GPU") are ratios from one sitting:

    python scripts/speed_device.py --out device.json            # about 4 minutes on a 16-core host
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
from domino_env.vector import sample_legal
from domino_env_training.config import load_config
from domino_env_training.networks import ActorCritic
from domino_env_training.ppo import train

ENGINES = {
    "Block 2p": ("dominoes", {"variant": "block", "num_players": 2}),
    "Block 4p teams": ("dominoes", {"variant": "block", "num_players": 4, "teams": True}),
    "Texas 42": ("texas42", {}),
}


def engine_steps_per_second(game: str, options: dict, num_envs: int, seconds: float) -> float:
    """Agent-steps/s of the batched engine with random legal actions."""
    record = get_game(game)
    vec = record.vector_class(record.config(**options))(num_envs, seed=0, **options)
    rng = np.random.default_rng(0)
    batch = vec.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        batch = vec.step(sample_legal(batch.mask, rng))
        steps += num_envs
    return steps / (time.perf_counter() - start)


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


def training_steps_per_second(device: str, num_envs: int, iterations: int, run_dir: str) -> dict:
    """PPO self-play on Block 2p (configs/block_2p.yaml) for ``iterations`` iterations: env steps/s
    over the whole loop (rollout, GAE, update), after one warm-up iteration on the same device."""
    def run(name: str, count: int) -> tuple[float, int]:
        config = load_config("configs/block_2p.yaml", [
            f"name={name}", f"run_dir={run_dir}", f"device={device}", "time_budget_s=0",
            f"ppo.num_envs={num_envs}", f"total_steps={count * num_envs * 32}",
            "eval_interval=100000", "eval_games=64", "checkpoint_interval=100000",
        ])
        start = time.perf_counter()
        result = train(config, overwrite=True, progress=False)
        return time.perf_counter() - start, result.global_step

    run(f"warm_{device}_{num_envs}", 1)
    wall, steps = run(f"bench_{device}_{num_envs}", iterations)
    return {"device": device, "num_envs": num_envs, "iterations": iterations, "steps": steps,
            "wall_s": round(wall, 2), "steps_per_s": round(steps / wall)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per engine / forward row")
    parser.add_argument("--iterations", type=int, default=5, help="PPO iterations per training row")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if torch.cuda.is_available() else [])
    report: dict = {
        "host": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__,
                 "numpy": np.__version__, "torch_threads": torch.get_num_threads(),
                 "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None},
        "engine_agent_steps_per_s": {}, "forward_rows_per_s": {}, "training": [],
    }
    print(report["host"], flush=True)
    for name, (game, options) in ENGINES.items():
        for num_envs in (4096, 65536):
            rate = engine_steps_per_second(game, options, num_envs, args.seconds)
            report["engine_agent_steps_per_s"][f"{name} x{num_envs}"] = round(rate)
            print(f"engine {name:<15} x{num_envs:<6} {rate:>12,.0f} agent-steps/s", flush=True)
    for device in devices:
        for num_rows in (512, 4096, 65536):
            rate = forward_rows_per_second(device, num_rows, args.seconds)
            report["forward_rows_per_s"][f"{device.type} x{num_rows}"] = round(rate)
            print(f"forward {device.type:<4} x{num_rows:<6} {rate:>12,.0f} rows/s", flush=True)
    with tempfile.TemporaryDirectory() as run_dir:
        for device in devices:
            for num_envs in (512, 4096):
                row = training_steps_per_second(device.type, num_envs, args.iterations, run_dir)
                report["training"].append(row)
                print(f"train {row}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
