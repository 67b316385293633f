"""Entry module in PettingZoo classic style: ``env()`` (wrapped) and ``raw_env()`` (bare).

Importing it registers ``"domino_env/Texas42-v0"`` in PettingZoo's registry, so
``pettingzoo.make("aec", "domino_env/Texas42-v0", nello="low", episode="game")`` works.
The full description (spaces, actions, rewards) is ``domino_env.envs.texas42_v0``'s docstring.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import register
from pettingzoo.utils import wrappers

from domino_env.envs import texas42_v0 as _impl
from domino_env.envs.texas42_v0 import raw_env

__doc__ = _impl.__doc__
__all__ = ["env", "raw_env"]
ENV_ID = "domino_env/Texas42-v0"


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """``raw_env(**kwargs)`` under PettingZoo's order-enforcing wrapper.

    PettingZoo's out-of-bounds and terminate-on-illegal wrappers are left out on purpose: illegal
    moves, out-of-range ids included, are handled by the ``illegal_action`` option in one place.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


register("aec", ENV_ID, entry_point="domino_env.texas42_v0:env")
