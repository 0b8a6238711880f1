#!/bin/sh
# The README's demo "watch → remediate against the simulator", run start to end and
# checked: the simulator plays Masakari's flow racing Nova on compute-1; `evacdoc watch`
# with samples/watch/remediate-sim.toml finds the race and remediates it; then the same
# with the service (`serve --watch`, the remediation asked for over the API, its progress
# followed as server-sent events). Exits non-zero when a step does not give what it should.
#
#     scripts/demo_watch_remediate.sh        (builds the debug binary first)
set -eu
cd "$(dirname "$0")/.."
cargo build >&2
evacdoc="${CARGO_TARGET_DIR:-target}/debug/evacdoc"
work=$(mktemp -d)
export OS_CLIENT_CONFIG_FILE="$work/clouds.yaml" EVACDOC_TOKEN=demo-token
pids=""
trap 'kill $pids 2>/dev/null || true; rm -rf "$work"' EXIT

sim() {
    rm -rf "$work/sim-logs"
    "$evacdoc" sim --scenario samples/sim/evacuate-race.toml --listen 127.0.0.1:5050 \
        --log-dir "$work/sim-logs" --clouds-yaml "$work/clouds.yaml" \
        --masakari compute-1 --masakari-wait 2 >"$work/sim.out" 2>"$work/sim.err" &
    sim_pid=$!
    pids="$pids $sim_pid"
    # Masakari's flow: 2 s of waiting, then its evacuations fail.
    for _ in $(seq 1 100); do
        grep -q "left on compute-1" "$work/sim.err" 2>/dev/null && break
        sleep 0.2
    done
    cat "$work/sim.err" >&2
}

left_on_compute_1() {
    "$evacdoc" recover host compute-1 --cloud evacdoc-sim --format json |
        python3 -c 'import json,sys; print(len(json.load(sys.stdin)["moves"]))'
}

echo "== 1. evacdoc watch --policy" >&2
sim
timeout 60 "$evacdoc" watch "$work/sim-logs" --from-start \
    --policy samples/watch/remediate-sim.toml --data "$work/data" 2>"$work/watch.err" &
watch_pid=$!
pids="$pids $watch_pid"
for _ in $(seq 1 150); do
    grep -q "remediate .*: applied\|remediate .*: failed" "$work/watch.err" && break
    sleep 0.2
done
cat "$work/watch.err" >&2
grep -q "remediate evacuate-400-race:.*: applied" "$work/watch.err"
test "$(left_on_compute_1)" = 0
kill "$watch_pid" "$sim_pid"
wait "$sim_pid" 2>/dev/null || true

echo "== 2. evacdoc serve --watch, remediation over the API" >&2
sim
"$evacdoc" serve --listen 127.0.0.1:8088 --data "$work/data2" --cloud evacdoc-sim \
    --watch "$work/sim-logs" --watch-from-start 2>"$work/serve.err" &
pids="$pids $!"
api=http://127.0.0.1:8088/api/v1
auth="Authorization: Bearer $EVACDOC_TOKEN"
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:8088/healthz" >/dev/null && break; sleep 0.2; done
timeout 5 curl -sN -H "$auth" "$api/watch/events" >"$work/watch.sse" || true
grep -q '^event: finding' "$work/watch.sse"
tar czf "$work/sim-logs.tar.gz" -C "$work" sim-logs
id=$(curl -sf -H "$auth" --data-binary @"$work/sim-logs.tar.gz" "$api/analyses?name=sim-logs.tar.gz" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
for _ in $(seq 1 100); do
    curl -sf -H "$auth" "$api/analyses/$id" | grep -q '"status":"done"' && break
    sleep 0.2
done
finding=$(curl -sf -H "$auth" "$api/analyses/$id/findings" |
    python3 -c 'import json,sys; print([f["id"] for f in json.load(sys.stdin) if f["detector"] == "evacuate-400-race"][0])')
route="$api/analyses/$id/findings/$finding/remediation"
curl -sf -H "$auth" -H 'content-type: application/json' -d '{"host_fenced": true}' "$route" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("plan:", d["status"], len(d["plan"]), "calls")' >&2
curl -sf -H "$auth" -H 'content-type: application/json' \
    -d "{\"apply\": true, \"host_fenced\": true, \"confirm\": \"$finding\"}" "$route" >"$work/started.json"
cat "$work/started.json" >&2; echo >&2
events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$work/started.json")
timeout 60 curl -sN -H "$auth" "http://127.0.0.1:8088$events" >"$work/recovery.sse"
tail -n 3 "$work/recovery.sse" >&2
grep -q '"event":"end".*"status":"finished"' "$work/recovery.sse"
test "$(left_on_compute_1)" = 0
echo "demo: both ways, the race was found and its instances brought back" >&2
