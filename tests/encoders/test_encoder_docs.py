"""docs/encoders.md is generated from the encoders' slot tables and must match the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_encoder_page_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, "scripts/gen_encoder_docs.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
