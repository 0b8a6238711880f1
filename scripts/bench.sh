#!/usr/bin/env bash
# Benchmark evacdoc on generated bundles of several mixes, beside simple anchors over the
# same input in the same run, and check its answers against each bundle's ground truth.
#
#   scripts/bench.sh [SIZE]          SIZE: 20M, 100M, 1G (default), 4G ...
#   MIXES="default k8s" scripts/bench.sh 1G   only these mixes (default: all, see below)
#   RUNS=3 scripts/bench.sh 1G       runs per measurement (default 1; the median is shown)
#   BIG=1 scripts/bench.sh           also the `big` mix at 10G (MIXES=big: that one alone)
#   CHECK=report scripts/bench.sh    print ground-truth mismatches without failing
#   EVACDOC=path scripts/bench.sh    measure that binary instead of building this tree's
#   SMOKE=1 scripts/bench.sh         CI smoke run: 20M bundles, 1 run; every mix is
#                                    checked strictly; the debug build the tests made is
#                                    run (times are not comparable: answers are the point,
#                                    and CI saves the ten minutes of a release build)
#
# Mixes (scripts/gen_bundle.py options, a seed of their own so that ids, oslo.log eras and
# failure placement differ too; each bundle is generated once into
# target/bench-bundle-<mix>-<SIZE> and reused while its ground_truth.json exists):
#   default    the generator's default: juju-crashdump tree with juju_status.yaml, INFO/DEBUG mix
#   debug-all  --debug all --services all (3 control planes, every service on every host)
#   nostatus   juju tree without juju_status.yaml, containers N/lxd/0.., DEBUG everywhere, 100+
#              instances per failed host, overlapping recoveries, hard failure forms, hosts in
#              4 time zones, known clock offsets (+95 s, -4 s, +600 s)
#   sosreport  one sosreport per host (names ending in -01 ..), 100+ instances, hard failures,
#              `notification show` captures, sos journal copies,
#              2 time zones, known clock offsets
#   kolla      /var/log/kolla/<service>/ (Apache %D access format), DEBUG everywhere, overlapping
#              recoveries, `notification show` captures, 2 time zones, clock offsets
#   k8s        CRI pod logs var/log/pods/<ns>_<pod>_<uid>/<container>/0.log, every service,
#              100+ instances, hard failures, clock offsets
#   kubectl    the k8s tree with the pods' files as `kubectl logs` shows them (--prefix and/or
#              --timestamps, and --timestamps over pebble, in turn), overlapping recoveries,
#              hard failures, clock offsets
#   big        (BIG=1, 10G) the nostatus mix at 10 GiB
# Mixes of the second generator, scripts/gen_cloud.py (written apart from gen_bundle.py:
# other host names and layouts, 1000s of ignored notifications, Apache/eventlet nova-api,
# Keystone and Cinder logs, its own story of each failure class):
#   cloud2-sos     a sosreport per host, 5000 ignored notifications, offsets (+95 s), zones, rotations,
#                  each host's oslo.log time its own (default, a `T` log_date_format, %(isotime)s),
#                  every third host's services only in sos's whole journal (interleaved)
#   cloud2-kolla   Kolla paths, pre-Zed contexts (no global ids, `host_statusis`), DEBUG, offsets
#   cloud2-tripleo TripleO container paths, DEBUG, rotations, 40 computes of 30 instances
#   cloud2-devstack an upstream CI job's DevStack logs (`logs/screen-<unit>.txt`: journal lines
#                  without a year over oslo.log lines without their own time), DEBUG, offsets, zones
# Per mix: `evacdoc analyze BUNDLE --format json` and `rg -a -c -z <an evacuate request id>`
# are measured with /usr/bin/time -f '%e %U %S %M' (Debian package `time`); the default mix
# also measures `evacdoc timeline --instance`, zcat, lnav and os-log-merger when installed.
# Table: wall s, CPU s (user+sys), peak RSS MB, MB/s of uncompressed input, evacdoc/rg ratio.
# Then scripts/check_truth.py compares the JSON with ground_truth.json (findings per
# notification, their instances, host count and names, clock offsets evacdoc reports).
# Results: target/bench-results-<SIZE>.txt.
set -euo pipefail

