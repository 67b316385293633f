"""Checkpoints under damage, junk and faults: ``training/checkpoints.py`` and the trainer's start and
resume (``domino_env_training.ppo.train``, ``domino-train``).

Bad inputs tried:

- one byte flipped at several places of a checkpoint (a quarter, the middle, three quarters in)
- a checksummed wrapper of an unknown format version, or without its payload
- NaN weights in the model, inf in the optimizer state (both written with a valid checksum)
- counters: ``iteration`` negative, a bool, a float; ``iteration=10**6`` against its ``global_step``
- an empty file, a text file, random bytes, a torch file holding a list, a dict without ``model``
  (bare and checksummed), a pickled object that is not plain data (torch's advice to load it with
  ``weights_only=False`` must not be shown)
- a checkpoint without the entries a resume (``optimizer``) or an agent (``obs_dim``) needs
- a checkpoint written before checksums (a bare payload): loads, with a warning
- stale ``.last.pt.*.tmp`` files left by a killed write: removed on start and on resume
- ``--resume`` with another seed, ``num_envs`` or game: refused naming the fields; ``total_steps`` and
  the evaluation cadence may change
- re-running an existing run name without ``--resume``: refused, the checkpoint untouched;
  ``--overwrite`` starts again
- ``domino-train`` killed with SIGKILL mid-run, then ``--resume``: the weights of an uninterrupted run
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoints import (
    CHECKPOINT_NAME,
    FORMAT,
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
)
from domino_env_training.config import ConfigError, from_dict
from domino_env_training.ppo import seeded_history, train

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _one_thread():
    """One torch thread (CI has two cores for two workers), as the subprocesses use (``--threads 1``)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def tiny_block(run_dir: Path, iterations: int, **fields) -> dict:
    """A Block 2p run of ``iterations`` tiny iterations on the real batched engine (CPU)."""
    return {
        "name": "tiny", "run_dir": str(run_dir), "seed": 5, "device": "cpu",
        "total_steps": iterations * 16 * 16, "eval_interval": 4, "eval_games": 8, "checkpoint_interval": 2,
        "game": {"options": {"target_score": None}},
        "ppo": {"num_envs": 16, "num_steps": 16}, "network": {"hidden_sizes": [8]},
        "pool": {"snapshot_interval": 2, "max_snapshots": 2}, **fields,
    }


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """The folder of a finished 2-iteration tiny run (copy it before changing anything)."""
    run_dir = tmp_path_factory.mktemp("trained")
    with torch.random.fork_rng():
        torch.set_num_threads(1)
        train(from_dict(tiny_block(run_dir, 2)), progress=False)
    return run_dir


@pytest.fixture
def run_dir(trained, tmp_path) -> Path:
    """A private copy of the trained run's parent folder."""
    shutil.copytree(trained, tmp_path / "runs")
    return tmp_path / "runs"


def weights(scale: float = 1.0) -> dict:
    return {"model": {"w": torch.linspace(-1, 1, 10_000).reshape(100, 100) * scale}, "iteration": 3,
            "global_step": 12}


# ----- damaged and malformed files -----------------------------------------------------------------

@pytest.mark.parametrize("where", [0.25, 0.5, 0.75])
def test_a_flipped_byte_is_detected(tmp_path, where):
    path = tmp_path / "last.pt"
    save_checkpoint(path, weights())
    data = bytearray(path.read_bytes())
    data[int(len(data) * where)] ^= 0x01
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match=rf"{path}: damaged checkpoint: the payload's SHA-256"):
        load_checkpoint(path)


@pytest.mark.parametrize(
    ("wrapper", "message"),
    [
        ({"format": FORMAT, "version": 99, "sha256": "0", "payload": torch.zeros(1, dtype=torch.uint8)},
         "format version 99; this trainer reads version 1"),
        ({"format": FORMAT, "version": 1, "sha256": "0"}, "its payload or checksum is missing"),
    ],
)
def test_a_damaged_wrapper_is_refused(tmp_path, wrapper, message):
    path = tmp_path / "last.pt"
    torch.save(wrapper, path)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path)


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        ({"model": {"w": torch.tensor([0.0, float("nan")])}}, "model.w"),
        ({"model": {"w": torch.zeros(2)},
          "optimizer": {"state": {0: {"exp_avg": torch.tensor([float("inf")])}}}},
         "optimizer.state.0.exp_avg"),
        ({"model": {"w": torch.zeros(2)}, "pool": [{"weights": {"b": torch.tensor([-float("inf")])}}]},
         r"pool\[0\].weights.b"),
    ],
)
def test_non_finite_weights_are_refused(tmp_path, payload, where):
    path = tmp_path / "last.pt"
    save_checkpoint(path, payload)  # a valid checksum: the values themselves are wrong
    with pytest.raises(CheckpointError, match=rf"non-finite values \(NaN or inf\) in {where}"):
        load_checkpoint(path)


