"""pyproject.toml against the tree: every package is listed under its install name, and every
console script and entry point names a function or module that exists. (The wheel itself is built,
installed outside the checkout and run by scripts/ci_wheel.sh.)"""

from __future__ import annotations

import importlib
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _install_name(folder: Path) -> str:
    """The dotted name a package folder installs as, through pyproject's ``package-dir`` mapping."""
    relative = folder.relative_to(ROOT).as_posix()
    for name, mapped in sorted(SETUPTOOLS["package-dir"].items(), key=lambda item: -len(item[1])):
        if relative == mapped or relative.startswith(mapped + "/"):
            return name + relative[len(mapped):].replace("/", ".")
    return relative.replace("/", ".")


def test_every_package_folder_is_listed_under_its_install_name() -> None:
    """Every folder of the three installed trees that holds a file (code or data) is a package."""
    folders = {path.parent for top in ("domino_env", "training", "configs")
               for path in (ROOT / top).rglob("*") if path.is_file() and "__pycache__" not in path.parts}
    assert sorted(_install_name(folder) for folder in folders) == sorted(SETUPTOOLS["packages"])


def test_no_generic_top_level_name_is_installed() -> None:
    assert {name.split(".")[0] for name in SETUPTOOLS["packages"]} == {"domino_env", "domino_env_training"}


def _resolve(target: str) -> object:
    module, _, attribute = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def test_console_scripts_name_callables() -> None:
    scripts = PYPROJECT["project"]["scripts"]
    assert set(scripts) == {"domino-train", "domino-evaluate", "domino-play", "domino-serve", "domino-ladder",
                            "domino-speed", "domino-best-response", "domino-distill"}
    for name, target in scripts.items():
        if target.startswith("domino_env.frontends.web."):
            importlib.import_module("fastapi")  # the web extra: installed by scripts/setup.sh
        assert callable(_resolve(target)), name


def test_the_shipped_configs_are_package_data_and_load_by_name() -> None:
    from domino_env_training.config import load_config, shipped_configs

    names = shipped_configs()
    on_disk = sorted(p.relative_to(ROOT / "configs").with_suffix("").as_posix()
                     for p in (ROOT / "configs").rglob("*.yaml") if p.parent.name != "rllib")
    assert names == on_disk
    assert load_config("block_2p") == load_config(ROOT / "configs" / "block_2p.yaml")
    folders = {".".join(["domino_env_training.configs", *name.split("/")[:-1]])
               for name in [*names, "rllib/block_2p"]}
    assert all("*.yaml" in SETUPTOOLS["package-data"][folder] for folder in folders)
