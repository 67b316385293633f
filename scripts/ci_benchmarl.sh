#!/usr/bin/env bash
# The BenchMARL tests (tests/integrations/benchmarl_task) in a venv of their own, .venv-benchmarl: BenchMARL
# 1.5.0 pins torchrl ~= 0.8.0 (0.8.1 installs beside torch 2.13) while the main .venv keeps torchrl 0.14. torch is pinned first to the CPU build,
# as in scripts/setup.sh. Extra arguments go to pytest. The main suite skips these tests (no BenchMARL there).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv-benchmarl/bin/python ] || python3 -m venv .venv-benchmarl
.venv-benchmarl/bin/python -m pip install -q --upgrade pip
.venv-benchmarl/bin/python -m pip install -q "torch==2.13.0"
# torch pinned again: BenchMARL's torchvision would otherwise upgrade it to a CUDA build
.venv-benchmarl/bin/python -m pip install -q -e ".[dev,benchmarl]" "torch==2.13.0"
.venv-benchmarl/bin/python -m pytest tests/integrations/benchmarl_task -p no:cacheprovider "$@"
