#!/bin/bash
# analyze PATH, print detector counts
B="${EVACDOC:-$(dirname "$0")/../../target/debug/evacdoc}"
for p in "$@"; do
  out=$($B analyze "$p" --format json 2>/dev/null)
  if [ -z "$out" ]; then echo "$p: (no json, rc)"; continue; fi
  echo "$out" | python3 -c "
import json,sys,collections
d=json.load(sys.stdin); c=collections.Counter(x['detector'] for x in d['findings']); print('$p', dict(sorted(c.items())))"
done
