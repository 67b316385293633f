"""Import a file of scripts/ as a module, for the tests that drive the scripts.

scripts/ is not a package (its files run as ``python scripts/x.py``), so the tests load them from
their paths. pyproject.toml puts this folder on pytest's ``pythonpath``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as the module ``name``, registered in ``sys.modules`` before it runs:
    a dataclass looks its module up there, and pickles (BenchMARL's callbacks) import it by name."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None  # a .py path always gets a source loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
