"""``env.state()`` / ``env.state_space``: full information for centralized critics, PettingZoo style."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from domino_env.encoders.base import get_encoder
from domino_env.encoders.state import state_slots
from domino_env.envs.base import DominoAECEnv
from domino_env.envs.dominoes_v0 import raw_env as line_env
from domino_env.envs.texas42_v0 import raw_env as texas42_env


def bits(entries: np.ndarray) -> int:
    return sum(1 << int(t) for t in np.flatnonzero(entries))


@pytest.mark.parametrize(
    ("game", "make"),
    [("dominoes", line_env), ("dominoes", lambda: line_env(variant="draw", num_players=3)),
     ("texas42", lambda: texas42_env(nello="high", observation_encoder="compact"))],
)
def test_state_holds_every_hand_the_hidden_tiles_and_the_public_record(
    game: str, make: Callable[[], DominoAECEnv]
) -> None:
    env = make()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(6):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    state = env.state()
    assert env.state_space is env.state_space and env.state_space.contains(state)
    part = {s.name: state[s.start : s.start + s.length] for s in state_slots(env.config)}
    hands = part["hands"].reshape(len(env.possible_agents), -1)
    assert [bits(h) for h in hands] == list(env.game.hands)
    if game == "dominoes":
        assert bits(part["hidden"]) == sum(1 << t for t in env.game.stock) | env.game.out_of_play
    assert np.array_equal(part["public"], get_encoder(game, "default").encode(env.game.view(0)))
