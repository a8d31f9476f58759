#!/usr/bin/env bash
# Sets everything up (the virtualenv, Debian's chromium for the browser suite) and runs the
# whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        echo "Installing Debian's chromium for the browser tests..."
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null
    else
        echo "The browser tests need /usr/bin/chromium: run as root once, or apt-get install chromium." >&2
        exit 1
    fi
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
exec .venv/bin/python -m pytest -n 2 "$@"
