#!/usr/bin/env bash
# Benchmark evacdoc on a generated juju-crashdump-like bundle and compare it with
# simple anchors (ripgrep, zcat, lnav, os-log-merger) over the same input.
#
#   scripts/bench.sh [SIZE]        SIZE: 20M, 100M, 1G (default), 4G ...
#   RUNS=5 scripts/bench.sh 1G     runs per measurement (default 3; the median is shown)
#   SMOKE=1 scripts/bench.sh       CI smoke run: 20M bundle, 1 run
#
# Steps: cargo build --release; generate the bundle once into target/bench-bundle-<SIZE>
# (scripts/gen_bundle.py, reused if its ground_truth.json exists); then measure with
# /usr/bin/time -f '%e %U %S %M' (Debian package `time`):
#   evacdoc full run     `evacdoc analyze BUNDLE` if `evacdoc analyze --help` works,
#                        else `evacdoc timeline BUNDLE --host <failed host of recovery 0>`
#                        (timeline parses and correlates the whole bundle first)
#   evacdoc timeline     `evacdoc timeline BUNDLE --instance <an instance of recovery 0>`
#   anchors, when installed:
#     rg -a -c -z <evacuate request id of recovery 0> BUNDLE   (-a: the logs hold latin-1 bytes)
#     zcat of all .gz files to /dev/null
#     lnav -n -r BUNDLE (load everything, headless)
#     os-log-merger over the masakari and nova logs (plain files only)
# Output: a table (median wall s, CPU s = user+sys, peak RSS MB, MB/s of uncompressed
# input, evacdoc full run / anchor ratio) and the bundle's size, .gz share, files, lines.
# Results are also written to target/bench-results-<SIZE>.txt.
set -euo pipefail

die() { echo "bench: error: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE=${1:-1G}
RUNS=${RUNS:-3}
if [[ "${SMOKE:-0}" == 1 ]]; then
    SIZE=20M
    RUNS=1
fi
[[ "$SIZE" =~ ^[0-9]+(\.[0-9]+)?[KMGTkmgt]?$ ]] || die "SIZE must look like 20M, 100M, 1G, 4G (got '$SIZE')"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"

TIME=/usr/bin/time
[[ -x $TIME ]] || die "$TIME not found: install the Debian package 'time' (apt-get install -y time)"
$TIME -f '%e' true 2>/dev/null || die "$TIME does not accept -f: GNU time is needed (Debian package 'time')"
command -v python3 >/dev/null || die "python3 is needed to generate the bundle"
command -v cargo >/dev/null || die "cargo is needed to build evacdoc"

cd "$ROOT"
note "building: cargo build --release"
cargo build --release --quiet || die "cargo build --release failed"
EVACDOC="$ROOT/target/release/evacdoc"
[[ -x "$EVACDOC" ]] || die "$EVACDOC missing after the build"

BUNDLE="$ROOT/target/bench-bundle-$SIZE"
STATS="$ROOT/target/bench-bundle-$SIZE.stats"
OUT="$ROOT/target/bench-out-$SIZE"
RESULTS="$ROOT/target/bench-results-$SIZE.txt"
mkdir -p "$OUT"
GEN_NOTE="reused"
if [[ ! -f "$BUNDLE/ground_truth.json" ]]; then
    rm -f "$STATS"
    note "generating a $SIZE bundle into $BUNDLE"
    t0=$(date +%s.%N)
    python3 "$ROOT/scripts/gen_bundle.py" --size "$SIZE" --out "$BUNDLE" --force \
        || die "gen_bundle.py failed"
    t1=$(date +%s.%N)
    GEN_NOTE=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "generated in %.1f s", b - a }')
fi

# Bundle facts (cached next to the bundle, outside it): uncompressed bytes, gz bytes,
# files, lines; and the ids the measurements use, from ground_truth.json.
if [[ ! -f "$STATS" ]]; then
    note "measuring the bundle (uncompressed size, lines)"
    python3 - "$BUNDLE" > "$STATS" <<'EOF'
