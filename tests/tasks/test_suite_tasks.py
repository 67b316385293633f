"""The task registry is consistent with the game registry, the environments' ids and the trainer."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest

import domino_env.wrappers  # noqa: F401  (registers the Gymnasium ids)
from domino_env.evaluation import AgentSpec
from domino_env.evaluation.ladder import score_agent
from domino_env.evaluation.tasks import EVALUATION_SEEDS, TASKS, baseline_path, get_task, task_of_config
from domino_env.games import get_game

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
REQUIRED = ("Block2p", "Draw2p", "Draw3pBoardpan", "BlockTeams4p", "DrawTeams4pBoardpanMatch", "Texas42",
            "Texas42N42PA", "Texas42ThreePlayer", "Texas88", "AllFives2p", "AllFivesTeams4p",
            "FivesAndThrees2p", "MexicanTrain4p", "MexicanTrain4pMatch", "MexicanTrain6p")


def test_the_required_tasks_exist_with_distinct_reserved_seeds() -> None:
    assert set(REQUIRED) <= set(TASKS)
    assert len({task.seed for task in TASKS.values()}) == len(TASKS)
    for task in TASKS.values():
        assert task.seed in EVALUATION_SEEDS and task.num_deals >= 1
        assert task_of_config(task.config) is task
        assert task.setup.match == task.match and "episode" not in task.options
        assert task.partnership == (task.config.num_players == 4 and task.config.num_sides == 2)
        assert get_task(task.name) is task
    with pytest.raises(ValueError, match="unknown benchmark task 'Nope'.*Block2p"):
        get_task("Nope")
    with pytest.raises(ValueError, match="no benchmark task plays these rules"):
        task_of_config(get_game("dominoes").config(variant="block", max_pips=9))


@pytest.mark.parametrize("name", REQUIRED)
def test_environment_ids_play_the_task_rules(name: str) -> None:
    task = get_task(name)
    aec = pettingzoo.make("aec", task.pettingzoo_id)
    aec.reset(seed=0)
    assert aec.unwrapped.config == task.config
    rng = np.random.default_rng(0)
    for _ in aec.agent_iter(max_iter=20):  # a few random legal moves
        observation, _, terminated, truncated, _ = aec.last()
        done = terminated or truncated
        aec.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    single = gymnasium.make(task.gymnasium_id)
    single.reset(seed=0)
    assert single.unwrapped.aec.config == task.config
    assert len(single.unwrapped.learner_seats) == (2 if task.partnership else 1)


def test_training_never_uses_the_evaluation_seeds() -> None:
    """Configs refuse the reserved range; every shipped training config seeds below it."""
    from domino_env_training.config import ConfigError, load_config

    for path in sorted(CONFIGS.glob("*.yaml")):
        assert load_config(path).seed < EVALUATION_SEEDS.start, path
    with pytest.raises(ConfigError, match="reserved for benchmark evaluation"):
        load_config(CONFIGS / "smoke.yaml", [f"seed={get_task('Block2p').seed}"])
    with pytest.raises(ConfigError, match="reserved for benchmark evaluation"):
        load_config(CONFIGS / "smoke.yaml", [f"seed={EVALUATION_SEEDS.start}"])


def test_each_task_has_a_baseline_config_of_its_rules() -> None:
    from domino_env_training.config import load_config

    for task in TASKS.values():
        config = load_config(CONFIGS / f"baseline_{task.name}.yaml")
        assert config.game.name == task.game
        assert config.game.rules == get_game(task.game).config(**task.env_kwargs)


def test_ladder_agents_are_the_baselines() -> None:
    for task in TASKS.values():
        labels = [AgentSpec.parse(spec).label for spec in task.baselines()]
        assert labels[:2] == ["random", get_game(task.game).default_bot]
        assert len(labels) == len(set(labels)) and sum("search" in label for label in labels) == (
            0 if task.search_budgets is None else 2)
        assert ("trained" in labels) == baseline_path(task.name).is_file()  # a task may ship none


@pytest.mark.parametrize("name", REQUIRED)
def test_every_task_scores_its_default_bot_on_one_deal(name: str) -> None:
    """What ``domino-ladder --task <name> --agent <default bot> --deals 1`` runs: every lineup of random
    and the default bot on the task's first deal."""
    task = get_task(name)
    row = score_agent(task, AgentSpec.parse(get_game(task.game).default_bot), num_deals=1)
    assert row["task"] == name and row["seed"] == task.seed and not row["full_protocol"]
    assert list(row["versus"]) == ["random"]
