#!/usr/bin/env bash
# `evacdoc serve` on a generated bundle packed as .tar.xz, in one run: upload-to-findings
# time beside `xz -dc bundle.tar.xz > /dev/null`, search-index build throughput, index size
# as a share of the input, search latency (median, p99) over 1,000 mixed field + text
# queries, and the server's peak memory during all of it.
#
#   scripts/bench_serve.sh [SIZE]      SIZE: 100M, 1G (default)
#   EVACDOC=path                       the binary (default: a release build of this tree)
#   BUNDLE=path                        an existing bundle (e.g. a bench.sh mix,
#                                      target/bench-bundle-cloud2-kolla-1G) instead of the
#                                      generated one; packed once into <path>.tar.xz
#
# The bundle (scripts/gen_bundle.py, sosreport layout, every service, DEBUG) is generated
# once into target/bench-bundle-serve-<SIZE> and packed into <that>.tar.xz.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${1:-1G}
die() { echo "bench_serve: $*" >&2; exit 1; }
note() { echo "bench_serve: $*" >&2; }
command -v xz >/dev/null || die "needs xz"
command -v curl >/dev/null || die "needs curl"

if [[ -z "${EVACDOC:-}" ]]; then
    (cd "$ROOT" && cargo build --release --quiet --bin evacdoc) || die "cargo build failed"
    EVACDOC="${CARGO_TARGET_DIR:-$ROOT/target}/release/evacdoc"
fi
GIVEN=${BUNDLE:-}
BUNDLE=${GIVEN:-"$ROOT/target/bench-bundle-serve-$SIZE"}
BUNDLE=${BUNDLE%/}
ARCHIVE="$BUNDLE.tar.xz"
if [[ -n "$GIVEN" ]]; then
    [[ -f "$BUNDLE/ground_truth.json" ]] || die "BUNDLE=$BUNDLE has no ground_truth.json"
elif [[ ! -f "$BUNDLE/ground_truth.json" ]]; then
    note "generating $SIZE into $BUNDLE"
    python3 "$ROOT/scripts/gen_bundle.py" --size "$SIZE" --out "$BUNDLE" --force -q \
        --seed 29 --layout sosreport --debug all --services all --instances 100 \
        --failures hard --captures || die "gen_bundle.py failed"
    rm -f "$ARCHIVE"
fi
if [[ ! -f "$ARCHIVE" ]]; then
    note "packing $ARCHIVE (xz -6 -T2)"
    tar -C "$BUNDLE" --exclude ground_truth.json -cf - . | xz -6 -T2 > "$ARCHIVE"
fi
input_bytes=$(du -sb --apparent-size "$BUNDLE" | cut -f1)
archive_bytes=$(stat -c %s "$ARCHIVE")

now() { date +%s.%N; }
# CPU seconds the server used so far (user + system).
cpu_now() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$PID/stat"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

TIMEFORMAT='%R %U %S'
read -r xz_s xz_u xz_sys < <({ time xz -dc "$ARCHIVE" > /dev/null; } 2>&1)
xz_cpu=$(awk -v u="$xz_u" -v s="$xz_sys" 'BEGIN { printf "%.2f", u + s }')

DATA=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$DATA"' EXIT
TOKEN=bench-token-$RANDOM$RANDOM
EVACDOC_TOKEN=$TOKEN "$EVACDOC" serve --listen 127.0.0.1:0 --data "$DATA/data" --jobs 1 \
    2> "$DATA/serve.log" &
PID=$!
for _ in $(seq 100); do
    grep -q "serving on" "$DATA/serve.log" 2>/dev/null && break
    sleep 0.1
