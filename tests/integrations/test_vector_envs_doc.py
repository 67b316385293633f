"""docs/vector_envs.md: every ``python`` block runs as written, each on its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "vector_envs.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_doc_has_its_snippets():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_snippet_runs(code):
    for library in ("torchrl", "sb3_contrib"):
        if library in code:
            pytest.importorskip(library)
    if "DominoVectorEnv" in code and not hasattr(pytest.importorskip("gymnasium.vector"), "AutoresetMode"):
        pytest.skip("DominoVectorEnv needs gymnasium >= 1.1 (the lowest declared gymnasium is 1.0)")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # see the doc: two threads on a loaded two-core machine crawl
    try:
        exec(compile(code, str(DOC), "exec"), {"__name__": "snippet"})
    finally:
        torch.set_num_threads(threads)
