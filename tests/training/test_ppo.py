import json
from pathlib import Path

import numpy as np
import pytest
import torch
from fake_game import HighCardGame, high_card_factory

from domino_env.bots import make_bot
from domino_env.encoders.base import get_encoder
from domino_env.rules.line import LineConfig, LineGame
from domino_env_training.agent import PolicyAgent
from domino_env_training.checkpoints import CHECKPOINT_NAME, load_checkpoint
from domino_env_training.config import from_dict, load_config
from domino_env_training.evaluate import win_rate_vs_random
from domino_env_training.ppo import seeded_history, train

SMOKE = Path(__file__).resolve().parents[2] / "configs" / "smoke.yaml"


def test_tiny_run_learns_to_beat_random(tiny_config):
    result = train(tiny_config, make_game=high_card_factory, progress=False)
    evals = [h["eval_win_rate_vs_random"] for h in result.history if "eval_win_rate_vs_random" in h]
    assert len(evals) == 2  # every eval_interval=3 iterations of 6
    # An untrained greedy network scores about 0.66 here (random against random: 0.5).
    assert evals[-1] > 0.9
    files = {p.name for p in result.run_path.iterdir()}
    assert {"last.pt", "pool.json", "config.yaml", "learning_curve.png"} <= files
    assert any(name.startswith("events.out.tfevents") for name in files)
    pool = json.loads((result.run_path / "pool.json").read_text())
    assert [e["name"] for e in pool] == ["random", "step_4096", "step_6144"]  # max_snapshots=2 kept
    assert sum(e["games"] for e in pool) > 0


def test_resume_after_interruption_equals_an_uninterrupted_run(tiny_config, tmp_path):
    whole = train(tiny_config, make_game=high_card_factory, progress=False)

    config = from_dict({**tiny_config.to_dict(), "run_dir": str(tmp_path / "interrupted")})
    calls = 0

    def crashing_factory(num_envs: int, seed: int) -> HighCardGame:
        nonlocal calls
        calls += 1
        if calls == 6:  # probe, 3 rollouts, 1 evaluation, then the 4th rollout: killed mid-run
            raise KeyboardInterrupt
        return high_card_factory(num_envs, seed)

    with pytest.raises(KeyboardInterrupt):
        train(config, make_game=crashing_factory, progress=False)
    assert load_checkpoint(config.run_path / CHECKPOINT_NAME)["iteration"] == 2  # checkpoint_interval=2
    resumed = train(config, make_game=high_card_factory, progress=False, resume=True)

    assert seeded_history(resumed.history) == seeded_history(whole.history)
    # Wall time runs on across the interruption: the resumed records continue the checkpoint's clock.
    elapsed = [h["elapsed_s"] for h in resumed.history]
    assert elapsed == sorted(elapsed) and elapsed[0] > 0
    a = load_checkpoint(whole.run_path / CHECKPOINT_NAME)
    b = load_checkpoint(resumed.run_path / CHECKPOINT_NAME)
    assert a["global_step"] == b["global_step"] == tiny_config.total_steps
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    assert [e["win_rate"] for e in a["pool"]] == [e["win_rate"] for e in b["pool"]]


def test_checkpoint_is_an_agent_for_single_and_batched_observations(tiny_config):
    result = train(tiny_config, make_game=high_card_factory, progress=False)
    agent = PolicyAgent.from_checkpoint(result.run_path / CHECKPOINT_NAME)
    batch = HighCardGame(256, seed=9).reset()
    actions = agent.act(batch.obs, batch.mask)
    assert actions.shape == (256,) and batch.mask[np.arange(256), actions].all()
    single = agent.act(batch.obs[0], batch.mask[0].astype(np.int8))
    assert isinstance(single, int) and single == actions[0]
    # The loaded agent plays as well as the evaluation inside the run said.
    score = win_rate_vs_random(agent.model, high_card_factory, np.arange(2), 128, seed=5, device=agent.device)
    assert score > 0.9


