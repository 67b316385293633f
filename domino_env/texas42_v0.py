"""Entry module in PettingZoo classic style: ``env()`` (wrapped) and ``raw_env()`` (bare).

Importing it registers ``"domino_env/Texas42-v0"`` in PettingZoo's registry (PettingZoo 1.27 and
later; older releases have none), so
``pettingzoo.make("aec", "domino_env/Texas42-v0", nello="low", episode="game")`` works.
The full description (spaces, actions, rewards) is ``domino_env.envs.texas42_v0``'s docstring.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from domino_env.envs import texas42_v0 as _impl
from domino_env.envs.base import register_aec
from domino_env.envs.texas42_v0 import raw_env

__doc__ = _impl.__doc__
__all__ = ["env", "raw_env"]
ENV_ID = "domino_env/Texas42-v0"


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """``raw_env(**kwargs)`` under PettingZoo's order-enforcing wrapper, ``illegal_action="penalize"``
    unless given: as in PettingZoo's classic games, an illegal move ends the episode with a penalty
    for the offender (``raw_env`` keeps ``"raise"``; docs/decisions.md).

    PettingZoo's out-of-bounds and terminate-on-illegal wrappers are left out on purpose: illegal
    moves, out-of-range ids included, are handled by the ``illegal_action`` option in one place.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**{"illegal_action": "penalize", **kwargs}))


register_aec(ENV_ID, "domino_env.texas42_v0:env")
