#!/usr/bin/env bash
# A bounded load test of `evacdoc serve` on loopback: CLIENTS concurrent clients mixing
# searches, timelines and share views on an analysed bundle, plus UPLOADS concurrent
# uploads, for SECONDS; prints requests, errors, p50/p99 per kind, uploads refused as busy
# (429/503 with Retry-After) and the server's peak RSS. Exits 1 on any error.
#
#   scripts/load_test.sh [SIZE]        SIZE: 20M (default), 100M, 1G
#   SECONDS_=30 CLIENTS=50 UPLOADS=4   the run
#   EVACDOC=path LOAD=path             the server and client binaries (default: release
#                                      builds of this tree)
#
# The bundle (scripts/gen_bundle.py) is generated once into target/load-bundle-<SIZE>
# and packed as .tar.gz; the uploads post a small sample scenario again and again.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${1:-20M}
RUN_SECONDS=${SECONDS_:-30}
CLIENTS=${CLIENTS:-50}
UPLOADS=${UPLOADS:-4}
die() { echo "load_test: $*" >&2; exit 1; }
note() { echo "load_test: $*" >&2; }
command -v curl >/dev/null || die "needs curl"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ -z "${EVACDOC:-}" || -z "${LOAD:-}" ]]; then
    (cd "$ROOT" && cargo build --release --quiet --bin evacdoc --example load_test) \
        || die "cargo build failed"
    EVACDOC=${EVACDOC:-$TARGET/release/evacdoc}
    LOAD=${LOAD:-$TARGET/release/examples/load_test}
fi
BUNDLE="$TARGET/load-bundle-$SIZE"
ARCHIVE="$BUNDLE.tar.gz"
if [[ ! -f "$BUNDLE/ground_truth.json" ]]; then
    note "generating $SIZE into $BUNDLE"
    python3 "$ROOT/scripts/gen_bundle.py" --size "$SIZE" --out "$BUNDLE" --force -q --seed 31 \
        || die "gen_bundle.py failed"
    rm -f "$ARCHIVE"
fi
if [[ ! -f "$ARCHIVE" ]]; then
    note "packing $ARCHIVE"
    tar -C "$BUNDLE" --exclude ground_truth.json -czf "$ARCHIVE" .
fi

DATA=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$DATA"' EXIT
tar -C "$ROOT/samples/scenarios" -czf "$DATA/small.tar.gz" 2020-juju-evacuate-race
TOKEN=load-token-$RANDOM$RANDOM
# Every client comes from 127.0.0.1: the per-address limit of share links is lifted.
EVACDOC_TOKEN=$TOKEN "$EVACDOC" serve --listen 127.0.0.1:0 --data "$DATA/data" --jobs 1 \
    --share-burst 1000000 --share-rate 1000000 2> "$DATA/serve.log" &
PID=$!
for _ in $(seq 100); do
    grep -q "serving on" "$DATA/serve.log" 2>/dev/null && break
    sleep 0.1
done
BASE=$(sed -n 's/^evacdoc: serving on \(http:\/\/[^/]*\)\/.*/\1/p' "$DATA/serve.log")
[[ -n "$BASE" ]] || die "the server did not start: $(cat "$DATA/serve.log")"
api() { curl -sf -H "Authorization: Bearer $TOKEN" "$@"; }
field() { python3 -c "import json,sys; v=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

note "uploading $(du -h "$ARCHIVE" | cut -f1) and waiting for its analysis and index"
ID=$(api -H 'content-type: application/octet-stream' --data-binary @"$ARCHIVE" \
    "$BASE/api/v1/analyses?name=$(basename "$ARCHIVE")" | field 'v["id"]')
while :; do
    view=$(api "$BASE/api/v1/analyses/$ID")
    status=$(field 'v["status"]' <<< "$view")
    index=$(field 'v["index"]["state"]' <<< "$view")
    [[ "$status" == failed ]] && die "analysis failed: $(field 'v["error"]' <<< "$view")"
    [[ "$status" == done && ( "$index" == done || "$index" == failed ) ]] && break
    sleep 0.5
done
SHARE=$(api -H 'content-type: application/json' -d '{"scope": {"kind": "analysis"}}' \
    "$BASE/api/v1/analyses/$ID/shares" | field 'v["url"].rstrip("/").rsplit("/", 1)[-1]')
INSTANCES=$(python3 - "$BUNDLE/ground_truth.json" <<'EOF_PY'
import json, sys
truth = json.load(open(sys.argv[1]))
ids = [i for r in truth.get("recoveries", []) for i in r.get("instances", [])]
print(",".join(str(i) for i in ids[:50]))
EOF_PY
)
HOSTS=$(field '",".join(h["hostname"] for h in v["result"]["analysis"]["hosts"])' <<< "$view")
note "$CLIENTS clients and $UPLOADS uploaders for $RUN_SECONDS s"
status=0
"$LOAD" --base "$BASE" --token "$TOKEN" --analysis "$ID" --share "$SHARE" \
    --upload "$DATA/small.tar.gz" --instances "$INSTANCES" --hosts "$HOSTS" \
    --clients "$CLIENTS" --uploads "$UPLOADS" --seconds "$RUN_SECONDS" --pid "$PID" || status=$?
curl -sf "$BASE/healthz" >/dev/null || die "the server no longer answers /healthz"
exit $status
