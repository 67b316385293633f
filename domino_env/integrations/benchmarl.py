"""The games as BenchMARL tasks: ``DominoTask.BLOCK2P.get_task()`` goes straight into a BenchMARL
``Experiment`` (MAPPO, IPPO, MASAC ... with BenchMARL's own configs), no other glue.

BenchMARL's own ``PettingZooTask`` builds TorchRL's ``PettingZooEnv`` with ``parallel=True``, and the
games are turn-based AEC environments, so ``DominoTaskClass`` builds the same wrapper on
``raw_env()`` with ``parallel=False`` and ``use_mask=True``. What BenchMARL then sees:

- One group, ``"agents"``, of every seat (``MarlGroupMapType.ALL_IN_ONE_GROUP``): with BenchMARL's
  default ``share_policy_params`` one policy plays every seat, self-play (observations are
  seat-relative). ``("agents", "mask")`` says which seat acted; the others' actions are ignored.
- ``("agents", "observation")``: the encoder's vector; ``("agents", "action_mask")``: the seat to
  act's legal moves, all ``True`` for the seats not to act (TorchRL's convention, so a masked
  policy never samples from an empty set); ``"state"``: the full-information state
  (``env.state()``), the input of centralized critics (MAPPO's).
- ``("agents", "reward")``: every seat's reward of the step (zero-sum by default; a round's
  result reaches all seats on its last step), so BenchMARL's ``episode_reward`` of one seat is its
  score and the group mean is 0 in self-play: ``domino_env.integrations.scoring`` measures play.

The members are the single-episode benchmark tasks of ``domino_env.evaluation.tasks`` (a match has
no step bound, which BenchMARL's evaluation rollouts need); ``get_task(config)`` takes any option
of the game's environment on top of the task's. Imports ``benchmarl`` and ``torchrl`` (the
``benchmarl`` extra, its own venv: BenchMARL pins torchrl) when imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarl.environments.common import Task
from benchmarl.environments.pettingzoo.common import PettingZooClass
from benchmarl.utils import DEVICE_TYPING
from torchrl.envs import EnvBase, PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType

from domino_env.evaluation.tasks import TASKS
from domino_env.evaluation.tasks import Task as BenchmarkTask
from domino_env.games import get_game

GAME = "game"
"""The config key naming the game; every other key is an option of its environment."""


class DominoTaskClass(PettingZooClass):
    """A game (``config["game"]``) with its options as a BenchMARL task: PettingZoo's task class with
    the environment built turn-based, discrete actions only and the state always given."""

    def get_env_fun(
        self, num_envs: int, continuous_actions: bool, seed: int | None, device: DEVICE_TYPING
    ) -> Callable[[], EnvBase]:
        record = get_game(self.config[GAME])
        options = {k: v for k, v in self.config.items() if k != GAME}
        return lambda: PettingZooWrapper(
            record.raw_env(**options),
            use_mask=True,
            group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
            categorical_actions=True,
            return_state=True,
            seed=seed,
            device=device,
        )

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_state(self) -> bool:
        return True

    def has_render(self, env: EnvBase) -> bool:
        return False  # frames are one seat's view (render_mode="rgb_array"), not the table

    def max_steps(self, env: EnvBase) -> int:
        """The most decisions one round or hand can take (the rules config's bound)."""
        return env.unwrapped.config.max_decisions  # env: the PettingZoo wrapper; unwrapped: the AEC game

    @staticmethod
    def env_name() -> str:
        return "domino_env"


class DominoTask(Task):
    """The single-episode benchmark tasks (``domino_env.evaluation.tasks``), upper-cased."""

    BLOCK2P = None
    DRAW2P = None
    DRAW3PBOARDPAN = None
    BLOCKTEAMS4P = None
    TEXAS42 = None
    TEXAS42N42PA = None

    @staticmethod
    def associated_class() -> type[DominoTaskClass]:
        return DominoTaskClass

    @property
    def benchmark(self) -> BenchmarkTask:
        """The ``domino_env.evaluation.tasks`` task of this name (its game, rules and protocol)."""
        return next(t for name, t in TASKS.items() if name.upper() == self.name)

    def get_task(self, config: dict[str, Any] | None = None) -> DominoTaskClass:
        """The task's game and environment options (``Task.env_kwargs``), updated by ``config``."""
        task = self.benchmark
        return DominoTaskClass(self.name, {GAME: task.game, **task.env_kwargs, **(config or {})})
