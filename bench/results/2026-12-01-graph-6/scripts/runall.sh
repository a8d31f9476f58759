#!/bin/bash
# Interleaved before/after runs; writes into the results dir.
R=/work/wt-s6-graph/bench/results/2026-12-01-graph-6
OLD=/tmp/s6-graph/main-src; NEW=/tmp/s6-graph/new-src
PG=$(cat /tmp/s6-graph/pgurl); export NEWSRC=/tmp/s6-graph/new-src
run() { # label dir args...
  local label=$1 dir=$2; shift 2
  echo "== $label $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd $dir && .venv/bin/python "$@" 2>&1 | grep -vE "^(Not Found|Bad Request)")
}
for i in 1 2; do
  run "cpu_time 100k before #$i" $OLD bench/cpu_time.py --memories 100000 --data-dir /tmp/s6-graph/100k --requests 30 --only graph --out $R/cpu-100000-before-$i.json
  run "cpu_time 100k after #$i" $NEW bench/cpu_time.py --memories 100000 --data-dir /tmp/s6-graph/100k --requests 30 --only graph --out $R/cpu-100000-after-$i.json
done
for i in 1 2; do
  run "run.py 100k before #$i" $OLD bench/run.py --memories 100000 --data-dir /tmp/s6-graph/100k --only graph --requests 100 --seconds 6 --rps-seconds 1 --port 8781 --out $R/run-100000-before-$i
  run "run.py 100k after #$i" $NEW bench/run.py --memories 100000 --data-dir /tmp/s6-graph/100k --only graph --requests 100 --seconds 6 --rps-seconds 1 --port 8781 --out $R/run-100000-after-$i
done
run "run.py 1M before" $OLD bench/run.py --memories 1000000 --data-dir /tmp/s6-graph/1m --only graph --requests 100 --seconds 6 --rps-seconds 1 --port 8781 --out $R/run-1000000-before
run "run.py 1M after" $NEW bench/run.py --memories 1000000 --data-dir /tmp/s6-graph/1m --only graph --requests 100 --seconds 6 --rps-seconds 1 --port 8781 --out $R/run-1000000-after
run "cpu_time 1M before" $OLD bench/cpu_time.py --memories 1000000 --data-dir /tmp/s6-graph/1m --requests 30 --only graph --out $R/cpu-1000000-before.json
run "cpu_time 1M after" $NEW bench/cpu_time.py --memories 1000000 --data-dir /tmp/s6-graph/1m --requests 30 --only graph --out $R/cpu-1000000-after.json
run "run.py PostgreSQL 100k before" $OLD bench/run.py --engine postgres --database-url $PG --memories 100000 --data-dir /tmp/s6-graph/pg100k --only graph --requests 100 --seconds 6 --rps-seconds 1 --port 8781 --out $R/run-postgresql-100000-before
run "run.py PostgreSQL 100k after" $NEW bench/run.py --engine postgres --database-url $PG --memories 100000 --data-dir /tmp/s6-graph/pg100k --only graph --requests 100 --seconds 6 --rps-seconds 1 --port 8781 --out $R/run-postgresql-100000-after
run "duel 100k /v1/graph" $NEW /tmp/s6-graph/work/duel.py /tmp/s6-graph/100k 100000 /v1/graph 60
run "duel 100k /graph/data/" $NEW /tmp/s6-graph/work/duel.py /tmp/s6-graph/100k 100000 /graph/data/ 60
run "duel 1M /v1/graph" $NEW /tmp/s6-graph/work/duel.py /tmp/s6-graph/1m 1000000 /v1/graph 40
echo "== done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
