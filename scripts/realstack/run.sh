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
# REALSTACK_PORT_BASE: the first scenario's ports (default 28100; each next one +10), for
# two runs on one machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

all=(race defaults executor pending bfv blobs rejected forceup noengine duplicate stuck)
scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=("${all[@]}")

older=()
[[ " ${scenarios[*]} " == *" pending "* ]] && older+=(--masakari-21)
[[ " ${scenarios[*]} " == *" stuck "* ]] && older+=(--masakari-14)
bash "$here/setup.sh" "${older[@]}"
venv="$root/target/realstack/venv"
evacdoc="${EVACDOC:-$root/target/debug/evacdoc}"
if [[ ! -x "$evacdoc" ]]; then
    nice cargo build --quiet --bin evacdoc
fi

# The scenarios run at once, each on its own ports (they mostly wait on the services'
# timers), then each bundle is analyzed and compared.
port=${REALSTACK_PORT_BASE:-28100}
pids=()
for s in "${scenarios[@]}"; do
    out="$root/target/realstack/out/$s"
    mkdir -p "$out"
    echo "== realstack: $s started (log: $out.log)"
    EVACDOC="$evacdoc" nice "$venv/bin/python" "$here/scenario.py" "$s" "$out" \
        --port-base "$port" > "$out.log" 2>&1 &
    pids+=($!)
    port=$((port + 10))
done
# Stop the scenarios (each stops what it started) if this script is interrupted.
trap 'kill "${pids[@]}" 2>/dev/null; wait' INT TERM

pass=0
fail=0
i=0
for s in "${scenarios[@]}"; do
    out="$root/target/realstack/out/$s"
    ok=1
    if ! wait "${pids[$i]}"; then
        ok=0
    fi
    i=$((i + 1))
    echo "== realstack: $s"
    cat "$out.log"
    [[ $ok == 1 ]] || echo "realstack $s: the scenario did not run as designed (see $out/work/)"
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
done
echo "realstack: $pass passed, $fail failed"
[[ $fail == 0 ]]
