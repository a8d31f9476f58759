#!/bin/bash
# Alternate runs of facets_time.py: 722f67f (/work/wt-before) on the shared store at 0029,
# this branch on a copy of it migrated to 0030. Each run's `uptime` heads its file.
out=${1:-runs}
copy=${2:-/tmp/facets-store}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for round in 1 2 3 4 5 6 7 8; do
  uptime > "$out/before-$round.txt"
  (cd /work/wt-before && .venv/bin/python "$here/facets_time.py" /work/stores/b100k-idx) >> "$out/before-$round.txt"
  uptime > "$out/after-$round.txt"
  (cd "$here/../../.." && .venv/bin/python "$here/facets_time.py" "$copy") >> "$out/after-$round.txt"
done
