"""Every registered game as a Ray RLlib ``MultiAgentEnv`` (optional extra ``rllib``; imports ``ray``).

Importing this module registers one RLlib environment name per record of ``domino_env.games``: the
record's PettingZoo id (``"domino_env/Dominoes-v0"``, ``"domino_env/Texas42-v0"``), so
``PPOConfig().environment("domino_env/Dominoes-v0", env_config={"variant": "draw"})`` works, and
``DominoMultiAgentEnv`` itself takes ``{"game": "texas42", ...}`` (or ``DominoMultiAgentEnv(options,
game="texas42")``, which leaves a ``"game"`` key in ``options`` to a rules option of that name, should
a game have one; through its registered name such a key is the rules option too). What RLlib sees:

- **The game's AEC environment underneath** (``record.raw_env``), so every option of ``dominoes_v0``
  and ``texas42_v0`` (rules, ``episode``, ``reward``, ``observation_encoder``, ``illegal_action``,
  ``illegal_penalty``) is an ``env_config`` key and means the same. ``env_config(game, **options)``
  checks the names and values first and names an unknown option with the known ones.
- **Turn-based**: an observation dict holds only the seat to act; when the episode ends it holds
  every seat's final observation (all-zero action mask) so each seat's last move gets its value.
- **Observations** ``{"observations": float32 encoder vector, "action_mask": float32 0/1}``: the
  keys and mask type of RLlib's ``ActionMaskingTorchRLModule``.
- **Rewards**: the acting seat's, plus every seat with a non-zero reward this step (a round or hand
  scored, or an illegal move's penalty), so a seat that did not act still gets its score. Partners
  receive their side's reward (the environments' ``zero_sum``, ``points``/``marks``, ``win_loss``).
- **Infos**: each observed seat's AEC info (``round_points``/``scores`` for line games,
  ``hand_marks``/``marks``/``points_taken``/``contract`` for 42, ``illegal_action``/``offender``).
- **Illegal moves** follow ``illegal_action``: ``"penalize"`` (the default here, as PettingZoo's
  ``env()``) ends the episode with ``-illegal_penalty`` to the offender, which is what RLlib's
  environment pre-check meets when it steps an unmasked ``action_space.sample()``; ``"raise"``
  raises ``IllegalActionError`` (then the pre-check fails: disable it or keep ``"penalize"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.tune.registry import register_env

from domino_env.games import available_games, get_game

DEFAULT_ILLEGAL_ACTION = "penalize"
ENV_NAMES = {name: get_game(name).env_id for name in available_games()}
"""game name -> registered RLlib environment name (the PettingZoo id)"""


def _build_aec(game: str, options: Mapping[str, Any]) -> Any:
    """The game's AEC env with ``options`` (``illegal_action`` defaults to ``"penalize"``); an unknown
    game or option raises ``ValueError`` naming it and the known ones, a refused value the
    environment's own ``ValueError``."""
    return get_game(game).checked_raw_env(**{"illegal_action": DEFAULT_ILLEGAL_ACTION, **options})


def env_config(game: str, /, **options: Any) -> dict[str, Any]:
    """A checked ``env_config`` for ``DominoMultiAgentEnv``: an unknown game or option, or a value the
    environment refuses, raises ``ValueError`` naming it, before any Ray worker starts. Registers the
    environment names again (``register_envs``), so they are there whatever Ray did since import.
    For a game with a rules option called ``game`` (none at present) the config holds the options
    only: use it with the game's registered name (``ENV_NAMES``)."""
    _build_aec(game, options)
    register_envs()
    return dict(options) if "game" in get_game(game).env_options() else {"game": game, **options}


class DominoMultiAgentEnv(MultiAgentEnv):
    """One game of the registry as a turn-based RLlib multi-agent env (module docstring)."""

    def __init__(self, config: Mapping[str, Any] | None = None, *, game: str | None = None):
        """``config``'s keys are the game's options, with the registry's game name under ``"game"``
        unless ``game`` names it (then a ``"game"`` key is the rules option of that name, should
        the game have one)."""
        super().__init__()
        options = dict(config or {})  # RLlib passes an EnvContext: its keys are the options
        if game is None:
            game = options.pop("game", "dominoes")
        self.game_name = game
        self.aec = _build_aec(game, options)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        aec_space = self.aec.observation_space(self.possible_agents[0])
        space = gymnasium.spaces.Dict(
            {
                "observations": aec_space["observation"],
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, (self.aec.num_actions,), dtype=np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, self.aec.action_space(self.possible_agents[0])
        )

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new episode (``options`` as the AEC env's: ``{"deal": ...}``)."""
        self.aec.reset(seed=seed, options=options)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: dict(self.aec.infos[agent])}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the action of the seat to act; any other seat's action is refused."""
        agent = self.aec.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"only {agent} is to act, got actions for {sorted(action_dict)}")
        self.aec.step(action_dict[agent])
        rewards = {a: float(r) for a, r in self.aec.rewards.items() if r or a == agent}
        if all(self.aec.terminations.values()):
            observed = self.possible_agents
            rewards = {a: float(self.aec.rewards[a]) for a in observed}
            done = True
        else:
            observed = [self.aec.agent_selection]
            done = False
        observations = {a: self._observe(a) for a in observed}
        infos = {a: dict(self.aec.infos[a]) for a in observed}
        terminateds = {"__all__": done, **dict.fromkeys(observed, done)}
        return observations, rewards, terminateds, {"__all__": False}, infos

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        observed = self.aec.observe(agent)
        return {
            "observations": observed["observation"],
            "action_mask": observed["action_mask"].astype(np.float32),
        }


def _creator(game: str) -> Any:
    def create(config: Mapping[str, Any]) -> DominoMultiAgentEnv:
        options = dict(config)
        if "game" in get_game(game).env_options():  # a rules option of that name
            return DominoMultiAgentEnv(options, game=game)
        if options.pop("game", game) != game:
            raise ValueError(
                f"{ENV_NAMES[game]} plays {game!r}, but env_config names game {config['game']!r}"
            )
        return DominoMultiAgentEnv(options, game=game)

    return create


def register_envs() -> None:
    """Register every game's RLlib environment name (``ENV_NAMES``). Done on import; ``ray.shutdown()``
    empties Tune's registry, so call it again before building an algorithm in a later Ray session
    (``env_config`` does)."""
    for game, name in ENV_NAMES.items():
        register_env(name, _creator(game))


register_envs()
