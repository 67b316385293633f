#!/usr/bin/env bash
# Sets everything up and runs every test (what CI runs on a clean clone):
#   1. scripts/setup.sh, then the main suite in .venv;
#   2. the RLlib tests in a venv of their own (.venv-rllib: ray pins gymnasium 1.2.2), scripts/ci_rllib.sh,
#      and likewise BenchMARL's (.venv-benchmarl: it pins torchrl), scripts/ci_benchmarl.sh, and AgileRL's
#      (.venv-agilerl: it pins pettingzoo < 1.27), scripts/ci_agilerl.sh;
#   3. the lowest declared versions of the dependencies (.venv-lowest), scripts/ci_lowest_deps.sh;
#   4. the wheel and sdist built, the wheel installed outside the checkout and every console script run,
#      scripts/ci_wheel.sh.
# Extra arguments go to the main suite's pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest -n 2 "$@"
bash scripts/ci_rllib.sh -q
bash scripts/ci_benchmarl.sh -q
bash scripts/ci_agilerl.sh -q
bash scripts/ci_lowest_deps.sh
bash scripts/ci_wheel.sh
