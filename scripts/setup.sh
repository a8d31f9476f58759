#!/usr/bin/env bash
# Creates .venv and installs the locked requirements, every package pinned with its hashes
# (requirements.lock; requirements-dev.lock with "dev", the test tools too), when the lock
# changed. Sourced by run.sh and test.sh. A lock older than its .txt is refused: run
# scripts/lock.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:-run}
lock=requirements.lock
inputs=(requirements.txt)
if [ "$want" = dev ]; then
    lock=requirements-dev.lock
    inputs+=(requirements-dev.txt)
fi
python3 scripts/check_lock.py "$lock" "${inputs[@]}"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=".venv/.installed-$(sha256sum "$lock" | cut -c1-16)-$want"
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --require-hashes -r "$lock"
    touch "$stamp"
fi
