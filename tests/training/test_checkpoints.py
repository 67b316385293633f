import os
import subprocess
import sys
from pathlib import Path

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


def trained(scale: float, **changes) -> dict:
    """A training checkpoint's entries that averaging reads, with weights ``scale`` times a ramp."""
    entries = {**payload(scale), "obs_dim": 3, "num_actions": 2, "observation_encoder": "compact",
               "critic_dim": 3, "hands_dim": 0, "global_step": 100, "elapsed_s": 1.5,
               "config": {"game": {"name": "dominoes", "options": {"variant": "draw"}}}}
    entries["model"] = {**entries["model"], "steps": torch.tensor(4)}
    return {**entries, **changes}


def test_averaging_means_the_weights_and_sums_the_compute(tmp_path):
    sources = [tmp_path / "a.pt", tmp_path / "b.pt"]
    save_checkpoint(sources[0], trained(1.0))
    save_checkpoint(sources[1], trained(3.0, global_step=200, elapsed_s=2.5))
    soup = checkpoints.average_checkpoints(sources, tmp_path / "soup.pt")
    loaded = load_checkpoint(tmp_path / "soup.pt")
    assert torch.allclose(loaded["model"]["w"], torch.arange(6.0).reshape(2, 3) * 2.0)
    assert torch.equal(loaded["model"]["steps"], torch.tensor(4))  # not a weight: the first's
    assert loaded["global_step"] == 300 and loaded["elapsed_s"] == 4.0 and loaded["iteration"] == 14
    assert loaded["averaged_from"] == [str(path) for path in sources]
    assert torch.equal(soup["model"]["w"], loaded["model"]["w"])


@pytest.mark.parametrize(("other", "message"), [
    (trained(1.0, obs_dim=4), "its obs_dim 4 differs"),
    (trained(1.0, config={"game": {"name": "texas42", "options": {}}}), "trained on .*texas42"),
    (trained(1.0, model={"w": torch.zeros(3, 2), "steps": torch.tensor(4)}), "its layers"),
])
def test_averaging_refuses_networks_that_do_not_match(tmp_path, other, message):
    save_checkpoint(tmp_path / "a.pt", trained(1.0))
    save_checkpoint(tmp_path / "b.pt", other)
    with pytest.raises(CheckpointError, match=message):
        checkpoints.average_checkpoints([tmp_path / "a.pt", tmp_path / "b.pt"], tmp_path / "soup.pt")
    assert not (tmp_path / "soup.pt").exists()


def test_averaging_needs_two_checkpoints(tmp_path):
    save_checkpoint(tmp_path / "a.pt", trained(1.0))
    with pytest.raises(CheckpointError, match="two checkpoints or more, got 1"):
        checkpoints.average_checkpoints([tmp_path / "a.pt"], tmp_path / "soup.pt")


def test_the_averaging_script_writes_the_soup(tmp_path):
    for name, scale in (("a", 1.0), ("b", 2.0), ("c", 6.0)):
        save_checkpoint(tmp_path / f"{name}.pt", trained(scale))
    script = Path(__file__).resolve().parents[2] / "scripts" / "average_checkpoints.py"
    done = subprocess.run([sys.executable, str(script), "--out", str(tmp_path / "soup" / "last.pt"),
                           *(str(tmp_path / f"{name}.pt") for name in "abc")],
                          capture_output=True, text=True, check=True)
    assert "the mean of 3 networks, 300 engine steps" in done.stdout
    assert torch.allclose(load_checkpoint(tmp_path / "soup" / "last.pt")["model"]["w"],
                          torch.arange(6.0).reshape(2, 3) * 3.0)
