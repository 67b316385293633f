"""Every ```python block of the integration docs runs as written, each in a fresh interpreter.

``DOCS`` lists the documents whose snippets are run; a doc about another integration adds itself
there. A block whose first line is ``# requires: a, b`` is skipped when module ``a`` or ``b`` is not
installed (optional libraries); every other block must run, and fail the test when it does not.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["docs/integrations.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
REQUIRES = re.compile(r"#\s*requires:\s*(.+)")


def python_blocks(doc: str) -> list[str]:
    """The code of every ```python block of ``doc`` (a path relative to the repository root)."""
    return BLOCK.findall((ROOT / doc).read_text())


SNIPPETS = [(doc, index) for doc in DOCS for index in range(len(python_blocks(doc)))]


def test_every_listed_doc_has_snippets() -> None:
    for doc in DOCS:
        assert python_blocks(doc), f"{doc} has no ```python block"


@pytest.mark.parametrize(("doc", "index"), SNIPPETS, ids=[f"{doc}#{i}" for doc, i in SNIPPETS])
def test_snippet_runs(doc: str, index: int) -> None:
    code = python_blocks(doc)[index]
    first = REQUIRES.match(code.splitlines()[0] if code.strip() else "")
    if first:
        modules = [m.strip() for m in first.group(1).split(",")]
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if missing:
            pytest.skip(f"needs {', '.join(missing)}")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{doc} block {index} failed:\n{code}\n{done.stderr[-3000:]}"
