#!/usr/bin/env bash
# Creates .venv and installs the project with its test tools. torch is pinned first to the CPU
# build this machine keeps on disk; an unpinned install would pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "torch==2.13.0"
# openspiel: the OpenSpiel adapter's tests run in CI (about 30 s more, most of it scipy);
# torchrl: the TorchRL environment's tests and its PPO example's;
# tianshou: docs/integrations.md's Tianshou snippet runs in CI (it leaves torch, numpy, gymnasium alone);
# web: the browser front end (domino-serve) and its tests
.venv/bin/python -m pip install -q -e ".[dev,openspiel,tianshou,torchrl,web]"
# The browser tests drive Debian's chromium (Playwright never downloads a browser here); about 2.5
# minutes to install. Without it (no root, no apt) those tests are skipped, saying why.
if ! command -v chromium >/dev/null; then
    apt="env DEBIAN_FRONTEND=noninteractive apt-get"; [ "$(id -u)" = 0 ] || apt="sudo -n $apt"
    { $apt install -y -qq chromium >/dev/null 2>&1 \
        || { $apt update -qq && $apt install -y -qq chromium >/dev/null; }; } \
        || echo "setup.sh: could not install chromium; the browser tests will be skipped" >&2
fi
