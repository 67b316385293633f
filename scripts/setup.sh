#!/usr/bin/env bash
# Creates .venv and installs the project with its test tools. torch is pinned first to the CPU
# build this machine keeps on disk; an unpinned install would pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
# openspiel: the OpenSpiel adapter's tests run in CI (about 30 s more, most of it scipy);
# tianshou: docs/integrations.md's Tianshou snippet runs in CI (it leaves torch, numpy, gymnasium alone)
.venv/bin/python -m pip install -q -e ".[dev,openspiel,tianshou]"
