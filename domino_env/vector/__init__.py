"""Batched engines: many independent games stepped in lockstep, as whole-array programs.

Every engine follows docs/architecture.md ("Batched engines"): ``reset() -> Batch``,
``step(actions) -> Batch``. Two implementations of each game, equal step for step to the rules
engine: numpy on the host (``vector/line.py``, ``vector/texas42.py``: the fastest on a CPU) and
torch on any device (``vector/line_torch.py``, ``vector/texas42_torch.py``: batches that stay on a
GPU); docs/decisions.md ("Batched engines") gives the measurements behind keeping both.
"""

from typing import Any

from domino_env.vector.batch import Batch, sample_legal
from domino_env.vector.line import VectorLineGame
from domino_env.vector.mexican_train import VectorMexicanTrainGame
from domino_env.vector.texas42 import VectorTexas42Game

_TORCH_ENGINES = {
    "TorchLineGame": "domino_env.vector.line_torch",
    "TorchTexas42Game": "domino_env.vector.texas42_torch",
}

__all__ = [
    "Batch", "TorchLineGame", "TorchTexas42Game", "VectorLineGame", "VectorMexicanTrainGame",
    "VectorTexas42Game", "sample_legal",
]


def __getattr__(name: str) -> Any:
    """The torch engines load on first use, so the numpy engines do not wait for torch's import."""
    if name in _TORCH_ENGINES:
        import importlib

        return getattr(importlib.import_module(_TORCH_ENGINES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
