from pathlib import Path

import pytest

from domino_env_training.config import Config, ConfigError, checkpoint_path, from_dict, load_config

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))  # RLlib's: configs/rllib


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_is_valid(path):
    assert isinstance(load_config(path), Config)


GPU_CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs" / "gpu").glob("*.yaml"))


@pytest.mark.parametrize("path", GPU_CONFIGS, ids=lambda p: p.name)
def test_gpu_configs_are_valid_and_ask_for_cuda(path):
    """Checked without ``load_config``'s machine check, which refuses ``device: cuda`` on a CPU; each
    keeps its games on the GPU (the torch engine: ``backend`` torch, or auto on CUDA) in large batches."""
    import yaml

    config = from_dict(yaml.safe_load(path.read_text()))
    assert config.device == "cuda"
    assert config.game.backend in ("torch", "auto") and config.game.torch_class() is not None
    assert config.ppo.num_envs >= 4096


def test_shipped_configs_cover_the_issue():
    assert {p.stem for p in CONFIGS} >= {"block_2p", "draw_3p", "block_4p_teams", "texas42", "smoke"}


def test_overrides_reach_nested_fields_and_read_values_as_yaml(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("ppo: {lr: 1.0e-3}\ngame: {options: {variant: block}}\n")
    config = load_config(path, ["ppo.lr=3e-4", "network.hidden_sizes=[64, 32]",
                                "game.options.num_players=3", "ppo.anneal_lr=false"])
    assert config.ppo.lr == 3e-4  # "3e-4" is a string to PyYAML; float fields accept it
    assert config.network.hidden_sizes == [64, 32]
    assert config.game.options == {"variant": "block", "num_players": 3}
    assert config.ppo.anneal_lr is False


def test_round_trip_through_a_plain_dict():
    config = load_config(CONFIGS[0])
    assert from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"ppo": {"lrr": 1e-3}}, r"unknown key 'ppo.lrr' \(did you mean ppo.lr\?\)"),
        ({"bogus": 1}, "unknown key 'bogus'"),
        ({"ppo": {"num_envs": 1.5}}, "ppo.num_envs: expected int, got float"),
        ({"ppo": {"num_envs": True}}, "ppo.num_envs: expected int, got bool"),
        ({"ppo": {"lr": "fast"}}, "ppo.lr: expected float, got str"),
        ({"ppo": {"lr": 0}}, r"ppo.lr: must be > 0.0"),
        ({"ppo": {"gamma": 1.5}}, r"ppo.gamma: must be <= 1.0"),
        ({"ppo": {"num_envs": 0}}, r"ppo.num_envs: must be >= 1"),
        ({"device": "tpu"}, r"device: must be one of \['auto', 'cpu', 'cuda'\]"),
        ({"game": {"name": "chess"}}, "game.name: must be one of"),
        ({"ppo": 3}, "ppo: expected a mapping"),
        ({"network": {"hidden_sizes": [64, 0]}}, "network.hidden_sizes: expected a non-empty"),
        ({"pool": {"scripted": ["search"]}}, "pool.scripted: unknown opponent 'search' for dominoes"),
        ({"game": {"name": "texas42"}, "pool": {"scripted": ["greedy"]}},
         "pool.scripted: unknown opponent 'greedy' for texas42"),
        ({"harness_opponents": ["heuristic"]}, "harness_opponents: unknown bot 'heuristic' for dominoes"),
        ({"pool": {"scripted": [], "max_snapshots": 0}}, "pool: no opponents"),
        ({"pool": {"frozen": ["nope.pt"]}}, "pool.frozen: 'nope.pt' is neither a checkpoint file"),
        ({"network": {"init_from": "Block9p"}}, "network.init_from: 'Block9p' is neither"),
        ({"imitation": {"teacher": "heuristic"}},
         "imitation.teacher: unknown teacher 'heuristic' for dominoes"),
        ({"imitation": {"epochs": 0}}, "imitation.epochs: must be >= 1"),
        ({"total_steps": 0}, "total_steps: 0 trains only the imitation stage, and imitation.teacher is"),
        ({"total_steps": -1}, "total_steps: must be >= 0"),
    ],
)
def test_invalid_configs_fail_with_a_message_naming_the_field(data, message):
    with pytest.raises(ConfigError, match=message):
        from_dict(data)


def test_malformed_override_is_refused():
    with pytest.raises(ConfigError, match="expected section.field=value"):
        load_config(None, ["ppo.lr"])


@pytest.mark.parametrize("options", [{"preset": "texas88"}, {"num_players": 3}], ids=["texas88", "three"])
def test_texas42_variants_pick_a_backend_that_plays_them(options):
    """The numpy batched engine plays three-player 42 and Texas 88; the torch one four players only."""
    from domino_env.vector.texas42 import VectorTexas42Game

    variant = from_dict({"game": {"name": "texas42", "options": options, "backend": "vector"}})
    assert variant.game.vector_class() is VectorTexas42Game and variant.game.torch_class() is None
    with pytest.raises(ConfigError, match="no torch batched engine .* four players only"):
        from_dict({"game": {"name": "texas42", "options": options, "backend": "torch"}})


def test_a_starting_policy_under_the_shipped_configs_is_found_from_any_folder(tmp_path, monkeypatch):
    """``network.init_from: init/<file>.pt`` names a policy shipped beside the configs (the Draw 3p
    fine-tune starts from one), so the config trains from a wheel or another folder too."""
    monkeypatch.chdir(tmp_path)
    config = load_config("draw_3p_boardpan_finetune")
    path = checkpoint_path(config.network.init_from, "network.init_from")
    assert config.network.init_from == "init/draw_3p_boardpan_greedy_heavy.pt"
    assert path.is_file() and path.parent.name == "init" and path.parent.parent.name == "configs"
    with pytest.raises(ConfigError, match="'init/nope.pt' is neither a checkpoint file"):
        checkpoint_path("init/nope.pt", "network.init_from")
