#!/bin/sh
# main (BASE_CODE, on BASE_STORE) and this branch (BRANCH_CODE, on BRANCH_STORE), each on its
# own copy of the same store, in turns, RUNS times; within each run the whole store's admin and
# one project's operator take turns in one process (bench/grants_bench.py), REQUESTS requests each a route
# (default 30), the routes whose label holds ONLY (default: all), into PREFIX{main,branch}-N.
#   BASE_CODE=/work/wt-narrowlist-base BASE_STORE=/tmp/narrowlist-main \
#   BRANCH_CODE=/work/wt-narrowlist BRANCH_STORE=/tmp/narrowlist-branch2 RUNS=5 sh run.sh
OUT=$(cd "$(dirname "$0")" && pwd)
for n in $(seq 1 "${RUNS:-3}"); do
  for side in main branch; do
    if [ $side = branch ]; then CODE=$BRANCH_CODE; DATA=$BRANCH_STORE; else CODE=$BASE_CODE; DATA=$BASE_STORE; fi
    cd "$CODE" || exit 1
    name=$PREFIX$side-$n
    uptime > "$OUT/load-$name.txt"
    .venv/bin/python bench/grants_bench.py --memories 100000 --data-dir "$DATA" \
      --requests "${REQUESTS:-30}" ${ONLY:+--only "$ONLY"} --out "$OUT/$name.json" \
      > "$OUT/$name.txt" 2>/dev/null
    uptime >> "$OUT/load-$name.txt"
  done
done
