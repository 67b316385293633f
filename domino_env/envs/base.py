"""The AEC plumbing every domino environment shares.

A game environment supplies a rules engine (``domino_env.rules``) and says how to build it, how to
observe it and how a step turns into rewards; this class does everything PettingZoo asks for once:
agents and spaces, seeding, the int8 action mask (all zeros for a seat that is not to act), the
illegal-action policy (docs/rules.md section 5), dead-agent steps, reward accumulation and rendering
(text, or a picture drawn by ``domino_env.frontends.render``). Used out of order (``step``, ``last``,
``observe``, ``state``, ``render``, ``render_frame`` or the action texts before ``reset()``; ``step``
or ``last`` once every agent has taken its final step) it raises ``RuntimeError`` saying to call
``reset()``.

Engine protocol (duck-typed, implemented by ``rules.line.LineGame`` and ``rules.texas42``):
``num_players``, ``num_actions``, ``current_player`` (``None`` once terminal), ``is_terminal``,
``legal_mask() -> int`` (bit set over action ids), ``apply(action)`` (raises
``IllegalActionError`` and leaves the state untouched on an illegal move), ``action_to_text``,
``action_from_text``, ``render_text()``, ``clone()``, ``to_json()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from domino_env.encoders.state import encode_state, state_space
from domino_env.games import game_of_config
from domino_env.rules.conventions import check_choice, check_non_negative, is_int
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.rewards import zero_sum

ILLEGAL_ACTION_MODES = ("raise", "penalize")
RAW_REWARD_MODES = ("points", "penalty")
"""Reward modes that pay each seat its side's own points (``penalty``: pips held, as negative points)
rather than the zero-sum share of them"""
_EXACT_INTS = frozenset({int, *(np.dtype(code).type for code in np.typecodes["AllInteger"])})
"""Python's and numpy's integer types: an action of one of them is an integer id without more tests"""


def register_aec(env_id: str, entry_point: str, kwargs: dict[str, Any] | None = None) -> bool:
    """Register ``env_id`` for ``pettingzoo.make("aec", env_id)`` (with default ``kwargs``); whether
    it was registered.

    PettingZoo gained its registry (``pettingzoo.register``) in 1.27; older releases, which the
    package still supports (pyproject's lower bound), have none, so there is nothing to register.
    """
    register = getattr(pettingzoo, "register", None)
    if register is None:
        return False
    register("aec", env_id, entry_point=entry_point, kwargs=kwargs)
    return True


def classic_env(raw_env: Callable[..., AECEnv]) -> Callable[..., wrappers.OrderEnforcingWrapper]:
    """The ``env()`` of a PettingZoo-classic entry module: ``raw_env(**kwargs)`` under PettingZoo's
    order-enforcing wrapper, ``illegal_action="penalize"`` unless given. As in PettingZoo's classic
    games, an illegal move ends the episode with a penalty for the offender (``raw_env`` keeps
    ``"raise"``; docs/decisions.md).

    PettingZoo's out-of-bounds and terminate-on-illegal wrappers are left out on purpose: illegal
    moves, out-of-range ids included, are handled by the ``illegal_action`` option in one place.
    """

    def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
        return wrappers.OrderEnforcingWrapper(raw_env(**{"illegal_action": "penalize", **kwargs}))

    env.__doc__ = classic_env.__doc__
    return env


class DominoAECEnv(AECEnv):
    """Base class: subclasses implement the ``_new_game``, ``_observe``, ``_apply`` hooks."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        *,
        num_players: int,
        num_actions: int,
        observation_space: gymnasium.spaces.Box,
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ):
        super().__init__()
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        # A NaN or negative penalty would let an illegal move earn reward.
        self.illegal_penalty = check_non_negative("illegal_penalty", illegal_penalty)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.num_actions = num_actions
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": observation_space,
                "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        act_space = gymnasium.spaces.Discrete(num_actions)
        # One shared object per agent, returned on every call (PettingZoo's API test checks this).
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.game: Any = None
        self._rng = np.random.default_rng()

    # ----- hooks -----------------------------------------------------------------------------
    def _new_game(self, rng: np.random.Generator, options: dict | None) -> Any:
        raise NotImplementedError

    def _observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The seat's observation and its int8 action mask (all zeros unless it is to act)."""
        raise NotImplementedError

    def _apply(self, action: int) -> Sequence[float] | None:
        """Apply a legal action to ``self.game``; return the reward of every seat for this step,
        or ``None`` when they are all zero (most steps: ``step`` then skips rebuilding rewards)."""
        raise NotImplementedError

    def _penalty_rewards(self, offender: int, error: IllegalActionError) -> np.ndarray:
        """Rewards when ``offender``'s illegal move ends the episode: ``-illegal_penalty`` to it.
        ``error`` is what the engine raised, for rules that price some illegal moves themselves."""
        rewards = np.zeros(len(self.possible_agents))
        rewards[offender] = -self.illegal_penalty
        return rewards

    def _infos(self) -> list[dict] | None:
        """Per-seat info dicts after a step (e.g. round results), or ``None`` to keep the current ones
        (most steps: ``step`` then skips rebuilding them)."""
        return [{} for _ in self.possible_agents]

    # ----- rewards of the point-scoring games (subclasses set reward_mode, _sides and config) ----
    @property
    def reward_range(self) -> tuple[float, float]:
        """Bounds of any one step's reward of any seat under legal play (``-illegal_penalty`` aside):
        a side's points on one step are at most ``config.max_round_points`` (Mexican Train: all
        seats' together), which bounds its raw points (``RAW_REWARD_MODES``; ``penalty`` pays them
        negative) and the zero-sum share of the others alike; ``win_loss`` pays at most 1 either way."""
        if self.reward_mode == "win_loss":
            return -1.0, 1.0
        points = float(self.config.max_round_points)
        low = 0.0 if self.reward_mode == "points" else -points
        high = 0.0 if self.reward_mode == "penalty" else points
        return low, high

    def _side_rewards(self, side_points: Sequence[float]) -> list[float]:
        """Every seat's reward when side ``k`` earns ``side_points[k]`` (the win of ``win_loss``
        included): its side's own points under a ``RAW_REWARD_MODES`` mode, else the zero-sum share."""
        if self.reward_mode in RAW_REWARD_MODES:
            return [side_points[k] for k in self._sides]
        return zero_sum(side_points, self._sides)

    # ----- PettingZoo API -------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self.game is None:
            self._rng = np.random.default_rng(seed)
        self.game = self._new_game(self._rng, options)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        infos = self._infos() or [{} for _ in self.agents]
        self.infos = {a: info for a, info in zip(self.agents, infos, strict=False)}
        self._select_next()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game is None:
            raise self._no_turn_error("observe")
        observation, action_mask = self._observe(self.agent_name_mapping[agent])
        return {"observation": observation, "action_mask": action_mask}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict]:
        """PettingZoo's ``last``: observation, cumulative reward, terminated, truncated, info."""
        try:  # free unless it fails: last() runs on every step
            agent = self.agent_selection
            reward = self._cumulative_rewards[agent]
        except (AttributeError, KeyError):  # before reset(), or once every agent has left
            raise self._no_turn_error("last") from None
        if observe:  # observe(agent) inlined: a game exists once an agent is selected
            observation, action_mask = self._observe(self.agent_name_mapping[agent])
            obs = {"observation": observation, "action_mask": action_mask}
        else:
            obs = None
        return obs, reward, self.terminations[agent], self.truncations[agent], self.infos[agent]

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """PettingZoo's ``agent_iter`` (the agent to act until no agent is left, at most ``max_iter``
        times) as a generator: resuming one costs less than its iterator's ``__next__`` at every step."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection

    def step(self, action: int | None) -> None:
        try:  # free unless it fails
            agent = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):  # before reset(), or once every agent has left
            raise self._no_turn_error("step") from None
        if done:
            return self._was_dead_step(action)
        seat = self.agent_name_mapping[agent]
        self._cumulative_rewards[agent] = 0.0
        try:
            step_rewards = self._apply(self._check_action(action))
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            step_rewards = self._penalty_rewards(seat, error)
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {"illegal_action": True, "offender": seat}
        else:
            if self.game.is_terminal:
                self.terminations = dict.fromkeys(self.agents, True)
            infos = self._infos()
            if infos is not None:
                for a, info in zip(self.agents, infos, strict=False):
                    self.infos[a] = info
        if step_rewards is not None:
            self.rewards = {a: float(r) for a, r in zip(self.agents, step_rewards, strict=False)}
            self._accumulate_rewards()
        elif any(self.rewards.values()):  # last step's rewards are still there: zero them
            self.rewards = dict.fromkeys(self.agents, 0.0)
        self._select_next()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """By ``render_mode``: ``"ansi"``, the text of the whole table, every hand (for logs);
        ``"human"``, prints what the viewing seat may see and returns ``None``; ``"rgb_array"``, the
        picture of the viewing seat's view (``render_frame``). The viewing seat is the seat to act
        (seat 0 once the episode is over); ``open_hands`` shows every hand."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        game = self._require_game("render")
        if self.render_mode == "ansi":
            return game.render_text()
        if self.render_mode == "human":
            print(game.render_text(self._viewing_seat()))
            return None
        return self.render_frame()

    def render_frame(self, seat: int | None = None) -> np.ndarray:
        """``seat``'s view of the table as an ``H x W x 3`` uint8 picture (``domino_env.frontends.render``):
        its own hand face up, the others face down unless ``open_hands``. ``seat`` defaults to the
        viewing seat (``render``). Every frame of an env has the same shape."""
        game = self._require_game("render_frame")
        if seat is None:
            seat = self._viewing_seat()
        elif isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not (
            0 <= seat < len(self.possible_agents)
        ):
            raise ValueError(f"seat must be an int in 0..{len(self.possible_agents) - 1}, got {seat!r}")
        return game_of_config(self.config).draw_view(game.view(int(seat)))

    def _viewing_seat(self) -> int:
        current = self.game.current_player
        return 0 if current is None else current

    def close(self) -> None:
        pass

    @property
    def state_space(self) -> gymnasium.spaces.Box:
        """Space of ``state()`` (the same object on every call); subclasses set ``self.config``."""
        return state_space(self.config)

    def state(self) -> np.ndarray:
        """Full-information state (every hand, the stock) for centralized critics, PettingZoo style;
        never part of an observation. Layout: ``domino_env.encoders.state``."""
        return encode_state(self._require_game("state"))

    # ----- helpers -----------------------------------------------------------------------------
    def action_to_text(self, action: int) -> str:
        return self._require_game("action_to_text").action_to_text(action)

    def action_from_text(self, text: str) -> int:
        return self._require_game("action_from_text").action_from_text(text)

    def _require_game(self, method: str) -> Any:
        if self.game is None:
            raise self._no_turn_error(method)
        return self.game

    def _no_turn_error(self, method: str) -> RuntimeError:
        """What ``method`` says when there is no game yet, or every agent has left the episode."""
        if self.game is None:
            return RuntimeError(f"{method}() before reset(): call reset() first to deal a game")
        return RuntimeError(f"{method}() after the episode ended and every agent took its final step: "
                            "call reset() to start another")

    def _check_action(self, action: Any) -> int:
        """Out-of-range or non-integer ids are illegal moves, handled like any other."""
        if type(action) in _EXACT_INTS:  # the common cases in one test (bool is none of them)
            return int(action)
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if not is_int(action):
            legal = ", ".join(self.game.action_to_text(a) for a in self.game.legal_actions())
            raise IllegalActionError(
                f"action must be an integer id in 0..{self.num_actions - 1}, got {action!r}; "
                f"legal moves: {legal}"
            )
        return int(action)

    def _select_next(self) -> None:
        current = self.game.current_player  # None exactly when the game is terminal
        if current is not None:
            self.agent_selection = self.possible_agents[current]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]


