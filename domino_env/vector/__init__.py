"""Batched engines: many independent games stepped in lockstep over numpy arrays.

Every engine follows docs/architecture.md ("Batched engines"): ``reset() -> Batch``,
``step(actions) -> Batch``; ``vector/line.py`` holds the line games, ``vector/texas42.py`` Texas 42.
"""

from domino_env.vector.batch import Batch, sample_legal
from domino_env.vector.line import VectorLineGame
from domino_env.vector.texas42 import VectorTexas42Game

__all__ = ["Batch", "VectorLineGame", "VectorTexas42Game", "sample_legal"]
