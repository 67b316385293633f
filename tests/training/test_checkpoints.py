import os

import pytest
import torch

from domino_env_training import checkpoints
from domino_env_training.checkpoints import CheckpointError, load_checkpoint, save_checkpoint


def payload(scale: float) -> dict:
    return {
        "model": {"w": torch.arange(6.0).reshape(2, 3) * scale},
        "iteration": 7,
        "config": {"ppo": {"lr": 3e-4}, "network": {"hidden_sizes": [64]}},
        "history": [{"global_step": 4096, "win_rate": 0.5}],
    }


def test_round_trip(tmp_path):
    path = tmp_path / "run" / "last.pt"
    save_checkpoint(path, payload(1.0))
    loaded = load_checkpoint(path)
    assert torch.equal(loaded["model"]["w"], payload(1.0)["model"]["w"])
    plain = {k: v for k, v in payload(1.0).items() if k != "model"}
    assert {k: v for k, v in loaded.items() if k != "model"} == plain
    assert os.listdir(path.parent) == ["last.pt"]  # no temporary file left behind


class NotPlainData:
    pass


def test_loading_refuses_arbitrary_objects(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"x": NotPlainData()}, path)
    with pytest.raises(CheckpointError, match="objects other than tensors") as err:
        load_checkpoint(path)
    assert "weights_only" not in str(err.value)  # torch's advice to load unsafely is not passed on


def test_a_crash_while_writing_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "last.pt"
    save_checkpoint(path, payload(1.0))

    def crash_halfway(obj, f):
        f.write(b"half a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoints.torch, "save", crash_halfway)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, payload(2.0))
    monkeypatch.undo()
    assert torch.equal(load_checkpoint(path)["model"]["w"], payload(1.0)["model"]["w"])
    assert os.listdir(tmp_path) == ["last.pt"]
