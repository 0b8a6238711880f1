#!/usr/bin/env bash
# Run real-stack scenarios: real Keystone, Nova and Masakari releases on loopback, each
# scenario leaving a bundle and its ground truth, then `evacdoc analyze` on the bundle and
# a comparison with the ground truth.
#
#   scripts/realstack/run.sh [SCENARIO..]     (default: all; see scenario.py)
#
# Output under target/realstack/out/<scenario>/: bundle/, ground_truth.json,
# analysis.json, work/ (service state and stdout). Exit status 1 when any scenario did not
# happen as designed or evacdoc disagrees with its ground truth. Every process a scenario
# starts is stopped by it (also on failure or TERM).
# EVACDOC: the evacdoc binary to use (default: target/debug/evacdoc, built if missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

all=(race defaults executor)
scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=("${all[@]}")

bash "$here/setup.sh"
venv="$root/target/realstack/venv"
evacdoc="${EVACDOC:-$root/target/debug/evacdoc}"
if [[ ! -x "$evacdoc" ]]; then
    nice cargo build --quiet --bin evacdoc
fi

pass=0
fail=0
port=28100
for s in "${scenarios[@]}"; do
    out="$root/target/realstack/out/$s"
    echo "== realstack: $s"
    ok=1
    if ! nice "$venv/bin/python" "$here/scenario.py" "$s" "$out" --port-base "$port"; then
        echo "realstack $s: the scenario did not run as designed (see $out/work/)"
        ok=0
    fi
    if [[ -f "$out/ground_truth.json" ]]; then
        if "$evacdoc" analyze --format json "$out/bundle" > "$out/analysis.json"; then
            watch=()
            [[ -f "$out/watch.jsonl" ]] && watch=("$out/watch.jsonl")
            python3 "$here/compare.py" "$out/ground_truth.json" "$out/analysis.json" "${watch[@]}" || ok=0
        else
            echo "realstack $s: evacdoc analyze failed"
            ok=0
        fi
    else
        ok=0
    fi
    if [[ $ok == 1 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    port=$((port + 10))
done
echo "realstack: $pass passed, $fail failed"
[[ $fail == 0 ]]
