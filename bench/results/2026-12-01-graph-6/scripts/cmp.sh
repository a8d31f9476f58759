#!/bin/bash
# cmp.sh BEFORE AFTER: byte comparison, CSRF tokens aside in the HTML
n=0; d=0
for f in $1/*; do b=$(basename $f); n=$((n+1))
  if [[ $b == *.html ]]; then
    diff -q <(sed -E 's/[A-Za-z0-9]{64}/TOKEN/g' $f) <(sed -E 's/[A-Za-z0-9]{64}/TOKEN/g' $2/$b) >/dev/null || { echo DIFF $b; d=$((d+1)); }
  else cmp -s $f $2/$b || { echo DIFF $b; d=$((d+1)); }; fi
done; echo "compared $n, $d differ"
