import json
import sys
from pathlib import Path

import pytest
import torch

from domino_env_training.checkpoints import save_checkpoint
from domino_env_training.curves import harness_keys, harness_series, with_crossplay_from_eval_files

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


def _write_eval_file(eval_dir: Path, step: int, share: tuple[float, float, float]) -> None:
    """A harness result file as the trainer writes it, cut to its cross-play intervals."""
    eval_dir.mkdir(exist_ok=True)
    crossplay_ci = [[None, list(share)], [[1 - share[0], 1 - share[2], 1 - share[1]], None]]
    (eval_dir / f"step_{step}_vs_greedy.json").write_text(json.dumps({"crossplay_ci": crossplay_ci}))


def test_crossplay_is_read_from_the_eval_files_at_their_steps(tmp_path: Path):
    _write_eval_file(tmp_path, 2000, (0.55, 0.5, 0.6))
    _write_eval_file(tmp_path, 4000, (0.6, 0.52, 0.65))
    history = with_crossplay_from_eval_files(_history(0.0), tmp_path)
    assert harness_keys(history, "crossplay") == ["harness_crossplay_vs_greedy"]
    steps, means, errors = harness_series(history, "harness_crossplay_vs_greedy", "elapsed_s")
    assert steps == [60.0, 120.0] and means == [0.55, 0.6]
    assert [pytest.approx(e) for e in errors] == [[0.05, 0.08], [0.05, 0.05]]
    assert history[1]["harness_margin_vs_greedy"] == 2.0  # the recorded keys are kept


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


def test_script_draws_the_crossplay_share_of_an_older_run_from_its_eval_files(tmp_path: Path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    save_checkpoint(run / "last.pt", {"model": {"w": torch.zeros(1)}, "history": _history(0.0)})
    out = tmp_path / "curve.png"
    with pytest.raises(SystemExit):  # no share recorded and no result files: said so
        plot_curves(["--stat", "crossplay", "--run", f"a={run / 'last.pt'}", "--out", str(out)])
    assert "no harness evaluations" in capsys.readouterr().err
    _write_eval_file(run / "eval", 2000, (0.55, 0.5, 0.6))
    assert plot_curves(["--stat", "crossplay", "--target", "0.55", "--run", f"a={run / 'last.pt'}",
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
