"""Batched engines: many independent games stepped in lockstep over numpy arrays.

Every engine follows docs/architecture.md ("Batched engines"): ``reset() -> Batch``,
``step(actions) -> Batch``; ``vector/line.py`` holds the line games (Texas 42 will sit beside it).
"""

from domino_env.vector.batch import Batch, sample_legal
from domino_env.vector.line import VectorLineGame

__all__ = ["Batch", "VectorLineGame", "sample_legal"]