die() { echo "bench: error: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE=${1:-1G}
RUNS=${RUNS:-1}
CHECK=${CHECK:-strict}
ALL_MIXES="default debug-all nostatus sosreport kolla k8s kubectl cloud2-sos cloud2-kolla cloud2-tripleo cloud2-devstack"
MIXES=${MIXES:-$ALL_MIXES}
# Mixes whose misses are reported without failing the run (none now; set it to
# investigate a new mix without stopping CI).
REPORT_ONLY_MIXES=${REPORT_ONLY_MIXES:-}
if [[ "${SMOKE:-0}" == 1 ]]; then
    SIZE=20M
    RUNS=1
    # every mix is checked strictly (REPORT_ONLY_MIXES lists mixes only reported)
fi
[[ "$SIZE" =~ ^[0-9]+(\.[0-9]+)?[KMGTkmgt]?$ ]] || die "SIZE must look like 20M, 100M, 1G, 4G (got '$SIZE')"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
[[ "$CHECK" == strict || "$CHECK" == report ]] || die "CHECK must be strict or report (got '$CHECK')"

TIME=/usr/bin/time
[[ -x $TIME ]] || die "$TIME not found: install the Debian package 'time' (apt-get install -y time)"
$TIME -f '%e' true 2>/dev/null || die "$TIME does not accept -f: GNU time is needed (Debian package 'time')"
command -v python3 >/dev/null || die "python3 is needed to generate the bundle"
command -v cargo >/dev/null || die "cargo is needed to build evacdoc"

cd "$ROOT"
if [[ -n "${EVACDOC:-}" ]]; then
    note "using EVACDOC=$EVACDOC (no build)"
elif [[ "${SMOKE:-0}" == 1 ]]; then
    note "building: cargo build (smoke run: a debug build; its times say nothing of speed)"
    cargo build --quiet || die "cargo build failed"
    EVACDOC="${CARGO_TARGET_DIR:-$ROOT/target}/debug/evacdoc"
else
    note "building: cargo build --release"
    cargo build --release --quiet || die "cargo build --release failed"
    EVACDOC="${CARGO_TARGET_DIR:-$ROOT/target}/release/evacdoc"
fi
[[ -x "$EVACDOC" ]] || die "$EVACDOC missing"

ZONES="UTC,Europe/Berlin,America/New_York,Asia/Kolkata"
SKEWS="ncc-1=95,compute-1=-4,compute-2=600"
mix_args() {
    case "$1" in
        default) echo "" ;;
        debug-all) echo "--seed 11 --debug all --services all" ;;
        nostatus | big) echo "--seed 13 --layout juju-nostatus --debug all --services all --instances 100 --overlap --failures hard --zones $ZONES --skews $SKEWS" ;;
        sosreport) echo "--seed 17 --layout sosreport --services all --controllers 3 --instances 100 --failures hard --captures --zones UTC,Europe/Berlin --skews $SKEWS" ;;
        kolla) echo "--seed 19 --layout kolla --debug all --controllers 3 --overlap --captures --zones UTC,Asia/Kolkata --skews $SKEWS" ;;
        k8s) echo "--seed 23 --layout k8s --services all --instances 100 --failures hard --skews $SKEWS" ;;
        kubectl) echo "--seed 29 --layout k8s --wrap kubectl --services all --overlap --failures hard --skews $SKEWS" ;;
        cloud2-sos) echo "--seed 31 --layout sos --offsets --zones --rotate --ignored 5000 --oslo-time mixed --journal" ;;
        cloud2-kolla) echo "--seed 37 --layout kolla --era pre-zed --debug --offsets --ignored 3000" ;;
        cloud2-tripleo) echo "--seed 41 --layout tripleo --debug --rotate --computes 40 --instances 30 --races 3 --healthy 8" ;;
        cloud2-devstack) echo "--seed 43 --layout devstack --debug --offsets --zones" ;;
        *) die "unknown mix '$1' (mixes: $ALL_MIXES big)" ;;
    esac
}

