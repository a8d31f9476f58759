#!/usr/bin/env bash
# Pins every package with its hashes: requirements.lock (what requirements.txt needs) and
# requirements-dev.lock (requirements-dev.txt, the tests' tools too), which setup.sh installs
# with --require-hashes. Run it after changing either .txt file. The versions are the ones
# installed in .venv (its `pip freeze` constrains the resolution), so a lock never asks to
# upgrade what the virtualenv holds; it installs nothing, and reads only the package index's
# file lists and hashes.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/pip-compile ] || { echo "pip-compile is missing from .venv: run scripts/setup.sh dev first." >&2; exit 1; }
installed=$(mktemp --suffix=.txt)
trap 'rm -f "$installed"' EXIT
.venv/bin/pip freeze --exclude-editable >"$installed"
for name in requirements requirements-dev; do
    CUSTOM_COMPILE_COMMAND=scripts/lock.sh .venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
        --no-emit-index-url --no-emit-find-links \
        --constraint "$installed" --output-file "$name.lock" "$name.txt"
    sed -i "s#-c $installed#the versions installed in .venv#" "$name.lock"
done
