#!/bin/sh
# Today's code (main) and this branch in turns, each timing its whole store's admin and one
# project's operator in turns within one process.
OUT=/work/wt-grants/bench/results/2026-12-05-grants2
for n in 1 2; do
  for side in branch main; do
    if [ $side = branch ]; then cd /work/wt-grants; DATA=$STORE; else cd $MAIN_CODE; DATA=$MAIN_STORE; fi
    uptime > $OUT/load-$side-$n.txt
    .venv/bin/python bench/grants_bench.py --memories 100000 --data-dir $DATA --requests 30 --out $OUT/$side-$n.json > $OUT/$side-$n.txt 2>/dev/null
    uptime >> $OUT/load-$side-$n.txt
  done
done
