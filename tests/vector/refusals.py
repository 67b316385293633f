"""One check for every batched engine: a bad action array is refused and leaves the state untouched."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

BAD_ACTIONS = ("illegal", "out_of_range", "negative", "float", "bool", "shape")


def check_bad_actions_refused(vec: Any, bad: str) -> None:
    """``vec`` (8 games) refuses the ``bad`` kind of action array, its arrays unchanged, and still
    plays legal actions afterwards."""
    batch = vec.reset()
    actions = batch.mask.argmax(axis=1)
    before = _arrays(vec)
    bad_actions: Any = {
        "illegal": np.where(np.arange(8) == 3, np.flatnonzero(~batch.mask[3])[0], actions),
        "out_of_range": np.where(np.arange(8) == 2, vec.num_actions, actions),
        "negative": np.where(np.arange(8) == 5, -1, actions),
        "float": actions.astype(float),
        "bool": batch.mask[:, 0],
        "shape": actions[:4],
    }[bad]
    with pytest.raises(ValueError, match="illegal action|must be|shape"):
        vec.step(bad_actions)
    after = _arrays(vec)
    assert before.keys() == after.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    vec.step(actions)  # and the legal ones still play


def _arrays(vec: Any) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in vars(vec).items() if isinstance(v, np.ndarray)}
