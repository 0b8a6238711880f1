#!/usr/bin/env bash
# Usage: REPO=$PWD scripts/same_outputs.sh EVACDOC_BINARY OUT_DIR   (from the repository)
# For refactors that must not change behaviour: run with the binary before and after,
# then `diff -r` the two folders (empty = byte-identical).
# Runs analyze (json+text), triage (json), analyze --identified-to, redact --public on every
# sample scenario, samples/realstack/* and two small gen_cloud mixes; elapsed/timing fields
# stripped, read times masked, one pseudonym map per input reused ($MAPS). Compare two runs with: diff -r OUT_A OUT_B
set -uo pipefail
bin=$(readlink -f "$1"); out=$2
repo=${REPO:-$PWD}
mkdir -p "$out"
gen=${GEN:-$repo/target/same-outputs-mixes}
maps=${MAPS:-$repo/target/same-outputs-maps}
mkdir -p "$maps"
if [[ ! -d $gen/kolla ]]; then
  mkdir -p $gen
  python3 $repo/scripts/gen_cloud.py $gen/kolla --size 8M --seed 41 --layout kolla --offsets --debug --force >/dev/null
  python3 $repo/scripts/gen_cloud.py $gen/sos --size 8M --seed 42 --layout sos --era pre-zed --rotate --force >/dev/null
  python3 $repo/scripts/gen_bundle.py --size 20M --out $gen/bundle >/dev/null 2>&1 || true
fi
strip() { jq -S 'walk(if type=="object" then with_entries(select(.key|test("elapsed|duration_ms|took|seconds_taken|wall")|not)) else . end)' 2>/dev/null || cat; }
inputs=( $repo/samples/scenarios/* $repo/samples/realstack/* $gen/kolla $gen/sos $gen/bundle )
for in in "${inputs[@]}"; do
  [[ -d $in ]] || continue
  n=$(basename "$(dirname "$in")")-$(basename "$in")
  (cd "$in" && "$bin" analyze . --format json 2>&1 | strip > "$out/$n.analyze.json")
  (cd "$in" && "$bin" analyze . --format text 2>&1 | grep -v -i "elapsed\|took " | sed -E 's/ in [0-9]+ ms/ in N ms/g' > "$out/$n.analyze.txt")
  (cd "$in" && "$bin" triage . --format json 2>&1 | strip > "$out/$n.triage.json")
  (cd "$in" && "$bin" analyze . --format json --identified-to "$out/$n.identified.raw" >/dev/null 2>&1; strip < "$out/$n.identified.raw" > "$out/$n.identified.json"; rm -f "$out/$n.identified.raw")
  rm -rf "$out/$n.public" "$out/$n.public.map.json"
  # Pseudonyms are random per map: every run reuses one map per input (made by the first
  # run), so two runs of the same code name things alike; the map is copied for the diff.
  (cd "$in" && "$bin" redact . --public --map "$maps/$n.map.json" --out "$out/$n.public" > /dev/null 2>&1; echo "rc=$?" > "$out/$n.public.rc")
  cp "$maps/$n.map.json" "$out/$n.public.map.json" 2>/dev/null
done
echo "outputs in $out: $(ls "$out" | wc -l) entries"
