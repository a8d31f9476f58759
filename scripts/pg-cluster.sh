#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `scripts/pg-cluster.sh start DIR` installs
# Debian's postgresql when missing (as root), runs initdb and pg_ctl as the postgres user
# (PostgreSQL refuses to run as root) in DIR, on 127.0.0.1 and a free port, and prints the
# MEMADMIN_DATABASE_URL of its database; `scripts/pg-cluster.sh stop DIR` stops it. Arguments
# after DIR go to the server as its own options (`-c autovacuum=off`).
set -euo pipefail
action=$1
dir=$2
shift 2
server_options="$*"
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$action" in
start)
    if [ -z "$bin" ] || [ ! -f "$(dirname "$bin")/lib/pg_trgm.so" ]; then
        if [ "$(id -u)" != 0 ]; then
            echo "PostgreSQL is missing: run as root once, or apt-get install postgresql postgresql-contrib." >&2
            exit 1
        fi
        echo "Installing Debian's postgresql for the PostgreSQL pass..." >&2
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            postgresql postgresql-contrib) >/dev/null
        bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_postgres "$bin/initdb" -D "$dir/data" -U memadmin --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    # Sized for the machine as a DBA sizes a server (docs/postgresql.md):
    # a quarter of the memory for shared buffers, where Debian's default 128 MB is less than
    # the memories table at 100,000, so that each search read its pages from the OS again.
    # A parallel search (memories.engine.postgresql.search) uses its own process and at most
    # one worker a core beside it.
    memory_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
    sizes="-c shared_buffers=$((memory_mb / 4))MB -c effective_cache_size=$((memory_mb * 3 / 4))MB -c work_mem=16MB"
    sizes="$sizes -c max_parallel_workers_per_gather=$(($(nproc) - 1))"
    # Tests open a database per xdist worker and servers of their own beside it.
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o \
        "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off $sizes $server_options" \
        start >/dev/null
    as_postgres "$bin/createdb" -h 127.0.0.1 -p "$port" -U memadmin memadmin
    echo "postgres://memadmin@127.0.0.1:$port/memadmin"
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
