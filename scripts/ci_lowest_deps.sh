#!/usr/bin/env bash
# Checks that pyproject's lower bounds are true: installs the LOWEST declared version of every direct
# dependency (and of the dev and openspiel extras) into .venv-lowest and runs the tests of the package
# itself there (rules, environments, encoders, wrappers, the registry suite, evaluation, OpenSpiel).
#
# torch's bound is the CPU build CI keeps on disk (2.13.0, installed first as setup.sh does: PyPI's
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
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)", requirement)
    if match is None:
        raise SystemExit(f"pyproject requirement {requirement!r} has no plain '>=' lower bound")
    print("{}=={}".format(*match.groups()))
EOF
echo "lowest declared versions:"; sed 's/^/  /' .venv-lowest/constraints.txt
$python -m pip install -q -c .venv-lowest/constraints.txt -e ".[dev,openspiel]"
$python -m pip check

# The property-based fuzzing of the rules (tests/rules/*_fuzz.py) and the import-order check
# exercise the project's own Python, not its dependencies: the main run keeps them.
$python -m pytest -n 2 -q -p no:cacheprovider --durations=10 \
    tests/rules --ignore=tests/rules/test_line_fuzz.py --ignore=tests/rules/test_texas42_fuzz.py \
    tests/envs tests/encoders tests/wrappers tests/evaluation/test_evaluation.py tests/integrations \
    tests/test_registry_suite.py "$@"
