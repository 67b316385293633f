"""Entry module in PettingZoo classic style: ``env()`` (wrapped) and ``raw_env()`` (bare).

Importing it registers ``"domino_env/Fives-v0"`` in PettingZoo's registry (PettingZoo 1.27 and
later; older releases have none), so
``pettingzoo.make("aec", "domino_env/Fives-v0", variant="fives_and_threes", num_players=4)`` works.
The full description (spaces, actions, rewards) is ``domino_env.envs.fives_v0``'s docstring.
"""

from domino_env.envs import fives_v0 as _impl
from domino_env.envs.base import classic_env, register_aec
from domino_env.envs.fives_v0 import raw_env

__doc__ = _impl.__doc__
__all__ = ["env", "raw_env"]
ENV_ID = "domino_env/Fives-v0"
env = classic_env(raw_env)
register_aec(ENV_ID, "domino_env.fives_v0:env")