# Bundles and results live under the checkout's target/ even when CARGO_TARGET_DIR is elsewhere.
mkdir -p "$ROOT/target"
RESULTS="$ROOT/target/bench-results-$SIZE.txt"
CHECKS="$ROOT/target/bench-checks-$SIZE.txt"
: > "$CHECKS"
declare -A RES
ORDER=()
FAILED_MIXES=()

# measure KEY OUTFILE OK_CODES CMD...: RUNS runs; stores "wall cpu rss_mb status lines" in RES[KEY]
measure() {
    local key=$1 outfile=$2 ok=$3
    shift 3
    local walls=() cpus=() rss=0 status=ok i rc slug
    slug=$(echo "$key" | tr -c 'A-Za-z0-9\n' '_')
    note "measuring: $key ($RUNS run(s)): $*"
    for ((i = 1; i <= RUNS; i++)); do
        rc=0
        $TIME -f '%e %U %S %M' -o "$OUT/$slug.time" "$@" > "$outfile" 2> "$OUT/$slug.err" || rc=$?
        if [[ " $ok " != *" $rc "* ]]; then
            status="FAILED(rc=$rc)"
            note "  $key failed with exit code $rc; stderr (last lines):"
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
    RES[$key]="$mw $mc $(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }') $status $(wc -l < "$outfile")"
    ORDER+=("$key")
}

run_mix() {
    local mix=$1 size=$2
    BUNDLE="$ROOT/target/bench-bundle-$mix-$size"
    local stats="$BUNDLE.stats"
    OUT="$ROOT/target/bench-out-$mix-$size"
    mkdir -p "$OUT"
    local gen_note="reused"
    # shellcheck disable=SC2046
    if [[ ! -f "$BUNDLE/ground_truth.json" ]]; then
        rm -f "$stats"
        local t0 t1
        t0=$(date +%s.%N)
        if [[ "$mix" == cloud2-* ]]; then
            note "generating the $mix mix ($size) into $BUNDLE: gen_cloud.py $(mix_args "$mix")"
            python3 "$ROOT/scripts/gen_cloud.py" "$BUNDLE" --size "$size" --force $(mix_args "$mix") \
                || die "gen_cloud.py failed for mix $mix"
        else
            note "generating the $mix mix ($size) into $BUNDLE: gen_bundle.py $(mix_args "$mix")"
            python3 "$ROOT/scripts/gen_bundle.py" --size "$size" --out "$BUNDLE" --force -q $(mix_args "$mix") \
                || die "gen_bundle.py failed for mix $mix"
        fi
        t1=$(date +%s.%N)
        gen_note=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "generated in %.1f s", b - a }')
    fi
    if [[ ! -f "$stats" ]]; then
        python3 - "$BUNDLE" > "$stats" <<'EOF_PY'
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
EOF_PY
    fi
    local bytes gzbytes files lines
    read -r bytes gzbytes files lines < "$stats"
    BYTES[$mix]=$bytes
    local failed_host instance req
    read -r failed_host instance req < <(python3 - "$BUNDLE/ground_truth.json" <<'EOF_PY'
import json, sys
t = json.load(open(sys.argv[1]))
recs = t["recoveries"] if isinstance(t, dict) else t
r = recs[0]
reqs = [q for v in r["evacuate_request_ids"].values() for q in v]
print(r["failed_host"], r["instances"][0], reqs[0] if reqs else r["masakari_api_request_id"])
EOF_PY
)
    [[ -n "${req:-}" ]] || die "could not read recovery 0 from $BUNDLE/ground_truth.json"
    INFO+=("$(awk -v m="$mix" -v s="$size" -v b="$bytes" -v g="$gzbytes" -v f="$files" -v l="$lines" -v n="$gen_note" 'BEGIN {
        printf "%-10s %5s: %8.1f MiB uncompressed, %4.1f%% in .gz, %6d files, %9d lines (%s)", m, s, b / 1048576, 100 * g / b, f, l, n }')")

    # Every tool reads the bundle from the page cache: a first read from disk (after a
    # build evicted it) would be charged to whichever tool came first.
    note "warming the page cache: reading $BUNDLE once (not measured)"
    find "$BUNDLE" -type f -exec cat {} + > /dev/null
    measure "$mix|evacdoc analyze" "$OUT/analysis.json" "0" "$EVACDOC" analyze "$BUNDLE" --format json
    if command -v rg >/dev/null; then
        measure "$mix|rg -a -c -z" "$OUT/rg.out" "0 1" rg -a -c -z "$req" "$BUNDLE"
    else
        note "rg not found (Debian package ripgrep): no rg row and no evacdoc/rg ratio for $mix"
    fi
    if [[ "$mix" == default ]]; then
        measure "$mix|evacdoc timeline --instance" "$OUT/timeline.out" "0" "$EVACDOC" timeline "$BUNDLE" --instance "$instance"
        if command -v zcat >/dev/null; then
            measure "$mix|zcat *.gz" "$OUT/zcat.out" "0" bash -c 'find "$1" -name "*.gz" -type f -exec cat {} + | zcat > /dev/null' _ "$BUNDLE"
        fi
        if command -v lnav >/dev/null; then
            measure "$mix|lnav -n" "$OUT/lnav.out" "0" lnav -n -r "$BUNDLE"
        fi
        if command -v os-log-merger >/dev/null; then
            mapfile -t olm_files < <(find "$BUNDLE" -type f \( -path '*masakari*' -o -path '*nova*' \) -name '*.log*' ! -name '*.gz' | sort)
            measure "$mix|os-log-merger" "$OUT/olm.out" "0" os-log-merger "${olm_files[@]}"
        fi
    fi

    # answers: speed never at the price of findings
    local mode=$CHECK
    [[ " $REPORT_ONLY_MIXES " == *" $mix "* ]] && mode=report
    local rc=0 flag=()
    [[ $mode == report ]] && flag=(--report)
    python3 "$ROOT/scripts/check_truth.py" "$BUNDLE/ground_truth.json" "$OUT/analysis.json" --mix "$mix $size, $mode" "${flag[@]}" >> "$CHECKS" || rc=$?
    ((rc == 0)) || FAILED_MIXES+=("$mix")
}