import gzip, os, sys
root = sys.argv[1]
tot = gz = files = lines = 0
for d, _, fs in os.walk(root):
    for f in fs:
        p = os.path.join(d, f)
        if os.path.islink(p) or f == "ground_truth.json":
            continue
        files += 1
        op = gzip.open if f.endswith(".gz") else open
        with op(p, "rb") as fh:
            while True:
                b = fh.read(1 << 22)
                if not b:
                    break
                tot += len(b)
                lines += b.count(b"\n")
                if f.endswith(".gz"):
                    gz += len(b)
print(tot, gz, files, lines)
EOF
fi
read -r BYTES GZBYTES FILES LINES < "$STATS"

read -r FAILED_HOST INSTANCE REQ EXPECTED < <(python3 - "$BUNDLE/ground_truth.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
r = t[0]
inst = r["instances"][0]
reqs = [q for v in r["evacuate_request_ids"].values() for q in v]
print(r["failed_host"], inst, reqs[0] if reqs else r["masakari_api_request_id"], r["expected"])
EOF
)
[[ -n "${REQ:-}" ]] || die "could not read recovery 0 from $BUNDLE/ground_truth.json"

if "$EVACDOC" analyze --help >/dev/null 2>&1; then
    FULL_NAME="evacdoc analyze"
    FULL_CMD=("$EVACDOC" analyze "$BUNDLE")
else
    FULL_NAME="evacdoc timeline --host"
    FULL_CMD=("$EVACDOC" timeline "$BUNDLE" --host "$FAILED_HOST")
fi

# measure NAME OK_CODES CMD...: RUNS runs; stores "wall cpu rss_mb status" in RES[NAME]
declare -A RES
ORDER=()
measure() {
    local name=$1 ok=$2
    shift 2
    local walls=() cpus=() rss=0 status=ok i rc slug
    slug=$(echo "$name" | tr -c 'A-Za-z0-9\n' '_')
    note "measuring: $name ($RUNS run(s)): $*"
    for ((i = 1; i <= RUNS; i++)); do
        rc=0
        $TIME -f '%e %U %S %M' -o "$OUT/$slug.time" "$@" > "$OUT/$slug.out" 2> "$OUT/$slug.err" || rc=$?
        if [[ " $ok " != *" $rc "* ]]; then
            status="FAILED(rc=$rc)"
            note "  $name failed with exit code $rc; stderr (last lines):"
            tail -n 5 "$OUT/$slug.err" | sed 's/^/    /' >&2
        fi
        # GNU time appends "Command exited with non-zero status N" before the figures.
        read -r w u s m < <(tail -n 1 "$OUT/$slug.time")
        walls+=("$w")
        cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
        ((m > rss)) && rss=$m
        note "  run $i: wall ${w}s cpu $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')s rss $((m / 1024))MB rc=$rc"
    done
    local mw mc
    mw=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    mc=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    RES[$name]="$mw $mc $(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }') $status $(wc -l < "$OUT/$slug.out")"
    ORDER+=("$name")
}

measure "$FULL_NAME" "0" "${FULL_CMD[@]}"
measure "evacdoc timeline --instance" "0" "$EVACDOC" timeline "$BUNDLE" --instance "$INSTANCE"

ANCHORS=()
if command -v rg >/dev/null; then
    measure "rg -a -c -z" "0 1" rg -a -c -z "$REQ" "$BUNDLE"
    ANCHORS+=("rg -a -c -z")
else
    note "ripgrep not installed (cargo install ripgrep): skipping the rg anchor"
fi
if command -v zcat >/dev/null; then
    measure "zcat *.gz" "0" bash -c 'find "$1" -name "*.gz" -type f -exec cat {} + | zcat > /dev/null' _ "$BUNDLE"
    ANCHORS+=("zcat *.gz")
