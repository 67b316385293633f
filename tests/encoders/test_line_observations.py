"""``LineObservations`` (what ``dominoes_v0`` observes through) against the reference path,
``DefaultLineEncoder.encode_with_mask(game.view(seat))``, bit for bit at every step."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino_env import dominoes_v0
from domino_env.encoders.base import get_encoder, mask_to_array
from domino_env.encoders.line import DefaultLineEncoder

OPTIONS = [
    {},  # Block 2p, the benchmark's game
    {"variant": "draw"},  # pagat: draws "any", a reserve of 2
    {"variant": "draw", "num_players": 3, "preset": "boardpan"},  # draws "when_stuck", no reserve
    {"num_players": 3, "episode": "match", "target_score": 30},
    {"num_players": 4, "teams": True, "episode": "match", "target_score": 40},
    {"variant": "draw", "num_players": 4, "teams": True, "preset": "boardpan"},
    {"variant": "draw", "num_players": 4, "max_pips": 9, "draw_reserve": 0},
    {"variant": "draw", "open_hands": True, "episode": "match", "target_score": 25},
    {"max_pips": 3, "hand_size": 3, "episode": "match", "target_score": 5},  # many blocked rounds
]


def assert_reference(env: dominoes_v0.raw_env, agent: str, observation: dict) -> None:
    """``observation`` (what the env returned for ``agent``) equals the reference encoding."""
    view = env.game.view(env.agent_name_mapping[agent])
    expected, expected_mask = get_encoder("dominoes", "default").encode_with_mask(view, env.num_actions)
    obs, mask = observation["observation"], observation["action_mask"]
    assert obs.dtype == expected.dtype and mask.dtype == expected_mask.dtype
    assert obs.tobytes() == expected.tobytes(), f"{agent}: observation differs from encode(view)"
    assert mask.tobytes() == expected_mask.tobytes(), f"{agent}: action mask differs"


def play_checked(options: dict, seed: int, games: int, look: float) -> None:
    """Random games through the PettingZoo loop; ``last()`` checked at every step, and each other
    live agent observed with probability ``look`` (so rows are patched over one move or many)."""
    env = dominoes_v0.raw_env(**options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(games):
        env.reset()
        for agent in env.agent_iter():
            for other in env.agents:
                if rng.random() < look:
                    assert_reference(env, other, env.observe(other))
            observation, _reward, termination, truncation, _info = env.last()
            assert_reference(env, agent, observation)
            if termination or truncation:
                env.step(None)
            else:
                legal = np.flatnonzero(observation["action_mask"])
                env.step(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("options", OPTIONS)
def test_every_observation_equals_the_reference_encoding(options: dict) -> None:
    play_checked(options, seed=11, games=40, look=0.3)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    options=st.sampled_from(OPTIONS),
    seed=st.integers(0, 2**32 - 1),
    look=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_observations_equal_the_reference_whatever_the_seed(options: dict, seed: int, look: float) -> None:
    play_checked(options, seed, games=3, look=look)


def test_moves_applied_to_the_engine_and_a_replaced_game_are_caught() -> None:
    """A row remembers its game and how far it got: moves made outside ``step`` and a game put in
    place of the env's are observed as they are, not as the row last saw them."""
    env = dominoes_v0.raw_env(variant="draw", num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        if env.game.is_terminal:
            env.reset()
        for agent in env.possible_agents:
            assert_reference(env, agent, env.observe(agent))
        if rng.random() < 0.2:
            env.game = env.game.clone()
        else:
            legal = env.game.legal_actions()
            env.game.apply(legal[rng.integers(len(legal))])


class HalvedEncoder(DefaultLineEncoder):
    """Another layout on the default's code: every entry halved."""

    def encode(self, view) -> np.ndarray:  # noqa: ANN001
        return super().encode(view) / np.float32(2)


def test_a_subclass_or_a_replaced_encoder_is_what_the_env_observes_with() -> None:
    """Only the default encoder itself is patched move by move; a subclass's ``encode`` is called,
    and an encoder put in place of ``env.encoder`` is used from the next observation on."""
    env = dominoes_v0.raw_env(variant="draw")
    env.reset(seed=4)
    default = env.last()[0]["observation"]
    env.encoder = HalvedEncoder()
    np.testing.assert_array_equal(env.last()[0]["observation"], default / np.float32(2))
    for _ in range(4):  # each seat observed again after moves
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        view = env.game.view(env.game.current_player)
        np.testing.assert_array_equal(env.last()[0]["observation"], HalvedEncoder().encode(view))


def test_observations_are_fresh_arrays() -> None:
    """PettingZoo users keep observations: a returned array is never changed by later steps, and
    changing it changes nothing the env returns later."""
    env = dominoes_v0.raw_env()
    env.reset(seed=2)
    first = env.last()[0]
    kept = {key: value.copy() for key, value in first.items()}
    first["observation"][:] = 7.0
    first["action_mask"][:] = 7
    again = env.last()[0]
    assert again["observation"].tobytes() == kept["observation"].tobytes()
    assert again["action_mask"].tobytes() == kept["action_mask"].tobytes()
    env.step(int(np.flatnonzero(again["action_mask"])[0]))
    env.last()
    assert again["observation"].tobytes() == kept["observation"].tobytes()
    assert again["observation"].flags.writeable and again["action_mask"].flags.writeable


def test_mask_to_array_is_the_bits_of_the_mask() -> None:
    rng = np.random.default_rng(0)
    for num_actions in (1, 8, 9, 58, 170):
        for _ in range(50):
            mask = int(rng.integers(1 << min(num_actions, 62))) << int(rng.integers(max(1, num_actions - 62)))
            mask &= (1 << num_actions) - 1
            array = mask_to_array(mask, num_actions)
            assert array.dtype == np.int8 and array.shape == (num_actions,) and array.flags.writeable
            assert [int(x) for x in array] == [mask >> a & 1 for a in range(num_actions)]
