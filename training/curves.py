"""The learning-curve PNG of a run (matplotlib imported lazily, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path


def plot_learning_curve(history: list[dict[str, float]], path: str | Path) -> None:
    """Training win rate against the pool, evaluation win rate against random and, when the run
    has them, the harness win rates against the bots with their 95% intervals, per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    series = [("win_rate", "vs pool (training games)"), ("eval_win_rate_vs_random", "vs random (eval)")]
    harness = sorted({k for h in history for k in h
                      if k.startswith("harness_win_rate_vs_") and not k.endswith(("_low", "_high"))})
    for key, label in series:
        points = [(h["global_step"], h[key]) for h in history if key in h]
        if points:
            ax.plot(*zip(*points, strict=True), marker="." if key.startswith("eval") else None, label=label)
    for key in harness:
        rows = [h for h in history if key in h]
        steps, means = [h["global_step"] for h in rows], [h[key] for h in rows]
        errors = [[m - h[f"{key}_low"] for m, h in zip(means, rows, strict=True)],
                  [h[f"{key}_high"] - m for m, h in zip(means, rows, strict=True)]]
        ax.errorbar(steps, means, yerr=errors, marker="o", capsize=3,
                    label=f"{key.removeprefix('harness_win_rate_')} (duplicate deals, 95%)")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set(xlabel="engine steps", ylabel="learner score (win 1, tie 0.5)", ylim=(0, 1),
           title=Path(path).parent.name)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
