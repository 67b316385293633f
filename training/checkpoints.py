"""Atomic checkpoints that a stranger cannot use to run code.

Writing: the payload goes to a temporary file in the same folder, is flushed and fsynced, then
``os.replace``-d over the target (atomic on POSIX), and the folder is fsynced so the rename itself
survives a crash. A reader therefore sees the old checkpoint or the new one, never half of one.

Reading: ``torch.load(weights_only=True)`` only rebuilds tensors and plain containers, so a
checkpoint must hold nothing else: the config as a plain dict, the pool as lists of dicts.

A training checkpoint (``training.ppo``) holds: ``config`` (dict), ``obs_dim``, ``num_actions``,
``observation_encoder`` (the encoder name its network reads, ``training.rollout.OBSERVATION_ENCODER``),
``critic_dim`` (the critic's input width: larger than ``obs_dim`` with a centralized critic),
``model`` and ``optimizer`` state dicts, ``iteration``, ``global_step``, ``elapsed_s``, ``pool``
(entries with snapshot weights and results) and ``history`` (per-iteration metrics). There is no
separate RNG state: every random draw of iteration ``i`` comes from generators seeded with
``(config.seed, i)``, so the iteration number restores the random stream exactly.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_NAME = "last.pt"


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (temp file + fsync + ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """Read a checkpoint with ``weights_only=True`` (tensors and plain containers only)."""
    return torch.load(Path(path), map_location=map_location, weights_only=True)
