"""Entry module in PettingZoo classic style: ``env()`` (wrapped) and ``raw_env()`` (bare).

Importing it registers ``"domino_env/MexicanTrain-v0"`` in PettingZoo's registry (PettingZoo 1.27
and later; older releases have none), so
``pettingzoo.make("aec", "domino_env/MexicanTrain-v0", num_players=6, preset="cardinal")`` works.
The full description (spaces, actions, rewards) is ``domino_env.envs.mexican_train_v0``'s docstring.
"""

from domino_env.envs import mexican_train_v0 as _impl
from domino_env.envs.base import classic_env, register_aec
from domino_env.envs.mexican_train_v0 import raw_env

__doc__ = _impl.__doc__
__all__ = ["env", "raw_env"]
ENV_ID = "domino_env/MexicanTrain-v0"
env = classic_env(raw_env)
register_aec(ENV_ID, "domino_env.mexican_train_v0:env")
