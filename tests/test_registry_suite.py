"""The generic suite: every registered game, on each of its record's example option sets, passes
every check of ``domino_env.testing`` (its docstring lists them). Nothing here names a game:
registering a record (``domino_env.games``) is what puts a game under test, and a user's own game is
checked the same way with ``domino_env.testing.registry_test(name)``.
"""

from __future__ import annotations

import pytest

from domino_env.testing import CHECKS, example_cases, run_check


def _label(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items()) or "default"


CASES = [pytest.param(name, options, id=f"{name}-{_label(options)}") for name, options in example_cases()]


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize(("name", "options"), CASES)
def test_registry_check(name: str, options: dict, check: str) -> None:
    reason = run_check(check, name, options)
    if reason is not None:
        pytest.skip(reason)
