"""Every module imports on its own, in any order, and no two modules import each other at load time.

A cycle between modules works or fails depending on which one is imported first, so it is checked
twice: dynamically (every module of ``domino_env`` and ``domino_env_training`` imported in a fresh interpreter
in a few seeded random orders) and statically (the graph of package-internal imports at module level,
read with ``ast``, must have no cycle). Imports inside functions run later and are left out.
"""

from __future__ import annotations

import ast
import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"domino_env": "domino_env", "domino_env_training": "training"}
"""import name -> folder (the trainer's folder installs under a project-specific name)"""


def module_files() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of ``PACKAGES``."""
    modules = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = (package, *path.relative_to(ROOT / folder).with_suffix("").parts)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


MODULES = module_files()
OPTIONAL = {"domino_env.integrations.openspiel": "pyspiel", "domino_env.frontends.web.server": "fastapi",
            "domino_env.integrations.rllib": "ray", "domino_env_training.rllib.selfplay": "ray",
            "domino_env.integrations.benchmarl": "benchmarl"}
"""adapters that import an optional library: imported only where it is installed"""


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def load_time_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported: not inside a function body nor
    under ``if TYPE_CHECKING:`` (class bodies, ``if`` and ``try`` at module level do run)."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return found


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module name ``node`` imports from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package-internal modules it imports at load time. ``from p import x`` counts as
    importing ``p.x`` when that is a module, else ``p`` (whose ``__init__`` runs)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for node in load_time_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            source = _resolve(module, path, node)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                targets.add(submodule if submodule in modules else source)
        graph[module] = {t for t in targets if t in modules and t != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as ``[a, b, ..., a]``, or ``None`` when the graph has none (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(MODULES))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_find_cycle_names_the_cycle() -> None:
    """The checker itself: a planted cycle is found and named; an acyclic graph passes."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_import_graph_reads_load_time_imports_only(tmp_path: Path) -> None:
    """Module-level and class-level imports count (also ``from pkg import submodule``); imports in
    functions and under ``TYPE_CHECKING`` do not."""
    files = {
        "pkg": "from pkg import a\n",
        "pkg.a": "from pkg import b\nclass K:\n    import pkg.c\n",
        "pkg.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n"
                 "def f():\n    import pkg.a\n",
        "pkg.c": "from . import b\n",
    }
    modules = {}
    for name, text in files.items():
        path = tmp_path / (name.replace(".", "/") + ("/__init__.py" if name == "pkg" else ".py"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        modules[name] = path
    assert import_graph(modules) == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b", "pkg.c"}, "pkg.b": set(),
                                     "pkg.c": {"pkg.b"}}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_module_imports_in_a_random_order(seed: int) -> None:
    order = sorted(name for name in MODULES if importlib.util.find_spec(OPTIONAL.get(name, "os")))
    random.Random(seed).shuffle(order)
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    done = subprocess.run([sys.executable, "-c", code, *order], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"importing in the order {order} failed:\n{done.stderr[-3000:]}"


def test_the_public_surface_is_lazy_and_every_name_resolves() -> None:
    """``import domino_env`` loads no submodule; each name of ``__all__`` then loads its module."""
    code = (
        "import sys, domino_env\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('domino_env.'))\n"
        "assert loaded == [], loaded\n"
        "assert domino_env.__all__ == ['__version__', *domino_env._PUBLIC], domino_env.__all__\n"
        "for name in domino_env.__all__:\n"
        "    assert getattr(domino_env, name) is not None, name\n"
        "assert domino_env.make_bot('dominoes', 'greedy') is not None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_library_never_imports_the_trainer() -> None:
    """``domino_env`` works without ``domino_env_training`` (the trainer provides its bot through an
    entry point), so no module of the library imports it, at load time or inside a function."""
    offenders = []
    for module, path in MODULES.items():
        if not module.startswith("domino_env."):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{module}: {n}" for n in names if n.split(".")[0] == "domino_env_training"]
    assert offenders == []
