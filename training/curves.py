"""The learning-curve PNG of a run (matplotlib imported lazily, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path


def plot_learning_curve(history: list[dict[str, float]], path: str | Path) -> None:
    """Training win rate against the pool and evaluation win rate against random, per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    series = (("win_rate", "vs pool (training games)"), ("eval_win_rate_vs_random", "vs random (eval)"))
    for key, label in series:
        points = [(h["global_step"], h[key]) for h in history if key in h]
        if points:
            ax.plot(*zip(*points, strict=True), marker="." if key.startswith("eval") else None, label=label)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set(xlabel="engine steps", ylabel="learner score (win 1, tie 0.5)", ylim=(0, 1),
           title=Path(path).parent.name)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
