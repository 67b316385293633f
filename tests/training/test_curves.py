import sys
from pathlib import Path

import pytest
import torch

from domino_env_training.checkpoints import save_checkpoint
from domino_env_training.curves import harness_series

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from plot_curves import main as plot_curves  # noqa: E402


def _history(offset: float) -> list[dict[str, float]]:
    records = []
    for i in range(1, 5):
        record = {"iteration": i, "global_step": i * 1000, "elapsed_s": 30.0 * i}
        if i % 2 == 0:
            mean = offset + i
            record |= {"harness_margin_vs_greedy": mean, "harness_margin_vs_greedy_low": mean - 0.5,
                       "harness_margin_vs_greedy_high": mean + 1.0}
        records.append(record)
    return records


def test_harness_series_keeps_only_evaluated_records_with_asymmetric_errors():
    steps, means, errors = harness_series(_history(0.0), "harness_margin_vs_greedy", "global_step")
    assert steps == [2000, 4000] and means == [2.0, 4.0]
    assert errors == [[0.5, 0.5], [1.0, 1.0]]
    seconds, _, _ = harness_series(_history(0.0), "harness_margin_vs_greedy", "elapsed_s")
    assert seconds == [60.0, 120.0]


def test_script_draws_two_runs(tmp_path: Path):
    paths = []
    for seed in (11, 12):
        path = tmp_path / f"s{seed}.pt"
        save_checkpoint(path, {"model": {"w": torch.zeros(1)}, "history": _history(seed / 10)})
        paths.append(path)
    out = tmp_path / "curve.png"
    assert plot_curves(["--run", f"a={paths[0]}", "--run", f"b={paths[1]}", "--target", "2.5",
                        "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("run", "message"), [
    ("no-label", "expected LABEL=CHECKPOINT"),
    ("a=missing.pt", "cannot read the run's history"),
    ("a={plain}", "no harness evaluations"),
])
def test_script_names_what_is_wrong(tmp_path: Path, capsys, run: str, message: str):
    plain = tmp_path / "plain.pt"
    save_checkpoint(plain, {"model": {"w": torch.zeros(1)}, "history": [{"iteration": 1, "global_step": 10}]})
    with pytest.raises(SystemExit):
        plot_curves(["--run", run.format(plain=plain), "--out", str(tmp_path / "x.png")])
    assert message in capsys.readouterr().err