done
BASE=$(sed -n 's/^evacdoc: serving on \(http:\/\/[^/]*\)\/.*/\1/p' "$DATA/serve.log")
[[ -n "$BASE" ]] || die "the server did not start: $(cat "$DATA/serve.log")"
api() { curl -sf -H "Authorization: Bearer $TOKEN" "$BASE$1"; }
field() { python3 -c "import json,sys; v=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

t_up=$(now)
ID=$(curl -sf -H "Authorization: Bearer $TOKEN" -H 'content-type: application/octet-stream' \
    --data-binary @"$ARCHIVE" "$BASE/api/v1/analyses?name=$(basename "$ARCHIVE")" | field 'v["id"]')
t_uploaded=$(now)
# Polled every 50 ms from one process (a shell loop starting curl and python per poll
# measured a few hundred ms late); CPU seconds read from /proc at each moment.
read -r t_findings cpu_findings t_index cpu_index < <(python3 - "$BASE" "$TOKEN" "$ID" "$PID" <<'EOF_POLL'
import http.client, json, os, sys, time
base, token, aid, pid = sys.argv[1:5]
hz = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return f"{(int(f[11]) + int(f[12])) / hz:.2f}"
conn = http.client.HTTPConnection(base.replace("http://", ""))
found = None
while True:
    conn.request("GET", f"/api/v1/analyses/{aid}", headers={"Authorization": f"Bearer {token}"})
    v = json.loads(conn.getresponse().read())
    if v["status"] == "failed":
        sys.exit(f"analysis failed: {v.get('error')}")
    if v["status"] == "done" and found is None:
        found = (f"{time.time():.3f}", cpu())
    if found and v["index"]["state"] in ("done", "failed"):
        print(*found, f"{time.time():.3f}", cpu())
        break
    time.sleep(0.05)
EOF_POLL
)
[[ -n "$t_index" ]] || die "the analysis did not finish"
view=$(api "/api/v1/analyses/$ID")
findings=$(api "/api/v1/analyses/$ID/findings" | field 'len(v)')
log_bytes=$(field 'v["result"]["stats"]["bytes"]' <<< "$view")
index_dir="$DATA/data/analyses/$ID/index"
index_bytes=$(du -sb "$index_dir" | cut -f1)

# Search latency: 1,000 mixed queries on one keep-alive connection.
python3 - "$BASE" "$TOKEN" "$ID" "$BUNDLE/ground_truth.json" > "$DATA/latency.txt" <<'EOF_PY'
import http.client, json, random, sys, time, urllib.parse
base, token, aid, truth_path = sys.argv[1:5]
truth = json.load(open(truth_path))
random.seed(7)
instances = [i for r in truth.get("recoveries", []) for i in r.get("instances", [])][:200] or ["00000000-0000-0000-0000-000000000000"]
hosts = [h.get("name", "") for h in truth.get("hosts", []) if h.get("name")] or ["cmp1"]
templates = [
    lambda: f"instance:{random.choice(instances)}",
    lambda: f"instance:{random.choice(instances)} AND level:WARNING",
    lambda: "level:ERROR",
    lambda: "\"still in use\"",
    lambda: "service:nova-api AND evacuate",
    lambda: f"host:{random.choice(hosts).split('.')[0]} AND level:ERROR",
    lambda: "evacuate AND \"Compute service\"",
    lambda: "notification AND finished",
    lambda: f"{random.choice(instances)} rebuild",
    lambda: "service:masakari-engine AND Sleeping",
]
conn = http.client.HTTPConnection(base.replace("http://", ""))
times = []
for n in range(1000):
    q = random.choice(templates)()
    page = random.choice([1, 1, 1, 2])
    url = f"/api/v1/analyses/{aid}/search?" + urllib.parse.urlencode({"q": q, "page": page})
    t = time.perf_counter()
    conn.request("GET", url, headers={"Authorization": f"Bearer {token}"})
    r = conn.getresponse(); r.read()
    times.append((time.perf_counter() - t) * 1000)
    if r.status != 200:
        print(f"query {q!r}: status {r.status}", file=sys.stderr)
times.sort()
print(f"{times[len(times)//2]:.2f} {times[int(len(times)*0.99)]:.2f} {times[-1]:.2f}")
EOF_PY
read -r p50 p99 pmax < "$DATA/latency.txt"
rss_mb=$(awk '/VmHWM/ { printf "%d", $2 / 1024 }' "/proc/$PID/status")
cpu_s=$(cpu_now)

findings_s=$(secs "$t_up" "$t_findings")
upload_s=$(secs "$t_up" "$t_uploaded")
index_s=$(secs "$t_uploaded" "$t_index")
build_s=$(secs "$t_findings" "$t_index")
printf 'bundle: %s, %d MiB of logs, %d MiB as .tar.xz; %s findings\n' "$SIZE" \
    $((input_bytes / 1048576)) $((archive_bytes / 1048576)) "$findings"
printf '%-44s %10s\n' "measure" "value"
printf '%-44s %10s\n' "xz -dc bundle.tar.xz > /dev/null (s)" "$xz_s"
printf '%-44s %10s\n' "  its CPU (s)" "$xz_cpu"
printf '%-44s %10s\n' "upload (s)" "$upload_s"
printf '%-44s %10s\n' "upload start to findings (s)" "$findings_s"
printf '%-44s %10s\n' "  ratio to xz -dc (goal <= 1.5)" "$(awk -v a="$findings_s" -v b="$xz_s" 'BEGIN { printf "%.2f", a / b }')"
printf '%-44s %10s\n' "upload end to index done (s)" "$index_s"
printf '%-44s %10s\n' "index throughput (MB/s of log, goal >= 50)" "$(awk -v b="$log_bytes" -v s="$index_s" 'BEGIN { printf "%.1f", b / 1e6 / s }')"
printf '%-44s %10s\n' "  findings to index done (s)" "$build_s"
printf '%-44s %10s\n' "  index build alone (MB/s of log)" "$(awk -v b="$log_bytes" -v s="$build_s" 'BEGIN { printf "%.1f", b / 1e6 / s }')"
printf '%-44s %10s\n' "index size (% of log bytes)" "$(awk -v i="$index_bytes" -v b="$log_bytes" 'BEGIN { printf "%.1f", 100 * i / b }')"
printf '%-44s %10s\n' "search p50 / p99 / max (ms, goal p99 <= 50)" "$p50 / $p99 / $pmax"
printf '%-44s %10s\n' "server peak RSS (MB, goal <= 512)" "$rss_mb"
printf '%-44s %10s\n' "server CPU to findings / to index / all (s)" "$cpu_findings / $cpu_index / $cpu_s"
printf '%-44s %10s\n' "load average at the end" "$(cut -d' ' -f1-3 /proc/loadavg)"
