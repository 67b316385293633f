#!/usr/bin/env bash
# The RLlib tests (tests/integrations/rllib) in a venv of their own, .venv-rllib: ray[rllib] 2.60 pins
# gymnasium 1.2.2 while the main .venv keeps gymnasium 1.4. torch is pinned first to the CPU build, as
# in scripts/setup.sh. Extra arguments go to pytest. The main suite skips these tests (no Ray there).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv-rllib/bin/python ] || python3 -m venv .venv-rllib
.venv-rllib/bin/python -m pip install -q --upgrade pip
.venv-rllib/bin/python -m pip install -q "torch==2.13.0"
.venv-rllib/bin/python -m pip install -q -e ".[dev,rllib]"
.venv-rllib/bin/python -m pytest tests/integrations/rllib -p no:cacheprovider "$@"
