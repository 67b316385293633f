"""A checkpoint of ``scripts/train_rllib.py`` as a bot of its game: ``make_bot(game, "rllib", path=...)``.

``domino_env.bots`` finds it through the ``domino_env.bots`` entry point (pyproject.toml), so this
module is imported on every bot lookup and must not import Ray: the agent imports it when built,
and without it says which extra to install. The agent encodes its seat's view with the run's
``observation_encoder`` and plays the most probable legal action of the checkpoint's ``main``
module (``greedy=False`` samples from its masked distribution instead).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from domino_env.bots.base import ANY_GAME, register_bot
from domino_env.encoders.base import get_encoder

METADATA_NAME = "domino_env_rllib.json"
"""what the bot needs besides RLlib's checkpoint: the game, its environment options, the module id"""


class RLlibAgent:
    """Plays a trained RLlib module on views of ``game`` (module docstring)."""

    def __init__(self, game: str, path: str | Path, greedy: bool = True):
        try:
            import torch
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError as err:
            raise ImportError(
                f"the rllib bot needs Ray RLlib: pip install 'domino-env[rllib]' ({err})"
            ) from None
        checkpoint = Path(path)
        metadata_path = checkpoint / METADATA_NAME
        if not metadata_path.is_file():
            raise ValueError(
                f"{checkpoint} is not a checkpoint of scripts/train_rllib.py (no {METADATA_NAME})"
            )
        metadata = json.loads(metadata_path.read_text())
        if metadata["game"] != game:
            raise ValueError(f"checkpoint {checkpoint} was trained on {metadata['game']!r}, not {game!r}")
        module_path = checkpoint / "learner_group" / "learner" / "rl_module" / metadata["module"]
        self.module = RLModule.from_checkpoint(module_path)
        self.module.eval()
        self.encoder = get_encoder(game, metadata["options"].get("observation_encoder", "default"))
        space = self.module.observation_space["observations"]
        self.obs_shape = space.shape
        self.num_actions = int(self.module.action_space.n)
        self.greedy = greedy
        self._torch = torch

    def act(self, view: Any, rng: np.random.Generator) -> int:
        obs, mask = self.encoder.encode_with_mask(view, self.num_actions)
        if obs.shape != self.obs_shape:
            raise ValueError(
                f"the checkpoint expects observations of shape {self.obs_shape}, this game's "
                f"are {obs.shape}: evaluate it with the options it was trained on"
            )
        torch = self._torch
        batch = {
            "obs": {
                "observations": torch.from_numpy(obs)[None],
                "action_mask": torch.from_numpy(mask.astype(np.float32))[None],
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        legal = np.flatnonzero(mask)
        if self.greedy:
            return int(legal[np.argmax(logits[legal])])
        weights = np.exp(logits[legal] - logits[legal].max())
        return int(rng.choice(legal, p=weights / weights.sum()))


register_bot(ANY_GAME, "rllib")(RLlibAgent)
