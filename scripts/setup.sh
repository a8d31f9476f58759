#!/usr/bin/env bash
# Creates .venv and installs the pinned requirements when they changed. Sourced by run.sh and
# test.sh; pass "dev" to include the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:-run}
requirements=requirements.txt
[ "$want" = dev ] && requirements=requirements-dev.txt
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
stamp=".venv/.installed-$(cat requirements.txt "$requirements" | sha256sum | cut -c1-16)-$want"
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -r "$requirements"
    touch "$stamp"
fi