@pytest.mark.parametrize(("name", "value"), [("iteration", -1), ("iteration", True), ("global_step", 1.5)])
def test_counters_must_be_non_negative_ints(tmp_path, name, value):
    path = tmp_path / "last.pt"
    save_checkpoint(path, {**weights(), name: value})
    with pytest.raises(CheckpointError, match=f"{name} must be a non-negative int"):
        load_checkpoint(path)


class NotPlainData:
    pass


def write_empty(path: Path) -> None:
    path.write_bytes(b"")


def write_text(path: Path) -> None:
    path.write_text("hello, these are notes, not weights\n")  # torch itself raised KeyError: 101


def write_random_bytes(path: Path) -> None:
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())


def write_list(path: Path) -> None:
    save_checkpoint(path, [torch.zeros(2)])


def write_dict_without_model(path: Path) -> None:
    save_checkpoint(path, {"iteration": 3})


def write_bare_dict_without_model(path: Path) -> None:
    torch.save({"weights": torch.zeros(2)}, path)


def write_object(path: Path) -> None:
    torch.save({"model": NotPlainData()}, path)


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (write_empty, "the file is empty"),
        (write_text, "not a readable torch file"),
        (write_random_bytes, "not a checkpoint this trainer wrote"),
        (write_list, "a checkpoint holds a dict, this file a list"),
        (write_dict_without_model, r"no model weights .* it holds \['iteration'\]"),
        (write_bare_dict_without_model, "no model weights"),
        (write_object, "objects other than tensors and plain containers"),
    ],
    ids=lambda x: getattr(x, "__name__", ""),
)
@pytest.mark.filterwarnings("ignore:.*without a checksum:UserWarning")
def test_malformed_files_give_one_clear_error(tmp_path, write, message):
    path = tmp_path / "last.pt"
    write(path)
    with pytest.raises(CheckpointError, match=message) as err:
        load_checkpoint(path)
    assert str(err.value).startswith(f"{path}: ")
    assert "weights_only" not in str(err.value)  # never the advice to load unsafely


def test_an_agent_needs_the_training_entries(tmp_path):
    path = tmp_path / "policy.pt"
    save_checkpoint(path, weights())
    with pytest.raises(CheckpointError, match=r"not a training checkpoint: it lacks \['config', 'obs_dim'"):
        PolicyAgent.from_checkpoint(path)


def test_a_checkpoint_from_before_checksums_loads_with_a_warning(tmp_path):
    path = tmp_path / "old.pt"
    torch.save(weights(), path)  # what save_checkpoint wrote before the checksum
    with pytest.warns(UserWarning, match="without a checksum .* loaded unverified"):
        loaded = load_checkpoint(path)
    assert torch.equal(loaded["model"]["w"], weights()["model"]["w"])
    torch.save({**weights(), "model": {"w": torch.tensor([float("nan")])}}, path)
    with pytest.warns(UserWarning), pytest.raises(CheckpointError, match="non-finite"):
        load_checkpoint(path)  # still checked for everything but the checksum


# ----- the trainer's start and resume ----------------------------------------------------------------

def test_resume_refuses_another_config_and_names_the_fields(run_dir):
    last = run_dir / "tiny" / CHECKPOINT_NAME
    before = last.read_bytes()
    changed = tiny_block(run_dir, 2, seed=6, ppo={"num_envs": 8, "num_steps": 16})
    with pytest.raises(ConfigError) as err:
        train(from_dict(changed), resume=True, progress=False)
    message = str(err.value)
    assert "seed (checkpoint 5, now 6)" in message and "ppo.num_envs (checkpoint 16, now 8)" in message
    assert "ppo.num_steps" not in message
    assert "Only these may change on resume:" in message and "total_steps" in message
    other_game = tiny_block(run_dir, 2, game={"name": "texas42"})
    with pytest.raises(ConfigError, match=r"game.name \(checkpoint 'dominoes', now 'texas42'\)"):
        train(from_dict(other_game), resume=True, progress=False)
    assert last.read_bytes() == before


