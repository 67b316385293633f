"""Rendering: PettingZoo's ``render_test`` on every game, ``rgb_array`` frames (shape, dtype, one shape
per episode, nothing hidden drawn), human mode, the single-agent wrapper and Stable-Baselines3's
``make_vec_env`` with its defaults."""

from __future__ import annotations

import functools

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import render_test

import domino_env.wrappers  # noqa: F401  (registers the domino_env/... Gymnasium ids)
from domino_env.games import available_games, get_game
from domino_env.search.beliefs import determinize
from domino_env.wrappers import SingleAgentEnv

EXAMPLES = [(name, options) for name in available_games() for options in get_game(name).examples]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(EXAMPLES)]


def _random_episode(env, seed: int):
    """Play ``env`` (an AEC env) to its end with random legal moves, yielding after every step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        yield agent


@pytest.mark.parametrize(("name", "options"), EXAMPLES, ids=IDS)
def test_pettingzoo_render_test_passes(name: str, options: dict) -> None:
    render_test(functools.partial(get_game(name).env, **options))


@pytest.mark.parametrize(("name", "options"), EXAMPLES, ids=IDS)
def test_rgb_frames_have_one_shape_per_episode_and_change_with_play(name: str, options: dict) -> None:
    env = get_game(name).env(render_mode="rgb_array", **options)
    frames = [env.render() for _ in _random_episode(env, seed=5)]
    first = frames[0]
    assert first.ndim == 3 and first.shape[2] == 3 and first.dtype == np.uint8
    assert all(f.shape == first.shape and f.dtype == np.uint8 for f in frames)
    assert not np.array_equal(first, frames[-1])
    env.reset(seed=6)  # the next episode, the same shape
    assert env.render().shape == first.shape


@pytest.mark.parametrize(("name", "options"), EXAMPLES, ids=IDS)
def test_a_frame_shows_nothing_its_seat_cannot_see(name: str, options: dict) -> None:
    """The frame of a seat is the same after every tile it cannot see is dealt again, and differs
    between seats (so it does show the seat's own hand)."""
    game = get_game(name)
    env = game.raw_env(**options)
    rng = np.random.default_rng(0)
    checked = 0
    for step, _ in enumerate(_random_episode(env, seed=11)):
        if step not in (2, 5):  # bidding and play (42); two positions: redealing is slow in Texas 88
            continue
        acting = env.game.current_player
        for seat in (acting, (acting + 1) % len(env.possible_agents)):
            view = env.game.view(seat)
            frame = game.draw_view(view)
            redealt = determinize(view, rng)
            assert np.array_equal(frame, game.draw_view(redealt.view(seat))), (step, seat)
        assert not np.array_equal(frame, game.draw_view(env.game.view(acting)))
        checked += 1
    assert checked == 2


def test_open_hands_frames_show_every_hand() -> None:
    """With ``open_hands`` a redeal of the other hands changes the frame (they are drawn face up)."""
    game = get_game("texas42")
    env = game.raw_env(open_hands=True)
    env.reset(seed=2)
    view = env.game.view(0)
    other = determinize(env.game.view(0)._replace(hands=None), np.random.default_rng(1))
    assert not np.array_equal(game.draw_view(view), game.draw_view(other.view(0)))


@pytest.mark.parametrize("name", available_games())
def test_human_mode_prints_what_the_seat_to_act_may_see_and_returns_none(name: str, capsys) -> None:
    env = get_game(name).raw_env(render_mode="human")
    env.reset(seed=3)
    capsys.readouterr()
    assert env.render() is None
    seat = env.game.current_player
    assert capsys.readouterr().out == env.game.render_text(seat) + "\n"
    assert env.game.render_text(seat) != env.game.render_text()  # other hands are hidden


def test_render_frame_refuses_a_bad_seat_and_a_missing_game() -> None:
    env = get_game("dominoes").raw_env(render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="reset"):
        env.render_frame()
    env.reset(seed=0)
    for bad in (2, -1, "0", 1.0, True, [0]):
        with pytest.raises(ValueError, match="seat must be"):
            env.render_frame(bad)
    assert np.array_equal(env.render_frame(np.int64(1)), env.render_frame(1))


def test_render_modes_are_the_same_in_every_env() -> None:
    modes = ["human", "ansi", "rgb_array"]
    assert SingleAgentEnv.metadata["render_modes"] == modes
    for name in available_games():
        assert get_game(name).raw_env().metadata["render_modes"] == modes


def test_single_agent_frames_are_the_learners_view() -> None:
    env = gymnasium.make("domino_env/Texas42-v0", render_mode="rgb_array", seat=1)
    obs, _ = env.reset(seed=4)
    inner = env.unwrapped
    rng = np.random.default_rng(4)
    shapes = set()
    done = False
    while not done:
        frame = env.render()
        shapes.add(frame.shape)
        seat = inner.aec.game.current_player
        if seat is not None:
            assert np.array_equal(frame, get_game("texas42").draw_view(inner.aec.game.view(seat)))
            assert seat in (1, 3)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, done, _, _ = env.step(action)
    shapes.add(env.render().shape)
    assert len(shapes) == 1


def test_stable_baselines3_make_vec_env_works_with_defaults() -> None:
    """SB3 asks for ``render_mode="rgb_array"`` (falling back only on a TypeError)."""
    env_util = pytest.importorskip("stable_baselines3.common.env_util")
    vec = env_util.make_vec_env("domino_env/Texas42-v0", n_envs=2, seed=0)
    try:
        obs = vec.reset()
        rng = np.random.default_rng(0)
        for _ in range(10):
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in obs["action_mask"]])
            obs, _, _, _ = vec.step(actions)
        images = vec.get_images()
        assert len(images) == 2 and images[0].shape == images[1].shape and images[0].dtype == np.uint8
    finally:
        vec.close()
