#!/usr/bin/env bash
# The figures of issue 42's targets on a machine running nothing else, one after the other.
# Stores: the LoCoMo stores built by locomo.py in this folder's *-loaded runs; /work/stores/pg100k
# (bench/generate.py 100,000 seed 1 in a cluster, the vectors of /work/stores/v100k copied),
# /work/stores/int8-100k (SQLite, 100,000 with vectors), /work/stores/pg1m and /work/stores/v1m
# (1,000,000; vectors the 100,000's repeated: right for cost, not for results).
set -u
cd "$(dirname "$0")/../../.."
out=bench/results/2026-12-05-final/quiet
mkdir -p "$out"
py=.venv/bin/python
load() { echo "load $(cat /proc/loadavg) at $(date -u +%H:%M:%S)"; }
{ load; env -u MEMADMIN_DATABASE_URL $py bench/recall/ask_again.py --data-dir /work/stores/final-locomo-sqlite --modes hybrid words --out $out/locomo-sqlite.json; load; } > $out/locomo-sqlite.txt 2>&1
{ load; MEMADMIN_DATABASE_URL=$(cat /work/stores/final-locomo-pg/url) $py bench/recall/ask_again.py --data-dir /work/stores/final-locomo-pg/dir --modes hybrid words --out $out/locomo-postgresql.json; load; } > $out/locomo-postgresql.txt 2>&1
{ load; MEMADMIN_DATABASE_URL=$(cat /work/stores/pg100k/url) $py bench/words_cost.py --memories 100000 --data-dir /work/stores/pg100k/dir --runs 7 --cpu --only ten,locomo,one; load; } > $out/words-cost-pg-100k.txt 2>&1
{ load; env -u MEMADMIN_DATABASE_URL $py bench/words_cost.py --memories 100000 --data-dir /work/stores/int8-100k --runs 7 --cpu --only ten,locomo,one; load; } > $out/words-cost-sqlite-100k.txt 2>&1
{ load; MEMADMIN_DATABASE_URL=postgres://memadmin@127.0.0.1:40279/memadmin $py bench/words_cost.py --memories 1000000 --data-dir /work/stores/pg1m --runs 7 --cpu --only ten,locomo,one; load; } > $out/words-cost-pg-1m.txt 2>&1
{ load; env -u MEMADMIN_DATABASE_URL $py bench/words_cost.py --memories 1000000 --data-dir /work/stores/v1m --runs 7 --cpu --only ten,locomo,one; load; } > $out/words-cost-sqlite-1m.txt 2>&1
for run in 1 2; do
    { load; env -u MEMADMIN_DATABASE_URL $py bench/grants_bench.py --memories 100000 --data-dir /work/stores/run-after --requests 100 --out $out/grants-$run.json; load; } > $out/grants-$run.txt 2>&1
done