def test_resume_may_extend_the_run_and_change_the_evaluation_cadence(run_dir):
    config = from_dict(tiny_block(run_dir, 3, eval_interval=1, eval_games=4, checkpoint_interval=5))
    result = train(config, resume=True, progress=False)
    assert [h["iteration"] for h in result.history] == [1, 2, 3]
    assert load_checkpoint(run_dir / "tiny" / CHECKPOINT_NAME)["iteration"] == 3


def test_resume_refuses_counters_that_do_not_add_up(run_dir):
    last = run_dir / "tiny" / CHECKPOINT_NAME
    save_checkpoint(last, {**load_checkpoint(last), "iteration": 10**6})
    with pytest.raises(CheckpointError, match=r"iteration 1000000 and global_step 512 disagree"):
        train(from_dict(tiny_block(run_dir, 2)), resume=True, progress=False)


def test_resume_refuses_a_checkpoint_without_its_optimizer(run_dir):
    last = run_dir / "tiny" / CHECKPOINT_NAME
    checkpoint = load_checkpoint(last)
    del checkpoint["optimizer"]
    save_checkpoint(last, checkpoint)
    with pytest.raises(CheckpointError, match=r"lacks \['optimizer'\]"):
        train(from_dict(tiny_block(run_dir, 2)), resume=True, progress=False)


def test_an_existing_run_is_not_overwritten_without_overwrite(run_dir, capsys):
    last = run_dir / "tiny" / CHECKPOINT_NAME
    before = last.read_bytes()
    config = from_dict(tiny_block(run_dir, 1))
    with pytest.raises(ConfigError, match=r"last.pt exists: resume that run \(--resume\), start it again "
                                          r"\(--overwrite\), or choose another name"):
        train(config, progress=False)
    assert last.read_bytes() == before

    from domino_env_training.cli import main  # the command line's error line
    path = run_dir / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_block(run_dir, 1)))
    with pytest.raises(SystemExit) as exit_:
        main(["--config", str(path), "--no-progress"])
    assert exit_.value.code == 2 and "error: " in capsys.readouterr().err
    assert last.read_bytes() == before

    result = train(config, overwrite=True, progress=False)
    assert result.iteration == 1 and load_checkpoint(last)["iteration"] == 1


@pytest.mark.parametrize("resume", [True, False])
def test_stale_temporaries_are_removed_on_start_and_on_resume(run_dir, resume):
    stale = [run_dir / "tiny" / f".{CHECKPOINT_NAME}.{tag}.tmp" for tag in ("a1b2c3", "zz")]
    for path in stale:
        path.write_bytes(b"half a checkpoint")
    keep = run_dir / "tiny" / "notes.tmp"
    keep.write_text("not a checkpoint temporary")
    config = from_dict(tiny_block(run_dir, 3))
    train(config, resume=resume, overwrite=not resume, progress=False)
    assert not any(path.exists() for path in stale)
    assert keep.exists()


# ----- SIGKILL mid-run, then --resume --------------------------------------------------------------

def run_trainer(config: Path, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "domino_env_training.cli", "--config", str(config),
                             "--no-progress", "--threads", "1", *extra],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_sigkill_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path):
    iterations = 12
    data = tiny_block(tmp_path / "killed", iterations, checkpoint_interval=3, eval_interval=5)
    config_path = tmp_path / "killed.yaml"
    config_path.write_text(yaml.safe_dump(data))
    last = tmp_path / "killed" / "tiny" / CHECKPOINT_NAME
    processes = []
    try:
        first = run_trainer(config_path)
        processes.append(first)
        deadline = time.monotonic() + 120
        while not last.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        assert first.wait(30) == -signal.SIGKILL, first.stdout.read().decode()
        killed_at = load_checkpoint(last)["iteration"]
        assert 3 <= killed_at < iterations  # killed after a checkpoint, before the end

        second = run_trainer(config_path, "--resume")
        processes.append(second)
        output = second.communicate(timeout=120)[0].decode()
        assert second.returncode == 0, output
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()
            process.stdout.close()

    whole = train(from_dict({**data, "run_dir": str(tmp_path / "whole")}), progress=False)
    resumed = load_checkpoint(last)
    uninterrupted = load_checkpoint(whole.run_path / CHECKPOINT_NAME)
    assert resumed["iteration"] == uninterrupted["iteration"] == iterations
    assert seeded_history(resumed["history"]) == seeded_history(uninterrupted["history"])
    for key, value in uninterrupted["model"].items():
        assert torch.equal(resumed["model"][key], value), key
