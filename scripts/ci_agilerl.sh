#!/usr/bin/env bash
# The AgileRL tests (tests/integrations/agilerl_dqn) in a venv of their own, .venv-agilerl: AgileRL 2.58 pins
# pettingzoo < 1.27 while the main .venv keeps pettingzoo 1.27. torch is pinned first to the CPU build,
# as in scripts/setup.sh. Extra arguments go to pytest. The main suite skips these tests (no AgileRL there).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv-agilerl/bin/python ] || python3 -m venv .venv-agilerl
.venv-agilerl/bin/python -m pip install -q --upgrade pip
.venv-agilerl/bin/python -m pip install -q "torch==2.13.0"
# torch pinned again: a dependency could otherwise upgrade it to a CUDA build
.venv-agilerl/bin/python -m pip install -q -e ".[dev,agilerl]" "torch==2.13.0"
.venv-agilerl/bin/python -m pytest tests/integrations/agilerl_dqn -p no:cacheprovider "$@"
