"""The ``python`` snippets of docs/rllib.md run as written, in order, in one namespace (they are the
copy-paste examples users start from). Needs the ``rllib`` extra."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

DOC = Path(__file__).resolve().parents[3] / "docs" / "rllib.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def test_the_docs_python_snippets_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = python_blocks(DOC.read_text())
    assert len(blocks) == 2
    namespace: dict = {}
    try:
        for block in blocks:
            exec(compile(block, str(DOC), "exec"), namespace)
    finally:
        if ray.is_initialized():
            ray.shutdown()
    printed = capsys.readouterr().out.splitlines()
    assert "bidder" in printed[0]  # the 42 episode's contract
    assert float(printed[-1]) >= 200  # env steps of one PPO iteration
