"""One learning seat (or team) of thousands of games at once: a ``gymnasium.vector.VectorEnv``.

``SingleAgentEnv`` steps one Python game per environment; this steps ``num_envs`` games of a
batched engine (``domino_env.vector``) with whole-array operations. Every game in the batch is at
the learner's turn whenever control returns: ``step(actions)`` plays the learner's move in every
game, then the opponents' moves (batched scripted policies, ``domino_env.bots.batched``, or any
callable on observations and masks) until each game is back at a learner seat. Games reset
themselves when they end (``AutoresetMode.SAME_STEP``): the observation returned with
``terminated=True`` is already the first one of the next episode; every episode ends by the rules
(``terminated``), none by truncation, so no final observation is needed to bootstrap and none is
kept. The reward is the learner seat's total over the learner's move and the opponents' moves
after it.

``domino_env.integrations.sb3.SB3VecEnv`` adapts it to Stable-Baselines3's ``VecEnv`` with
``action_masks()``, so sb3-contrib's ``MaskablePPO`` trains on thousands of games per step.
Observations are the compact encoder's (``encoders.line_compact`` / ``encoders.texas42_compact``),
the one the batched engines compute.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector.utils import batch_space

try:  # gymnasium >= 1.1 names autoreset modes; 1.0 has none, and its vector wrappers assume next-step
    from gymnasium.vector import AutoresetMode
except ImportError:
    AutoresetMode = None

from domino_env.bots.batched import BatchedPolicy, make_batched_bot
from domino_env.encoders.base import get_encoder
from domino_env.games import get_game
from domino_env.vector.batch import Batch, integer_array, step_games

BatchedOpponent = str | BatchedPolicy
"""A batched scripted bot's name (``random``, ``greedy`` for the line games, ``heuristic`` for Texas
42) or ``policy(obs (n, obs_dim), mask (n, A) bool, rng) -> actions (n,)``: e.g. a frozen
checkpoint, ``lambda obs, mask, rng: PolicyAgent.from_checkpoint(path).act(obs, mask)``."""


class DominoVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game`` for the learner on ``seat`` against ``opponents``.

    - ``team=True`` (four-player team games): the learner plays ``seat`` and its partner
      ``seat + 2``; the observation is that of the learner seat to act, the reward the team's.
    - ``opponents``: one spec (``BatchedOpponent``) for every other seat, or a ``{seat: spec}``
      mapping naming each other seat.
    - Every other keyword is an option of the game (``variant``, ``num_players``, ``preset``,
      ``episode``, ``reward`` ...), as the batched engines take them; configs no batched engine
      plays (three-player 42, Texas 88) are refused: use ``SingleAgentEnv`` for those.
    - ``reset(seed=s)`` rebuilds the games from ``s`` (deals, and the opponents' random draws).

    ``action_masks()`` gives the ``(num_envs, A)`` legal actions as int8 0/1 (also
    ``info["action_mask"]``): PettingZoo's mask dtype, the environments' and every adapter's but
    TorchRL's (bool) and RLlib's (float32), whose masking modules need theirs. AgileRL's masked
    algorithms compute ``1 - mask``, which a bool mask fails.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP} if AutoresetMode else {}

    def __init__(
        self,
        game: str = "dominoes",
        num_envs: int = 256,
        *,
        seat: int = 0,
        team: bool = False,
        opponents: BatchedOpponent | Mapping[int, BatchedOpponent] = "random",
        **options: Any,
    ):
        if AutoresetMode is None:
            raise ImportError(f"DominoVectorEnv needs gymnasium >= 1.1 (same-step autoreset, "
                              f"gymnasium.vector.AutoresetMode); installed: {gymnasium.__version__}")
        record = get_game(game)
        config = record.config(**options)
        engine_class = record.vector_class(config)
        if engine_class is None:
            raise ValueError(
                f"no batched engine plays these {game} options ({options}); "
                "use domino_env.wrappers.SingleAgentEnv"
            )
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        self._make_engine: Callable[[int | None], Any] = lambda seed: engine_class(
            int(num_envs), seed=seed, **options
        )
        self.engine = self._make_engine(None)
        n = self.engine.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be an int in 0..{n - 1}, got {seat!r}")
        if team and not (n == 4 and record.sides(config) == (0, 1, 0, 1)):
            raise ValueError(f"team=True needs a four-player team game; these {game} options are not one")
        self.game, self.options = game, dict(options)
        self.learner_seats = sorted({seat, (seat + 2) % n} if team else {seat})
        self._reward_seat = seat  # partners share their team's reward
        self._is_learner = np.isin(np.arange(n), self.learner_seats)
        self._opponents = self._policies(opponents, n)

        self.num_envs = int(num_envs)
        self.single_observation_space = get_encoder(game, "compact").space(config)
        self.single_action_space = gymnasium.spaces.Discrete(self.engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._batch: Batch | None = None
        self._carried = np.zeros(self.num_envs, np.float32)  # new episodes' rewards before their first step
        self._rng = np.random.default_rng()

    def _policies(self, spec: Any, n: int) -> list[tuple[np.ndarray, BatchedPolicy]]:
        """``(seats, policy)`` pairs covering every other seat once."""
        others = [s for s in range(n) if s not in self.learner_seats]
        if isinstance(spec, Mapping):
            if sorted(spec) != others:
                raise ValueError(f"opponents must map exactly the seats {others}, got {sorted(spec)}")
            return [(np.array([s]), self._policy(spec[s])) for s in others]
        return [(np.array(others), self._policy(spec))]

    def _policy(self, spec: Any) -> BatchedPolicy:
        if isinstance(spec, str):
            return make_batched_bot(self.game, spec, self.options)
        if callable(spec):
            return spec
        raise TypeError(
            f"an opponent is a batched bot name or a function (obs, mask, rng) -> actions, got {spec!r}"
        )

    # ----- Gymnasium VectorEnv API -----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New episodes in every game; ``seed`` (an int) rebuilds the games and opponents from it."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an int or None, got {seed!r}")
            self.engine = self._make_engine(int(seed))
            self._rng = np.random.default_rng(seed)
        if options:
            raise ValueError(f"reset takes no options, got {options!r}")
        self._batch = self.engine.reset()
        # Whatever the opponents earn the learner before its first move counts on its first step.
        self._carried, _ = self._play_opponents(np.ones(self.num_envs, bool))
        return self._batch.obs, self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's move in every game (an integer array ``(num_envs,)`` of legal actions; an
        illegal one raises ``ValueError`` and leaves every game as it was), then the opponents'."""
        if self._batch is None:
            raise RuntimeError("step() before reset(): call reset() first to deal the games")
        actions = integer_array(actions, "actions", (self.num_envs,))
        self._batch = self.engine.step(actions)
        reward = self._batch.rewards[:, self._reward_seat] + self._carried
        done = self._batch.done.copy()
        carried, done = self._play_opponents(done, reward)
        self._carried = carried
        truncated = np.zeros(self.num_envs, bool)
        return self._batch.obs, reward, done, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` int8 0/1: the legal actions of the learner seat to act in each game (a view
        of the engine's bool mask, no copy)."""
        if self._batch is None:
            raise RuntimeError("action_masks() before reset(): call reset() first to deal the games")
        return self._batch.mask.view(np.int8)

    # ----- helpers ---------------------------------------------------------------------------------
    def _play_opponents(
        self, done: np.ndarray, reward: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Opponents move until every game is at a learner seat. Their moves' rewards to the learner
        are added to ``reward`` while the episode lasts; after it ended (``done``), to the next
        episode's first step (returned, with ``done`` updated)."""
        carried = np.zeros(self.num_envs, np.float32)
        batch = self._batch
        waiting = ~self._is_learner[batch.seat]
        while waiting.any():
            actions = np.zeros(self.num_envs, np.int64)
            try:
                for seats, policy in self._opponents:
                    rows = np.flatnonzero(waiting & np.isin(batch.seat, seats))
                    if rows.size:
                        actions[rows] = policy(batch.obs[rows], batch.mask[rows], self._rng)
                batch = step_games(self.engine, batch, actions, waiting)
            except (ValueError, TypeError) as error:
                self._batch = None  # the learner's move is in, the opponents' are not: start again
                raise ValueError(f"an opponent policy failed ({error}); call reset()") from error
            earned = batch.rewards[:, self._reward_seat]
            if reward is not None:
                reward += np.where(done, 0.0, earned)
            carried += np.where(done, earned, 0.0)
            done |= batch.done
            waiting = ~self._is_learner[batch.seat]
        self._batch = batch
        return carried, done

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self._batch.seat}
