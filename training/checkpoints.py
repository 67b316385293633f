"""Atomic, checksummed checkpoints that a stranger cannot use to run code.

Writing: the payload is serialized with ``torch.save``, and the file holds a small wrapper
``{"format", "version", "sha256", "payload"}`` whose ``payload`` is those bytes (a uint8 tensor) and
``sha256`` their digest. The wrapper goes to a temporary file in the same folder, is flushed and
fsynced, then ``os.replace``-d over the target (atomic on POSIX), and the folder is fsynced so the
rename itself survives a crash. A reader therefore sees the old checkpoint or the new one, never half
of one; a process killed mid-write leaves a ``.last.pt.*.tmp`` that the trainer removes on its next
start (``remove_stale_temporaries``).

Reading: ``torch.load(weights_only=True)`` is the only deserializer (for the wrapper and for the
payload): it only rebuilds tensors and plain containers, so a checkpoint must hold nothing else: the
config as a plain dict, the pool as lists of dicts. The digest is checked before the payload is read,
then every floating tensor must be finite and the counters non-negative integers. Anything else is a
``CheckpointError`` naming the file and what is wrong (torch's own messages are not shown: for a
file holding other objects they advise ``weights_only=False``, which would run the file's code).
Checkpoints written before the checksum (a bare payload) still load, with a warning
(docs/decisions.md, "Trainer").

A training checkpoint (``domino_env_training.ppo``) holds: ``config`` (dict), ``obs_dim``,
``num_actions``, ``observation_encoder`` (the encoder name its network reads,
``domino_env_training.rollout.OBSERVATION_ENCODER``),
``critic_dim`` (the critic's input width: larger than ``obs_dim`` with a centralized critic),
``model`` and ``optimizer`` state dicts, ``iteration``, ``global_step``, ``elapsed_s``, ``pool``
(entries with snapshot weights and results) and ``history`` (per-iteration metrics). There is no
separate RNG state: every random draw of iteration ``i`` comes from generators seeded with
``(config.seed, i)``, so the iteration number restores the random stream exactly.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_NAME = "last.pt"
FORMAT = "domino-env checkpoint"
VERSION = 1
COUNTERS = ("iteration", "global_step")
"""Payload entries that must be non-negative integers when present."""


class CheckpointError(ValueError):
    """A file that is not a sound checkpoint; the message names the file and what is wrong."""


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (temp file + fsync + ``os.replace``), with its SHA-256."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        data = buffer.getvalue()
        wrapper = {"format": FORMAT, "version": VERSION, "sha256": hashlib.sha256(data).hexdigest(),
                   "payload": torch.frombuffer(bytearray(data), dtype=torch.uint8)}
        with os.fdopen(fd, "wb") as f:
            torch.save(wrapper, f)
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


def remove_stale_temporaries(path: str | Path) -> list[Path]:
    """Delete the temporaries a killed ``save_checkpoint(path, ...)`` left beside ``path``; return them.

    Call it only while no other process writes that checkpoint (the trainer does, on start)."""
    path = Path(path)
    stale = sorted(path.parent.glob(f".{path.name}.*.tmp")) if path.parent.is_dir() else []
    for tmp in stale:
        tmp.unlink(missing_ok=True)
    return stale


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """Read and verify a checkpoint (``weights_only=True`` only); ``CheckpointError`` if it is unsound.

    ``FileNotFoundError`` when there is no file."""
    path = Path(path)
    content = _torch_load(path, path.read_bytes(), map_location, "the file")
    if isinstance(content, dict) and content.get("format") == FORMAT:
        payload = _unwrap(path, content, map_location)
    else:
        warnings.warn(f"{path}: checkpoint without a checksum (written before checksums existed); "
                      "loaded unverified: resume or re-save it to add one", UserWarning, stacklevel=2)
        payload = content
    _check_payload(path, payload)
    return payload


def require_keys(checkpoint: dict[str, Any], path: str | Path, keys: tuple[str, ...]) -> None:
    """``CheckpointError`` naming the entries of ``keys`` that ``checkpoint`` lacks."""
    missing = [key for key in keys if key not in checkpoint]
    if missing:
        raise CheckpointError(f"{path}: not a training checkpoint: it lacks {missing}")


def _torch_load(path: Path, data: bytes, map_location: str | torch.device, what: str) -> Any:
    """``torch.load(weights_only=True)`` of ``data``, its failures as ``CheckpointError``."""
    if not data:
        raise CheckpointError(f"{path}: {what} is empty, not a checkpoint")
    try:
        return torch.load(io.BytesIO(data), map_location=map_location, weights_only=True)
    except pickle.UnpicklingError:  # torch's message would advise weights_only=False: not shown
        raise CheckpointError(
            f"{path}: {what} is not a checkpoint this trainer wrote: it is not a torch file, or it holds "
            "objects other than tensors and plain containers, which are refused (loading them could run "
            "code)"
        ) from None
    except Exception as err:  # noqa: BLE001 - torch raises EOFError, KeyError, RuntimeError, ... on junk
        raise CheckpointError(f"{path}: {what} is not a readable torch file (truncated, or another format; "
                              f"torch raised {type(err).__name__})") from None


def _unwrap(path: Path, wrapper: dict[str, Any], map_location: str | torch.device) -> Any:
    """The payload of a checksummed wrapper, after checking its version and digest."""
    if wrapper.get("version") != VERSION:
        raise CheckpointError(f"{path}: checkpoint format version {wrapper.get('version')!r}; this trainer "
                              f"reads version {VERSION}")
    data, digest = wrapper.get("payload"), wrapper.get("sha256")
    if not (isinstance(data, torch.Tensor) and data.dtype == torch.uint8 and isinstance(digest, str)):
        raise CheckpointError(f"{path}: damaged checkpoint: its payload or checksum is missing")
    raw = data.cpu().numpy().tobytes()
    if hashlib.sha256(raw).hexdigest() != digest:
        raise CheckpointError(f"{path}: damaged checkpoint: the payload's SHA-256 does not match the one "
                              "stored with it (the file changed after it was written)")
    return _torch_load(path, raw, map_location, "the payload")


def _check_payload(path: Path, payload: Any) -> None:
    """A dict with a ``model`` of tensors, every floating tensor finite, counters non-negative ints."""
    if not isinstance(payload, dict):
        raise CheckpointError(f"{path}: a checkpoint holds a dict, this file a {type(payload).__name__}")
    model = payload.get("model")
    if not isinstance(model, dict) or not all(isinstance(v, torch.Tensor) for v in model.values()):
        raise CheckpointError(f"{path}: no model weights (a 'model' dict of tensors); it holds "
                              f"{sorted(map(str, payload))}")
    for name, tensor in _tensors(payload, ""):
        if tensor.is_floating_point() and not torch.isfinite(tensor).all():
            raise CheckpointError(f"{path}: non-finite values (NaN or inf) in {name}")
    for name in COUNTERS:
        value = payload.get(name, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise CheckpointError(f"{path}: {name} must be a non-negative int, got {value!r}")


def _tensors(node: Any, prefix: str) -> Iterator[tuple[str, torch.Tensor]]:
    """Every tensor in nested dicts and lists, with its path (``model.actor.0.weight``)."""
    if isinstance(node, torch.Tensor):
        yield prefix, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _tensors(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            yield from _tensors(value, f"{prefix}[{i}]")


POLICY_KEYS = ("config", "obs_dim", "num_actions", "observation_encoder", "critic_dim", "hands_dim", "model",
               "iteration", "global_step", "elapsed_s")
"""What a playing policy needs (``domino_env_training.agent.PolicyAgent``) and what says how it was trained: a
training checkpoint without its optimizer, opponent pool and history."""


def export_policy(source: str | Path, target: str | Path, half: bool = True) -> dict[str, Any]:
    """Write the policy of training checkpoint ``source`` to ``target`` (``POLICY_KEYS`` only; with
    ``half`` its floating weights in float16, which the network casts back on loading); returns it."""
    checkpoint = load_checkpoint(source)
    require_keys(checkpoint, source, ("config", "obs_dim", "num_actions", "model"))
    policy = {key: checkpoint[key] for key in POLICY_KEYS if key in checkpoint}
    if half:
        policy["model"] = {name: tensor.half() if tensor.is_floating_point() else tensor
                           for name, tensor in policy["model"].items()}
    save_checkpoint(target, policy)
    return policy


SOUP_MUST_MATCH = ("obs_dim", "num_actions", "observation_encoder", "critic_dim", "hands_dim")
"""Entries two checkpoints must share to be averaged (with the game and the network's layers)."""


def average_checkpoints(sources: list[str | Path], target: str | Path) -> dict[str, Any]:
    """Write to ``target`` the checkpoint whose network weights are the mean of ``sources``' (a model
    soup, Wortsman et al. 2022): runs fine-tuned from one starting point with different seeds land
    in one basin, and their mean is one network, often stronger than each. Everything else is the
    first source's, except ``iteration``, ``global_step`` and ``elapsed_s``, the sums over the sources
    (the compute the result cost), and ``averaged_from``, the sources' paths. For evaluation and export;
    the first source's optimizer state does not fit the mean, so do not resume from it.
    ``CheckpointError`` unless there are two sources or more of the same game and network shape."""
    if len(sources) < 2:
        raise CheckpointError(f"averaging needs two checkpoints or more, got {len(sources)}")
    checkpoints = [load_checkpoint(path) for path in sources]
    first = checkpoints[0]
    for path, checkpoint in zip(sources, checkpoints, strict=True):
        require_keys(checkpoint, path, ("config", "model", "global_step", "elapsed_s"))
    for path, checkpoint in zip(sources[1:], checkpoints[1:], strict=True):
        _require_same_network(first, sources[0], checkpoint, path)
    model = {name: torch.stack([c["model"][name].float() for c in checkpoints]).mean(0).to(tensor.dtype)
             if tensor.is_floating_point() else tensor for name, tensor in first["model"].items()}
    soup = {**first, "model": model, "averaged_from": [str(path) for path in sources],
            **{key: sum(c.get(key, 0) for c in checkpoints) for key in ("iteration", "global_step")},
            "elapsed_s": float(sum(c["elapsed_s"] for c in checkpoints))}
    save_checkpoint(target, soup)
    return soup


def _require_same_network(first: dict[str, Any], first_path: str | Path, other: dict[str, Any],
                          other_path: str | Path) -> None:
    for key in SOUP_MUST_MATCH:
        if first.get(key) != other.get(key):
            raise CheckpointError(f"{other_path}: its {key} {other.get(key)!r} differs from {first_path}'s "
                                  f"{first.get(key)!r}: only networks of one shape can be averaged")
    if first["config"].get("game") != other["config"].get("game"):
        raise CheckpointError(f"{other_path}: trained on {other['config'].get('game')!r}, {first_path} on "
                              f"{first['config'].get('game')!r}: only networks of one game can be averaged")
    shapes = {name: tuple(t.shape) for name, t in first["model"].items()}
    other_shapes = {name: tuple(t.shape) for name, t in other["model"].items()}
    if shapes != other_shapes:
        raise CheckpointError(f"{other_path}: its layers {sorted(other_shapes.items())} differ from "
                              f"{first_path}'s {sorted(shapes.items())}")