@pytest.mark.parametrize("backend", ["vector", "torch", "fallback"])
def test_block_2p_end_to_end(tmp_path, backend):
    """The real engines (numpy, torch, and the single-game fallback) through the whole loop, briefly:
    the greedy opponent in the pool, the harness evaluation at the end, a checkpoint playing from seat
    views."""
    config = from_dict({
        "name": backend, "run_dir": str(tmp_path), "total_steps": 2 * 16 * 16, "eval_interval": 1,
        "eval_games": 16, "harness_every": 2, "harness_deals": 3,
        "game": {"backend": backend, "options": {"target_score": None}},
        "ppo": {"num_envs": 16, "num_steps": 16}, "network": {"hidden_sizes": [16]},
        "pool": {"scripted": ["random", "greedy"], "latest_prob": 0.0},
    })
    result = train(config, progress=False)
    assert result.global_step == 512
    assert [h["iteration"] for h in result.history if "eval_win_rate_vs_random" in h] == [1, 2]
    pool = json.loads((result.run_path / "pool.json").read_text())
    assert {e["name"]: e["games"] > 0 for e in pool} == {"random": True, "greedy": True}
    harness = result.history[-1]  # the last evaluation also ran the harness (3 deals x 2 seatings)
    logged = [harness[f"harness_win_rate_vs_greedy{s}"] for s in ("", "_low", "_high")]
    saved = json.loads((result.run_path / "eval" / "step_512_vs_greedy.json").read_text())
    assert logged == saved["summary"][0]["win_rate"]  # the learner's (mean, low, high), as evaluated
    shares = [harness[f"harness_crossplay_vs_greedy{s}"] for s in ("", "_low", "_high")]
    assert shares == saved["crossplay_ci"][0][1]  # the learner's share against greedy

    # Both backends observe through the compact encoder and say so in the checkpoint.
    checkpoint = result.run_path / CHECKPOINT_NAME
    agent = PolicyAgent.from_checkpoint(checkpoint)
    rules = LineConfig(target_score=None)
    assert agent.model.num_actions == 58
    assert agent.model.obs_dim == get_encoder("dominoes", "compact").size(rules)
    assert agent.observation_encoder == "compact"
    bot = make_bot("dominoes", "checkpoint", path=str(checkpoint))
    assert bot.encoder.name == "compact" and bot.encoder.game == "dominoes"
    game = LineGame(rules, np.random.default_rng(0))
    while not game.is_terminal:
        view = game.view(game.current_player)
        action = bot.act(view, np.random.default_rng(0))
        assert view.legal_mask >> action & 1
        game.apply(action)


def test_smoke_config_beats_random_in_block_2p(tmp_path):
    """configs/smoke.yaml (40,960 steps, 4-30 s on the 2-core machine) on the real engine: an
    untrained network scores 0.48-0.52 against random over 2,048 rounds; after training about 0.59."""
    config = load_config(SMOKE, [f"run_dir={tmp_path}", "eval_games=2048"])
    result = train(config, progress=False)
    assert result.history[-1]["eval_win_rate_vs_random"] > 0.56  # ~4 standard errors above 0.52


def test_a_harness_period_longer_than_the_run_is_reported(tmp_path):
    """harness_every counts evaluations, not iterations: a period past the run's length means the
    harness plays only once, at the end, and the trainer says so instead of leaving no curve."""
    config = from_dict({
        "run_dir": str(tmp_path), "total_steps": 2 * 16 * 16, "eval_interval": 1, "eval_games": 16,
        "harness_every": 3, "harness_deals": 1, "game": {"options": {"target_score": None}},
        "ppo": {"num_envs": 16, "num_steps": 16}, "network": {"hidden_sizes": [16]},
    })
    with pytest.warns(UserWarning, match="one harness evaluation every 3 iterations, more than the run's 2"):
        result = train(config, progress=False)
    assert [h["iteration"] for h in result.history if "harness_win_rate_vs_greedy" in h] == [2]


@pytest.mark.parametrize("num_steps", [4, 32])
def test_a_rollout_in_which_no_game_ends_is_reported(tmp_path, recwarn, num_steps):
    """Rollouts start fresh games: Block 2p rounds take 8 steps or more, so with 4 steps a rollout no
    round ends and no reward ever reaches the learner; the trainer says so (and not with 32)."""
    config = from_dict({
        "run_dir": str(tmp_path), "total_steps": 16 * num_steps, "eval_interval": 1, "eval_games": 16,
        "game": {"options": {"target_score": None}},
        "ppo": {"num_envs": 16, "num_steps": num_steps}, "network": {"hidden_sizes": [16]},
    })
    train(config, progress=False)
    reported = [w for w in recwarn if "no game ended in the first rollout" in str(w.message)]
    assert len(reported) == (1 if num_steps == 4 else 0)
