"""SingleAgentEnv: Gymnasium's checker, masks, rewards over opponents' moves, seeding, MaskablePPO."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import domino_env.wrappers  # noqa: F401  (registers the ids)
from domino_env.wrappers import ENV_IDS, SingleAgentEnv


def lowest_legal(view, rng):
    """A deterministic opponent: the lowest legal action id."""
    return (view.legal_mask & -view.legal_mask).bit_length() - 1


@pytest.mark.parametrize("env_id", [i for i in ENV_IDS if i != "domino_env/SingleAgent-v0"])
@pytest.mark.parametrize("flatten", [False, True])
def test_check_env_passes_for_every_registered_id(env_id, flatten):
    env = gymnasium.make(env_id, flatten=flatten)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure here
        check_env(env.unwrapped)
    assert isinstance(env.unwrapped, gymnasium.Env)


def test_generic_id_takes_any_options():
    env = gymnasium.make(
        "domino_env/SingleAgent-v0", game="dominoes", variant="draw", num_players=4, preset="boardpan",
        seat=2, opponents=["random", lowest_legal, "random"],
    )
    check_env(env.unwrapped)
    assert env.unwrapped.aec.config.draw_policy == "when_stuck"


@pytest.mark.parametrize(
    "env_id", ["domino_env/Draw3p-v0", "domino_env/Texas42-v0", "domino_env/BlockTeams4p-v0"]
)
def test_action_masks_are_the_legal_moves_of_a_learner_seat(env_id):
    env = gymnasium.make(env_id, flatten=True).unwrapped
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        game = env.aec.game
        assert game.current_player in env.learner_seats
        mask = env.action_masks()
        assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
        assert np.flatnonzero(mask).tolist() == game.legal_actions()
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
        if done:
            assert not env.action_masks().any()
            env.reset()


def test_reward_arrives_on_the_opponents_winning_move():
    # Seat 0 (learner) leads 6-6; seat 1 answers 6-1, its only tile, and goes out (pagat):
    # seat 1 scores 10 (seat 0's 5-5) - 0, so the learner's zero-sum reward is -10.
    env = SingleAgentEnv("dominoes", opponents=lowest_legal)
    deal = {"hands": [["6-6", "5-5"], ["6-1"]], "leader": 0}
    env.reset(seed=0, options={"deal": deal})
    play_66 = env.aec.game.action_from_text("play 6-6 left")
    obs, reward, terminated, truncated, info = env.step(play_66)
    assert (reward, terminated, truncated) == (-10.0, True, False)
    assert info["round_points"] == [0, 10]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(play_66)


def test_team_learner_plays_both_partners_and_gets_the_team_reward():
    # Block 4p teams: seats 0 and 2 learn. Everyone holds one tile; seat 0 leads 6-6, seat 1
    # passes (holds 0-0), seat 2 plays 6-5 and goes out: team 0 scores 0 + 4 (1-3) ... pagat:
    # opponents' pips 0 + 4 = 4, minus the winner's own 0 -> +4 to the team, on seat 2's move.
    env = SingleAgentEnv("dominoes", num_players=4, teams=True, team=True, opponents=lowest_legal)
    deal = {"hands": [["6-6", "2-2"], ["0-0"], ["6-5"], ["1-3"]], "leader": 0}
    env.reset(seed=0, options={"deal": deal})
    game = env.aec.game
    _, reward, done, _, _ = env.step(game.action_from_text("play 6-6 left"))
    assert (reward, done, game.current_player) == (0.0, False, 2)
    _, reward, done, _, _ = env.step(game.action_from_text("play 6-5 right"))
    assert (reward, done) == (4.0, True)


def test_an_illegal_action_ends_the_episode_with_the_penalty():
    env = SingleAgentEnv("dominoes", illegal_penalty=2.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    obs, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"], info["offender"]) == (-2.0, True, True, 0)
    assert not env.action_masks().any() and not obs["action_mask"].any()


def test_seeded_runs_replay_exactly():
    def run(seed):
        env = gymnasium.make("domino_env/Draw3p-v0", flatten=True)
        obs, _ = env.reset(seed=seed)
        trace, rng = [obs], np.random.default_rng(1)
        for _ in range(200):
            a = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
            obs, reward, done, _, _ = env.step(a)
            trace += [obs, reward]
            if done:
                trace.append(env.reset()[0])
        return trace

    first, again, other = run(5), run(5), run(6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=False))


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="team=True needs a 4-player"):
        SingleAgentEnv("dominoes", team=True)
    with pytest.raises(ValueError, match="one agent per seat"):
        SingleAgentEnv("dominoes", num_players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown game .chess.; known games"):
        SingleAgentEnv("chess")


def test_maskable_ppo_trains_end_to_end_on_block_2p():
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)
    env = gymnasium.make("domino_env/Block2p-v0", flatten=True)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0,
                                    device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]
