#!/usr/bin/env bash
# Sets everything up and serves the dashboard on http://127.0.0.1:8000 with gunicorn.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh run
export MEMADMIN_DATA_DIR=${MEMADMIN_DATA_DIR:-$PWD/var}
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py check --database default
.venv/bin/python manage.py collectstatic --noinput -v0
.venv/bin/python manage.py seed_demo --if-empty
.venv/bin/python manage.py first_login
echo "Serving on http://${MEMADMIN_BIND:-127.0.0.1:8000}/ (Ctrl-C stops it)"
# How it serves (workers, threads, timeouts) is gunicorn.conf.py's, read from the checkout.
exec .venv/bin/gunicorn memadmin.wsgi