declare -A BYTES
INFO=()
for mix in $MIXES; do
    if [[ "$mix" == big ]]; then
        run_mix big 10G  # MIXES=big: the 10 GiB bundle alone
    else
        run_mix "$mix" "$SIZE"
    fi
done
if [[ "${BIG:-0}" == 1 && " $MIXES " != *" big "* ]]; then
    run_mix big 10G
fi

# ---- report
{
    echo
    echo "evacdoc bench, $(nproc) cores, $(uname -sr); runs per row: $RUNS (median)"
    printf '%s\n' "${INFO[@]}"
    echo
    printf '%-10s %-28s %8s %8s %12s %7s %10s  %s\n' "mix" "tool" "wall s" "CPU s" "peak RSS MB" "MB/s" "evacdoc/rg" "status (output lines)"
    for key in "${ORDER[@]}"; do
        mix=${key%%|*}
        name=${key#*|}
        read -r w c r st ol <<< "${RES[$key]}"
        ratio="-"
        if [[ "$name" == "rg -a -c -z" ]]; then
            read -r fw _ <<< "${RES[$mix|evacdoc analyze]}"
            ratio=$(awk -v a="$fw" -v b="$w" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
        fi
        mbs=$(awk -v b="${BYTES[$mix]}" -v w="$w" 'BEGIN { if (w > 0) printf "%.0f", b / 1e6 / w; else print "-" }')
        printf '%-10s %-28s %8s %8s %12s %7s %10s  %s\n' "$mix" "$name" "$w" "$c" "$r" "$mbs" "$ratio" "$st ($ol)"
    done
    echo
    echo "MB/s: uncompressed input bytes of the bundle / median wall time (zcat: same base, it reads only the .gz part)."
    echo "evacdoc/rg: wall time of 'evacdoc analyze --format json' divided by rg's on the same bundle."
    echo
    cat "$CHECKS"
} | tee "$RESULTS"

if ((${#FAILED_MIXES[@]})); then
    echo "bench: ground truth mismatches in: ${FAILED_MIXES[*]} (CHECK=report prints them without failing)" >&2
    exit 1
fi