fi
if command -v lnav >/dev/null; then
    measure "lnav -n" "0" lnav -n -r "$BUNDLE"
    ANCHORS+=("lnav -n")
else
    note "lnav not installed: skipping the lnav anchor"
fi
if command -v os-log-merger >/dev/null; then
    mapfile -t OLM_FILES < <(find "$BUNDLE" -type f \( -path '*masakari*' -o -path '*nova*' \) -name '*.log*' ! -name '*.gz' | sort)
    measure "os-log-merger" "0" os-log-merger "${OLM_FILES[@]}"
    ANCHORS+=("os-log-merger")
else
    note "os-log-merger not installed: skipping it"
fi

# ---- report
{
    echo
    echo "evacdoc bench, bundle $BUNDLE ($GEN_NOTE)"
    awk -v b="$BYTES" -v g="$GZBYTES" -v f="$FILES" -v l="$LINES" 'BEGIN {
        printf "input: %.1f MiB uncompressed (%.1f MB), %.1f%% in .gz rotations, %d files, %d lines\n", b / 1048576, b / 1e6, 100 * g / b, f, l }'
    echo "recovery 0: expected=$EXPECTED failed host $FAILED_HOST, instance $INSTANCE, request $REQ; runs per row: $RUNS (median)"
    echo "machine: $(nproc) cores, $(uname -sr)"
    echo
    read -r fw _ <<< "${RES[$FULL_NAME]}"
    printf '%-30s %10s %8s %12s %8s %14s  %s\n' "tool" "wall s" "CPU s" "peak RSS MB" "MB/s" "evacdoc/anchor" "status (output lines)"
    for name in "${ORDER[@]}"; do
        read -r w c r st ol <<< "${RES[$name]}"
        ratio="-"
        for a in "${ANCHORS[@]}"; do
            if [[ "$a" == "$name" ]]; then
                ratio=$(awk -v a="$fw" -v b="$w" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
            fi
        done
        mbs=$(awk -v b="$BYTES" -v w="$w" 'BEGIN { if (w > 0) printf "%.0f", b / 1e6 / w; else print "-" }')
        printf '%-30s %10s %8s %12s %8s %14s  %s\n' "$name" "$w" "$c" "$r" "$mbs" "$ratio" "$st ($ol)"
    done
    echo
    echo "MB/s: uncompressed input bytes of the whole bundle / median wall time (zcat row: same base, it reads only the .gz third)."
    echo "evacdoc/anchor: wall time of '$FULL_NAME' divided by the anchor's."
} | tee "$RESULTS"

# ---- answers: speed never at the price of findings. Every failed recovery of the
# ground truth must be found by its detector, and no healthy one may be flagged.
if [[ "$FULL_NAME" == "evacdoc analyze" ]]; then
    "$EVACDOC" analyze "$BUNDLE" --format json > "$OUT/ground_truth_check.json"
    python3 - "$BUNDLE/ground_truth.json" "$OUT/ground_truth_check.json" <<'EOF_PY' | tee -a "$RESULTS"
import json, sys
truth = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
classes = {"evacuate-400-race", "pending-after-finished", "bfv-evacuation-delay"}
found = {(f["notification_id"], f["detector"]) for f in doc["findings"] if f["detector"] in classes}
ok, bad = 0, []
for r in truth:
    n, want = r["notification_id"], r["expected"]
    got = {d for (m, d) in found if m == n}
    expected = set() if want == "healthy" else {want}
    if got == expected:
        ok += 1
    else:
        bad.append(f"{n}: expected {sorted(expected) or 'nothing'}, found {sorted(got) or 'nothing'}")
extra = [f for f in found if f[0] not in {r["notification_id"] for r in truth}]
print(f"ground truth: {ok}/{len(truth)} recoveries diagnosed as expected, {len(extra)} findings on unknown notifications")
for line in bad:
    print("  MISMATCH " + line)
sys.exit(0 if ok == len(truth) and not extra else 1)
EOF_PY
fi
