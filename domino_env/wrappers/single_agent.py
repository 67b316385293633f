"""One learning seat (or team) of any domino game as a plain ``gymnasium.Env``.

Single-agent libraries (Stable-Baselines3, sb3-contrib's MaskablePPO, ...) need a
``gymnasium.Env`` subclass, not a PettingZoo AEC env seen through a conversion wrapper (PettingZoo's
SB3 recipe fails Gymnasium 1.x's ``isinstance`` check). ``SingleAgentEnv`` drives the PettingZoo
environment itself: the learner's ``step`` plays its move, then every other seat moves through its
agent until the learner is to act again or the episode is over. The learner's reward is the sum of
its rewards over all those moves, so a round won or lost on an opponent's move is not missed.

Other seats are played by agents with ``act(view, rng) -> int`` (``domino_env.bots``), given by bot
name, as an object, or as a plain function ``f(view, rng) -> int``. They see only their seat's
view, so no hidden information reaches them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from domino_env.bots import Agent, make_bot
from domino_env.games import get_game

OpponentSpec = str | Agent | Callable[[Any, np.random.Generator], int]


class _FunctionAgent:
    """Adapts a plain ``f(view, rng) -> int`` to the ``Agent`` interface."""

    def __init__(self, fn: Callable[[Any, np.random.Generator], int]):
        self.act = fn


def as_agent(game: str, spec: OpponentSpec) -> Agent:
    """A bot name (``make_bot(game, name)``), an ``Agent``, or a function ``(view, rng) -> int``."""
    if isinstance(spec, str):
        return make_bot(game, spec)
    if isinstance(spec, Agent):
        return spec
    if callable(spec):
        return _FunctionAgent(spec)
    raise TypeError(f"an agent is a bot name, an object with act(view, rng) or a function, got {spec!r}")


class SingleAgentEnv(gymnasium.Env):
    """``game`` (``"dominoes"`` or ``"texas42"``) for the learner on ``seat`` against ``opponents``.

    - ``team=True`` (4-player team games): one policy plays ``seat`` and its partner ``seat + 2``;
      the observation is always that of the seat to act, its reward the team's.
    - ``opponents``: one agent spec for every other seat, a list (one per other seat, in seat
      order) or a ``{seat: spec}`` mapping.
    - ``flatten=False``: observations are the PettingZoo dict (``"observation"`` float vector and
      ``"action_mask"`` int8); ``True`` gives only the vector (a ``Box``), the mask then comes
      from ``action_masks()`` (what MaskablePPO calls) and ``info["action_mask"]``.
    - ``illegal_action`` defaults to ``"penalize"``: an illegal move ends the episode with
      ``-illegal_penalty`` instead of raising, as Gymnasium's checker and unmasked agents expect.
    - Every other keyword is an option of the PettingZoo env (``variant``, ``num_players``,
      ``preset``, ``reward``, ``episode`` ...). ``reset(options={"deal": ...})`` fixes a deal.

    Seeding: ``reset(seed=s)`` seeds ``self.np_random``; each episode's deal seed and the
    opponents' random choices come from it, so a seeded run replays exactly.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: str = "dominoes",
        *,
        seat: int = 0,
        team: bool = False,
        opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[int, OpponentSpec] = "random",
        flatten: bool = False,
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        **env_options: Any,
    ):
        self.aec = get_game(game).raw_env(
            illegal_action=illegal_action, render_mode=render_mode, **env_options
        )
        n = len(self.aec.possible_agents)
        if not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        if team and n != 4:
            raise ValueError(f"team=True needs a 4-player team game, this one has {n} players")
        self.learner_seats = frozenset({seat, (seat + 2) % n} if team else {seat})
        self._reward_agent = self.aec.possible_agents[seat]  # partners share rewards
        self.opponents = self._opponents(game, opponents, n)
        self.render_mode = render_mode
        self.flatten = flatten
        inner = self.aec.observation_space(self._reward_agent)
        self.observation_space = inner["observation"] if flatten else inner
        self.action_space = self.aec.action_space(self._reward_agent)
        self._last_mask = np.zeros(self.action_space.n, dtype=np.int8)  # nothing is legal before reset()

    def _opponents(self, game: str, spec: Any, n: int) -> dict[int, Agent]:
        others = [s for s in range(n) if s not in self.learner_seats]
        if isinstance(spec, Mapping):
            if set(spec) != set(others):
                raise ValueError(f"opponents must map exactly the seats {others}, got {sorted(spec)}")
            return {s: as_agent(game, spec[s]) for s in others}
        if isinstance(spec, Sequence) and not isinstance(spec, str):
            if len(spec) != len(others):
                raise ValueError(f"opponents lists one agent per seat {others}, got {len(spec)}")
            return {s: as_agent(game, a) for s, a in zip(others, spec, strict=True)}
        return {s: as_agent(game, spec) for s in others}

    # ----- Gymnasium API -----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**63 - 1)), options=options)
        _, done = self._play_others()
        if done:
            raise ValueError("the episode ended before the learner's first move (check the deal)")
        obs = self._observe()
        return obs, self._info()

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        if self.aec.game is None:
            raise RuntimeError("step() before reset(): call reset() first to deal a game")
        if self._done():
            raise RuntimeError("step() after the episode ended: call reset()")
        self.aec.step(action)
        reward = self.aec.rewards[self._reward_agent]
        more, done = self._play_others()
        obs = self._observe()
        return obs, float(reward + more), done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner's seat to act, int8 0/1 as in the observation (sb3-contrib's
        MaskablePPO hook; it reads any 0/1 array as booleans)."""
        return self._last_mask.copy()

    def render(self) -> str | np.ndarray | None:
        """As the PettingZoo env renders (``render_mode``), except that a picture (``"rgb_array"``)
        is always the learner's view: the learner seat to act, or its seat once the episode is over."""
        if self.render_mode == "rgb_array" and self.aec.game is not None:
            return self.aec.render_frame(self.aec.agent_name_mapping[self._acting_agent()])
        return self.aec.render()

    # ----- helpers -----------------------------------------------------------------------------
    def _play_others(self) -> tuple[float, bool]:
        """Let the other seats move until a learner seat is to act; the learner's reward meanwhile."""
        game, total = self.aec.game, 0.0
        while not self._done():
            seat = game.current_player
            if seat in self.learner_seats:
                return total, False
            self.aec.step(self.opponents[seat].act(game.view(seat), self.np_random))
            total += self.aec.rewards[self._reward_agent]
        return total, True

    def _done(self) -> bool:
        return self.aec.game.is_terminal or self.aec.terminations[self._reward_agent]

    def _acting_agent(self) -> str:
        """The learner seat to act; once the episode is over, the learner (its mask is all zeros)."""
        if self._done():
            return self._reward_agent
        return self.aec.possible_agents[self.aec.game.current_player]

    def _observe(self) -> Any:
        """The acting learner seat's observation; remembers its mask (all zeros once the episode is
        over, also after an illegal move, when the engine itself still has a seat to act)."""
        obs = self.aec.observe(self._acting_agent())
        if self._done():
            obs["action_mask"] = np.zeros_like(obs["action_mask"])
        self._last_mask = obs["action_mask"]
        return obs["observation"] if self.flatten else obs

    def _info(self) -> dict:
        return {**self.aec.infos[self._reward_agent], "action_mask": self._last_mask.copy()}
