#!/usr/bin/env bash
# The package as a user installs it: builds the wheel and the sdist, installs the wheel (with the web
# extra) into a fresh venv in a temporary folder outside the checkout, and runs every console script
# briefly from there: a scripted game, a 10-deal evaluation, the smoke training from the shipped
# config by name, the task list and one task's scoring, a speed row, and the server answering `/`.
# torch is pinned first to the CPU build on this machine's disk, as scripts/setup.sh does.
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

python3 -m venv "$work/build"
"$work/build/bin/python" -m pip install -q --upgrade pip build
"$work/build/bin/python" -m build -q --sdist --wheel --outdir "$work/dist" "$checkout" >/dev/null
wheel="$(ls "$work"/dist/domino_env-*.whl)"
sdist="$(ls "$work"/dist/domino_env-*.tar.gz)"
echo "built $(basename "$wheel") and $(basename "$sdist")"
# the sdist holds the sources the wheel is built from, the configs and the shipped baselines included
sdist_files="$(tar -tzf "$sdist")"  # (grep -q on a pipe would end tar early: SIGPIPE under pipefail)
grep -q "configs/block_2p.yaml" <<<"$sdist_files"
grep -q "domino_env/baselines/Block2p.pt" <<<"$sdist_files"
# the wheel installs the trainer as domino_env_training, never as a generic top-level "training"
wheel_files="$(unzip -Z1 "$wheel")"
grep -q "^domino_env_training/configs/gpu/block_2p.yaml$" <<<"$wheel_files"
grep -q "^domino_env/frontends/web/static/index.html$" <<<"$wheel_files"
if grep -q "^training/" <<<"$wheel_files"; then
    echo "ci_wheel.sh: the wheel installs a top-level 'training' package" >&2; exit 1
fi

python3 -m venv "$work/venv"
bin="$work/venv/bin"
"$bin/python" -m pip install -q --upgrade pip
"$bin/python" -m pip install -q "torch==2.13.0"
"$bin/python" -m pip install -q "$wheel[web]"
cd "$work"  # outside the checkout: nothing may come from it
"$bin/python" -c "import domino_env, domino_env_training; assert '$checkout' not in domino_env.__file__"

run() {  # one console script, its output kept in a file (a pipe to head would break it); the last lines shown
    echo "== $*"
    "$bin/$@" >"$work/out.txt"
    tail -n 3 "$work/out.txt"
}
seq 300 | sed 's/.*/1/' >"$work/moves.txt"  # a move number for every prompt
run domino-play --seed 1 --one-round --bots random <"$work/moves.txt"
grep -q "Round 1 over" "$work/out.txt"
run domino-evaluate --game dominoes --agents random greedy --deals 10 --workers 1
run domino-train --list-configs
grep -qx block_2p "$work/out.txt"
run domino-train --config smoke --set run_dir="$work/runs" --set total_steps=8192 --no-progress
test -f "$work/runs/smoke/last.pt"
run domino-best-response --task Block2p --against greedy --config smoke --set run_dir="$work/runs" \
    --set name=best_response --set total_steps=8192 --deals 4 --no-progress
test -f "$work/runs/best_response/best_response.json"
run domino-distill --checkpoint "$work/runs/smoke/last.pt" --teacher greedy --games 3 --epochs 1 \
    --out "$work/distilled.pt"
test -f "$work/distilled.pt"
run domino-ladder --list
run domino-ladder --task Block2p --agent greedy --deals 2 --workers 1
run domino-speed --only line --seconds 0.2

port=$("$bin/python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$bin/domino-serve" --host 127.0.0.1 --port "$port" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 60); do
    if "$bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/', timeout=2)" 2>/dev/null; then
        break
    fi
    sleep 0.5
done
"$bin/python" -c "
import urllib.request
page = urllib.request.urlopen('http://127.0.0.1:$port/', timeout=5).read().decode()
assert '<html' in page.lower(), page[:200]
print('domino-serve answered / with', len(page), 'bytes')"
echo "ci_wheel.sh: every console script ran from the installed wheel"
