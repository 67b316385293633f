"""The shipped trained baselines load (weights only), play their task and record how they were made."""

from __future__ import annotations

import json

import pytest

from domino_env.bots import make_bot
from domino_env.evaluation import AgentSpec, GameSetup, evaluate, lineups
from domino_env.evaluation.tasks import TASKS, baseline_path, get_task

SHIPPED = [name for name in TASKS if baseline_path(name).is_file()]


def test_baselines_are_shipped_small_with_their_record() -> None:
    assert SHIPPED, "no trained baseline is shipped"
    for name in SHIPPED:
        path = baseline_path(name)
        # float16 weights: the largest, Texas88's 512-256 actor and critic over its six-seat, two-copy
        # observation, is about 2.3 MB (Texas42's 512-256 about 1.3 MB)
        assert path.stat().st_size < 2_500_000, (name, path.stat().st_size)
        record = json.loads(path.with_suffix(".json").read_text())
        assert record["task"] == name and record["config"]["game"]["name"] == TASKS[name].game
        assert record["evaluation"]["agent"]["label"] == "trained"
        assert set(record["evaluation"]["versus"]) == set(TASKS[name].opponents)


@pytest.mark.parametrize("name", SHIPPED)
def test_trained_plays_its_task_chosen_by_the_rules(name: str) -> None:
    task = get_task(name)
    # Legal play through the harness (it raises on an illegal move); "trained" finds the task itself.
    result = evaluate(task.setup, [AgentSpec("trained", "trained"), AgentSpec("random", "random")], 1,
                      seed=0)
    assert len(result.records) == len(lineups(2, task.setup.num_sides))


def test_trained_refuses_what_it_cannot_play() -> None:
    with pytest.raises(ValueError, match="is a texas42 task, not 'dominoes'"):
        make_bot("dominoes", "trained", task="Texas42")
    agent = make_bot("dominoes", "trained")
    other_rules = GameSetup("dominoes", {"variant": "block", "max_pips": 9})
    with pytest.raises(ValueError, match="no benchmark task plays these rules"):
        evaluate(other_rules, [AgentSpec("trained", "trained"), AgentSpec("random", "random")], 1)
    assert agent.agent is None  # nothing loaded before the first view


@pytest.mark.parametrize("name", SHIPPED)
def test_numpy_actor_picks_the_torch_policy_actions(name: str) -> None:
    """The checkpoint bot's numpy forward passes (its speed path) play what the torch actor plays
    and value what the torch critic values."""
    import numpy as np
    import torch

    task = get_task(name)
    bot = make_bot(task.game, "checkpoint", path=str(baseline_path(name)))
    rng = np.random.default_rng(0)
    compared = 0
    while compared < 60:  # random games (a match is long: one may do)
        engine = task.setup.new_engine(rng)
        while not engine.is_terminal and compared < 60:
            view = engine.view(engine.current_player)
            obs, mask = bot.encoder.encode_with_mask(view, bot.policy.num_actions)
            assert bot.act(view, rng) == bot.policy.act(obs, mask)
            if bot.values_refusal() is None:
                scaled = bot.policy.model.get_value(torch.as_tensor(obs[None])).item()
                assert bot.value(view) == pytest.approx(scaled / bot.policy.config.ppo.reward_scale, abs=1e-3)
            compared += 1
            legal = np.flatnonzero(mask)
            engine.apply(int(legal[rng.integers(len(legal))]))