class RoundResultEnv(DominoAECEnv):
    """Base of the games scored round by round (the line games, Mexican Train): the step that ends a
    round pays its rewards, and every seat's info holds the round's result until that seat next acts,
    so every seat sees it. Subclasses give ``_round_side_points`` and ``_episode_wins``, and call
    ``_reset_round_infos`` from ``_new_game``."""

    def _round_side_points(self) -> Sequence[float]:
        """Each side's points in the round that just ended (the game's last result)."""
        raise NotImplementedError

    def _episode_wins(self) -> Sequence[float]:
        """1 for each side that won the episode just ended, 0 for the others."""
        raise NotImplementedError

    def _reset_round_infos(self) -> None:
        """Reset infos hold the keys of a round result, nothing scored yet: libraries that size their
        info fields from the reset infos (TorchRL's PettingZooWrapper) then pass round results on."""
        n = len(self.possible_agents)
        self._rounds_reported = 0
        self._round_infos = [{"round_points": [0] * n, "scores": [0] * n} for _ in range(n)]
        self._infos_changed = True  # a seat's round result changed since infos were last built

    def _apply(self, action: int) -> Sequence[float] | None:
        game = self.game
        rounds, seat = len(game.results), game.current
        game.apply(action)
        if self._round_infos[seat]:  # the acting seat has now seen its round result
            self._round_infos[seat] = {}
            self._infos_changed = True
        if len(game.results) == rounds:
            return None
        if self.reward_mode == "win_loss":
            return self._side_rewards(self._episode_wins()) if game.is_terminal else None
        return self._side_rewards(self._round_side_points())

    def _infos(self) -> list[dict] | None:
        """The last round's result in each seat's info until it next acts; ``None`` when no info
        changed this step."""
        game = self.game
        if len(game.results) > self._rounds_reported:
            self._rounds_reported = len(game.results)
            info = {"round_points": list(game.results[-1].round_points), "scores": list(game.scores)}
            self._round_infos = [dict(info) for _ in self.possible_agents]
        elif not self._infos_changed:
            return None
        self._infos_changed = False
        return [dict(info) for info in self._round_infos]
