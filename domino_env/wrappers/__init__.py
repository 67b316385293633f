"""Single-agent Gymnasium bridge; importing this package registers the ``domino_env/...`` Gymnasium ids.

``gymnasium.make("domino_env/Block2p-v0")`` (after ``import domino_env.wrappers``) gives
``SingleAgentEnv`` for Block, 2 players, learner on seat 0 against ``random``; every keyword of
``SingleAgentEnv`` (``opponents=``, ``flatten=``, ``seat=`` and the game's options) can be passed to
``make``. ``domino_env/SingleAgent-v0`` is the generic entry: ``game=`` and any options. Every
benchmark task (``domino_env.evaluation.tasks``) has an id ``domino_env/<task>-v0`` with its rules and
episode; where such an id was already here (Block2p, Draw2p, BlockTeams4p, Texas42) its options are
the task's (tested).
"""

from __future__ import annotations

import gymnasium

from domino_env.evaluation.tasks import TASKS
from domino_env.wrappers.single_agent import SingleAgentEnv, as_agent

__all__ = ["ENV_IDS", "SingleAgentEnv", "as_agent"]

_ENTRY_POINT = "domino_env.wrappers.single_agent:SingleAgentEnv"
ENV_IDS: dict[str, dict] = {
    "domino_env/SingleAgent-v0": {},
    "domino_env/Block2p-v0": {"game": "dominoes", "variant": "block", "num_players": 2},
    "domino_env/Draw2p-v0": {"game": "dominoes", "variant": "draw", "num_players": 2},
    "domino_env/Draw3p-v0": {"game": "dominoes", "variant": "draw", "num_players": 3},
    "domino_env/BlockTeams4p-v0": {
        "game": "dominoes", "variant": "block", "num_players": 4, "teams": True, "team": True,
    },
    "domino_env/Texas42-v0": {"game": "texas42", "team": True},
}
for _task in TASKS.values():
    ENV_IDS.setdefault(_task.gymnasium_id, _task.gymnasium_kwargs)

for _env_id, _kwargs in ENV_IDS.items():
    if _env_id not in gymnasium.registry:
        gymnasium.register(id=_env_id, entry_point=_ENTRY_POINT, kwargs=_kwargs)
