#!/usr/bin/env bash
# Sets everything up (the virtualenv, Debian's chromium for the browser suite) and runs the
# whole test suite twice, one pass after the other: on SQLite, and on PostgreSQL in a throwaway
# cluster of its own (scripts/pg-cluster.sh: Debian's postgresql, 127.0.0.1, a free port,
# stopped at the end).
# Extra arguments go to both pytest runs; pytest-django makes a test database per worker, and
# worksteal keeps both workers busy to the end (the reliability tests are long).
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
# The two passes run one after the other, two workers each: at once (five workers on two
# cores) they took 12:24 where one after the other took 11:19, in the same half hour
# (bench/results/2026-12-03-run-16/suite-*.txt). The run fails if either fails, and both run.
cluster=$(mktemp -d)
chmod 755 "$cluster"
trap 'scripts/pg-cluster.sh stop "$cluster/pg"; rm -rf "$cluster"' EXIT
# Without autovacuum: the tests empty the tables again and again (a rollback, a flush), and an
# analyze taken of an emptied table has the planner scan what it would look up in the
# triggers' statements once a test fills it again (a demo store's delete 0.7 s against 2.7 s,
# and minutes late in a run: the PostgreSQL pass took 16 min against SQLite's 13).
url=$(scripts/pg-cluster.sh start "$cluster/pg" -c autovacuum=off)
echo "== the suite on SQLite"
sqlite_status=0
env -u MEMADMIN_DATABASE_URL .venv/bin/python -m pytest -n 2 --dist worksteal \
    --basetemp "$cluster/tmp-sqlite" "$@" || sqlite_status=$?
echo "== the suite on PostgreSQL ($url)"
postgresql_status=0
MEMADMIN_DATABASE_URL=$url .venv/bin/python -m pytest -n 2 --dist worksteal \
    --basetemp "$cluster/tmp-postgresql" "$@" || postgresql_status=$?
if [ "$sqlite_status" != 0 ] || [ "$postgresql_status" != 0 ]; then
    echo "The suite failed: SQLite exit $sqlite_status, PostgreSQL exit $postgresql_status." >&2
    exit 1
fi
