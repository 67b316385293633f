"""Pictures of an evaluation: the cross-play heat map, alone or beside the ratings (matplotlib, Agg)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from domino_env.evaluation.harness import EvaluationResult


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend, imported on first use (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_crossplay(ax: Any, result: EvaluationResult, title: str, rotation: int = 45) -> Any:
    """The cross-play matrix (row beats column) on ``ax``, each cell labelled; returns the image."""
    labels = [a.label for a in result.agents]
    grid = np.array([[np.nan if v is None else v for v in row] for row in result.crossplay])
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdBu")
    ax.set_xticks(range(len(labels)), labels, rotation=rotation, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i, j in itertools.product(range(len(labels)), repeat=2):
        if not np.isnan(grid[i, j]):
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center")
    ax.set_title(title)
    ax.figure.colorbar(image, ax=ax)
    return image


def save_crossplay_heatmap(result: EvaluationResult, path: str | Path) -> None:
    """The cross-play matrix alone as a PNG."""
    plt = _pyplot()
    size = len(result.agents)
    fig, ax = plt.subplots(figsize=(1.2 * size + 2, 1.0 * size + 1.5))
    draw_crossplay(ax, result, f"{result.setup.game}: row beats column ({result.num_deals} deals)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def save_ratings_figure(result: EvaluationResult, title: str, path: str | Path) -> None:
    """Elo ratings with 95% error bars beside the cross-play heat map, one PNG (the ladder's figure)."""
    plt = _pyplot()
    labels = [a.label for a in result.agents]
    elo = np.array([[r["elo"], r["elo"] - r["low"], r["high"] - r["elo"]] for r in result.ratings])
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [1, 1.2]})
    left.errorbar(elo[:, 0], range(len(labels)), xerr=elo[:, 1:].T, fmt="o", capsize=4)
    left.axvline(0, color="grey", lw=0.8)
    left.set_yticks(range(len(labels)), labels)
    left.set_xlabel("Elo (Bradley-Terry, random = 0), 95% bootstrap over deals")
    left.set_title(f"{title}: ratings")
    draw_crossplay(right, result, f"row beats column ({result.num_deals} deals)", rotation=30)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
