"""The learning-curve PNG of a run (matplotlib imported lazily, Agg backend: no display needed)."""

from __future__ import annotations

import json
from pathlib import Path


def plot_learning_curve(history: list[dict[str, float]], path: str | Path) -> None:
    """Training win rate against the pool, evaluation win rate against random and, when the run
    has them, the harness win rates against the bots with their 95% intervals, per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    series = [("win_rate", "vs pool (training games)"), ("eval_win_rate_vs_random", "vs random (eval)")]
    for key, label in series:
        points = [(h["global_step"], h[key]) for h in history if key in h]
        if points:
            ax.plot(*zip(*points, strict=True), marker="." if key.startswith("eval") else None, label=label)
    for key in harness_keys(history, "win_rate"):
        steps, means, errors = harness_series(history, key, "global_step")
        ax.errorbar(steps, means, yerr=errors, marker="o", capsize=3,
                    label=f"{key.removeprefix('harness_win_rate_')} (duplicate deals, 95%)")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set(xlabel="engine steps", ylabel="learner score (win 1, tie 0.5)", ylim=(0, 1),
           title=Path(path).parent.name)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def harness_keys(history: list[dict[str, float]], stat: str) -> list[str]:
    """The history's ``harness_<stat>_vs_<bot>`` keys (one per harness opponent), intervals left out."""
    return sorted({k for h in history for k in h
                   if k.startswith(f"harness_{stat}_vs_") and not k.endswith(("_low", "_high"))})


def harness_series(history: list[dict[str, float]], key: str, x: str
                   ) -> tuple[list[float], list[float], list[list[float]]]:
    """x values, means and matplotlib's asymmetric error bars of one harness key's records."""
    rows = [h for h in history if key in h and x in h]
    means = [h[key] for h in rows]
    errors = [[m - h[f"{key}_low"] for m, h in zip(means, rows, strict=True)],
              [h[f"{key}_high"] - m for m, h in zip(means, rows, strict=True)]]
    return [h[x] for h in rows], means, errors


def with_crossplay_from_eval_files(history: list[dict[str, float]], eval_dir: str | Path
                                   ) -> list[dict[str, float]]:
    """``history`` with ``harness_crossplay_vs_<bot>`` filled in from the harness's result files
    (``<run>/eval/step_<step>_vs_<bot>.json``), for runs trained before the trainer recorded it."""
    shares: dict[int, dict[str, float]] = {}
    for path in Path(eval_dir).glob("step_*_vs_*.json"):
        step, _, bot = path.stem.removeprefix("step_").partition("_vs_")
        mean, low, high = json.loads(path.read_text())["crossplay_ci"][0][1]
        key = f"harness_crossplay_vs_{bot}"
        shares.setdefault(int(step), {}).update({key: mean, f"{key}_low": low, f"{key}_high": high})
    return [shares.get(int(record["global_step"]), {}) | record for record in history]


def plot_strength_curves(runs: dict[str, list[dict[str, float]]], path: str | Path, stat: str = "margin",
                         target: float | None = None, title: str = "") -> None:
    """Harness strength of several runs against engine steps (left) and wall-clock minutes (right).

    ``runs`` maps a label to a run's history (a checkpoint's ``history``); each harness opponent of
    each run is one series with its 95% intervals; ``target`` draws a dashed line (a target).
    Wall time needs the records' ``elapsed_s``, which older runs lack: the right panel is then empty.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_steps, by_time) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for label, history in runs.items():
        for key in harness_keys(history, stat):
            name = f"{label} vs {key.removeprefix(f'harness_{stat}_vs_')}"
            steps, means, errors = harness_series(history, key, "global_step")
            by_steps.errorbar([s / 1e6 for s in steps], means, yerr=errors, marker="o", capsize=3, label=name)
            seconds, means, errors = harness_series(history, key, "elapsed_s")
            by_time.errorbar([s / 60 for s in seconds], means, yerr=errors, marker="o", capsize=3, label=name)
    ylabel = {"margin": "learner margin (points per round)", "win_rate": "learner score (win 1, tie 0.5)",
              "crossplay": "cross-play share against the bot"}
    for ax, xlabel in ((by_steps, "engine steps (millions)"), (by_time, "wall-clock minutes")):
        ax.axhline(0.0 if stat == "margin" else 0.5, color="grey", linewidth=0.8, linestyle=":")
        if target is not None:
            target_label = f"target {target:+g}" if stat == "margin" else f"target {target:g}"
            ax.axhline(target, color="black", linewidth=0.8, linestyle="--", label=target_label)
        ax.set(xlabel=xlabel)
        ax.grid(alpha=0.3)
    by_steps.set(ylabel=ylabel.get(stat, stat))
    by_steps.legend(loc="lower right", fontsize="small")
    fig.suptitle(title or f"harness {stat} (duplicate deals, 95% intervals)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
