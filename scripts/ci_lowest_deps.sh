#!/usr/bin/env bash
# Checks that pyproject's lower bounds are true: installs the LOWEST declared version of every direct
# dependency (and of the dev and openspiel extras) into .venv-lowest and runs the tests of the package
# itself there (rules, environments, encoders, wrappers, the registry suite, evaluation, OpenSpiel).
#
# torch stays at the CPU build CI keeps on disk (2.13.0, installed first as setup.sh does: PyPI's
# Linux builds are multi-GB CUDA ones); docs/integrations.md, "Dependency bounds", says why. The
# trainer's tests are left to the main run, to keep this one within about 4 minutes on 2 cores.
#
#     bash scripts/ci_lowest_deps.sh                 # the whole check
#     bash scripts/ci_lowest_deps.sh -k openspiel    # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv-lowest/bin/python ] || python3 -m venv .venv-lowest
python=.venv-lowest/bin/python
$python -m pip install -q --upgrade pip
$python -m pip install -q "torch==2.13.0"

# name==lowest for every "name>=lowest" requirement of the project and its dev/openspiel extras
# (tianshou's extra is left out: Tianshou itself needs a newer numpy than the package's bound).
$python - > .venv-lowest/constraints.txt <<'EOF'
import re
import tomllib

project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]
for requirement in project["dependencies"] + extras["dev"] + extras["openspiel"]:
    if requirement.startswith("torch>="):
        continue  # 2.13.0 (CPU), installed above: PyPI has only multi-GB CUDA builds of older ones
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)", requirement)
    if match is None:
        raise SystemExit(f"pyproject requirement {requirement!r} has no plain '>=' lower bound")
    print("{}=={}".format(*match.groups()))
EOF
echo "lowest declared versions:"; sed 's/^/  /' .venv-lowest/constraints.txt
$python -m pip install -q -c .venv-lowest/constraints.txt -e ".[dev,openspiel]"
$python -m pip check

$python -m ruff check --quiet .  # the lint rules of the lowest ruff (0.12 still had UP038)
# The trainer's use of pyyaml and tensorboard, without training: every shipped config loads and a
# scalar is written as the trainer writes its curves.
$python - <<'EOF'
import pathlib
import tempfile

from torch.utils.tensorboard import SummaryWriter

from domino_env_training.config import load_config

for path in sorted(pathlib.Path("configs").glob("*.yaml")):
    load_config(path)
with tempfile.TemporaryDirectory() as folder:
    writer = SummaryWriter(folder)
    writer.add_scalar("check/lowest", 1.0, 0)
    writer.close()
EOF
# Left to the main run, as they exercise the project's own Python rather than its dependencies:
# the rules' long property-based fuzzing (tests/rules/*_fuzz.py; tests/test_properties.py checks
# hypothesis), the import-order check, and the leak checks (tests/encoders/test_leaks.py, the
# registry suite's and the frames'), minutes of pure-Python deal sampling on 2 cores.
$python -m pytest -n 2 -q -p no:cacheprovider --durations=10 \
    tests/rules --ignore=tests/rules/test_line_fuzz.py --ignore=tests/rules/test_texas42_fuzz.py \
    tests/envs tests/encoders tests/wrappers tests/evaluation/test_evaluation.py tests/integrations \
    tests/search \
    tests/test_registry_suite.py tests/test_properties.py \
    -k "not test_leaks and not seat_may_not_see and not seat_cannot_see" "$@"
