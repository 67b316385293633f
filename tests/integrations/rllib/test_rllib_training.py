"""Self-play on RLlib in a local Ray: the league's mapping and snapshots, a Texas 42 (teams) run whose
checkpoint plays as the ``rllib`` bot in the evaluation harness. Needs the ``rllib`` extra."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

ray = pytest.importorskip("ray")

import torch  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: E402

from domino_env.bots import make_bot  # noqa: E402
from domino_env.evaluation import AgentSpec, GameSetup, evaluate  # noqa: E402
from domino_env_training.rllib.bot import METADATA_NAME  # noqa: E402
from domino_env_training.rllib.config import load_config  # noqa: E402
from domino_env_training.rllib.selfplay import MAIN, LeagueMapping, train  # noqa: E402


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, object_store_memory=80 * 1024 * 1024)
    try:
        yield
    finally:
        ray.shutdown()


def test_league_mapping_keeps_partners_together_and_mixes_snapshots() -> None:
    four_seats_two_teams = (0, 1, 0, 1)
    league = LeagueMapping(four_seats_two_teams, ("snapshot_0", "snapshot_1"), latest_prob=0.0, seed=1)
    seen = set()
    for episode in range(200):
        modules = [league(f"player_{seat}", SimpleNamespace(id_=f"episode-{episode}")) for seat in range(4)]
        assert modules[0] == modules[2] and modules[1] == modules[3] and modules.count(MAIN) == 2
        seen.add(tuple(modules))
    assert len(seen) == 4  # main on either team, against either snapshot
    everyone_main = LeagueMapping(four_seats_two_teams, ("snapshot_0",), latest_prob=1.0, seed=1)
    assert {everyone_main(f"player_{s}", SimpleNamespace(id_="e")) for s in range(4)} == {MAIN}


def _weights(checkpoint: Path, module: str) -> dict[str, torch.Tensor]:
    return RLModule.from_checkpoint(
        checkpoint / "learner_group" / "learner" / "rl_module" / module
    ).state_dict()


def test_texas42_run_refreshes_snapshots_and_its_checkpoint_plays_as_a_bot(
    local_ray: None, tmp_path: Path
) -> None:
    overrides = [
        f"run_dir={tmp_path}",
        "game.name=texas42",
        "game.options={}",
        "total_steps=200",
        "num_env_runners=0",
        "num_envs_per_env_runner=2",
        "ppo.train_batch_size=200",
        "ppo.minibatch_size=100",
        "ppo.num_epochs=1",
        "network.hidden_sizes=[32]",
        "pool.snapshot_interval=1",
        "pool.max_snapshots=2",
        "harness_deals=0",
    ]
    result = train(load_config(None, overrides), progress=False)
    assert result.iterations == 1 and result.env_steps >= 200 and result.env_runner_nodes == []
    checkpoint = result.checkpoint
    assert json.loads((checkpoint / METADATA_NAME).read_text())["game"] == "texas42"
    assert (result.run_path / "progress.jsonl").read_text().count("\n") == 1

    # Iteration 1 copied the trained main into snapshot_0; snapshot_1 is still the untrained policy.
    main, first, second = (_weights(checkpoint, m) for m in (MAIN, "snapshot_0", "snapshot_1"))
    assert all(torch.equal(main[k], first[k]) for k in main)
    assert not all(torch.equal(main[k], second[k]) for k in main)

    agents = [AgentSpec("rllib", "rllib", {"path": str(checkpoint)}), AgentSpec("random", "random")]
    # The harness's engine raises on any illegal move, so finishing the deals is the check.
    evaluation = evaluate(GameSetup("texas42"), agents, 4, seed=0)
    assert evaluation.summary[0]["groups"] == 4
    with pytest.raises(ValueError, match="trained on 'texas42', not 'dominoes'"):
        make_bot("dominoes", "rllib", path=str(checkpoint))
