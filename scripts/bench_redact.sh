#!/usr/bin/env bash
# `evacdoc redact` against `sos clean` on the same sosreport-shaped bundle, in one run:
# wall time, CPU time, peak memory, and which of the bundle's own host names, domain and
# addresses each leaves behind.
#
#   scripts/bench_redact.sh [SIZE]     SIZE: 20M, 100M, 1G (default)
#   SOS=0 scripts/bench_redact.sh      evacdoc only (no `sos clean`)
#   EVACDOC=path                       the binary (default: a release build)
#
# The bundle is scripts/gen_bundle.py's sosreport mix (one sosreport per host), kept in
# target/bench-bundle-redact-<SIZE>. `sos clean` (Debian `sosreport`) takes one sosreport
# at a time, wants a `sos_logs/` folder in it (added), and changes the folder it is given:
# it gets a copy of each report. sos 4.0 reads every file as text: it cannot read the
# rotated `.gz` logs and leaves them as they are (the values they hold count as left).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${1:-1G}
SOS=${SOS:-1}
TIME=/usr/bin/time
die() { echo "bench_redact: $*" >&2; exit 1; }
note() { echo "bench_redact: $*" >&2; }
[[ -x $TIME ]] || die "needs GNU time (/usr/bin/time; Debian package time)"

if [[ -z "${EVACDOC:-}" ]]; then
    (cd "$ROOT" && cargo build --release --quiet --bin evacdoc) || die "cargo build failed"
    EVACDOC="${CARGO_TARGET_DIR:-$ROOT/target}/release/evacdoc"
fi
BUNDLE="$ROOT/target/bench-bundle-redact-$SIZE"
OUT="$ROOT/target/bench-out-redact-$SIZE"
if [[ ! -f "$BUNDLE/ground_truth.json" ]]; then
    note "generating $SIZE into $BUNDLE"
    python3 "$ROOT/scripts/gen_bundle.py" --size "$SIZE" --out "$BUNDLE" --force -q \
        --seed 17 --layout sosreport --services all --controllers 3 --instances 100 \
        --failures hard --captures --zones UTC,Europe/Berlin --skews "" \
        || die "gen_bundle.py failed"
fi
rm -rf "$OUT" && mkdir -p "$OUT"

# The values that must not survive: every host name and domain the ground truth gives
# (short and qualified), and every distinct IPv4 network of the bundle.
python3 - "$BUNDLE" > "$OUT/seeded.txt" <<'EOF_PY'
import gzip, json, os, re, sys
root = sys.argv[1]
truth = json.load(open(os.path.join(root, "ground_truth.json")))
names = set()
for h in truth.get("hosts", []):
    names.add(h.get("name", ""))
    names.update(a for a in h.get("aliases", []) if not a.startswith("sosreport-"))
for r in truth.get("recoveries", []):
    names.add(r.get("failed_host", ""))
values = set()
for n in names:
    name_like = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", n or "") and re.search("[A-Za-z]", n)
    if name_like and n not in ("None", "localhost") and not re.fullmatch(r"[0-9a-f-]{36}", n):
        values.add(n.split(".")[0])
        if "." in n:
            values.add(n.split(".", 1)[1])
nets = set()
for d, _, fs in os.walk(root):
    for f in fs:
        p = os.path.join(d, f)
        if os.path.islink(p) or f == "ground_truth.json":
            continue
        op = gzip.open if f.endswith(".gz") else open
        with op(p, "rb") as fh:
            head = fh.read(1 << 20).decode("utf-8", "replace")
        for a in re.findall(r"\b(\d{1,3}\.\d{1,3}\.\d{1,3})\.\d{1,3}\b", head):
            if not a.startswith(("127.", "0.", "255.")):
                nets.add(a + ".")
for v in sorted(values | nets):
    print(v)
EOF_PY
note "$(wc -l < "$OUT/seeded.txt") seeded values to look for"

# leftovers DIR: how many seeded values DIR still holds (gz files read too), and which.
leftovers() {
    local dir=$1 n=0 left=()
    while IFS= read -r v; do
        # sos clean keeps its private map and log beside its output: not part of the output.
        if grep -rqaF --exclude='*-private_map' --exclude='*-obfuscation.log' -- "$v" "$dir" 2>/dev/null \
            || zgrep -rqaF --exclude='*-private_map' --exclude='*-obfuscation.log' -- "$v" "$dir" 2>/dev/null; then
            n=$((n + 1)); left+=("$v")
        fi
    done < "$OUT/seeded.txt"
    echo "$n ${left[*]:0:8}"
}

measure() { # KEY CMD...: prints "KEY wall cpu rss_mb"
    local key=$1; shift
    # The previous run's output (743 MiB at 1G) is written back to disk before the clock
    # starts: no run pays for the one before it.
    sync
    $TIME -f '%e %U %S %M' -o "$OUT/$key.time" "$@" > "$OUT/$key.out" 2> "$OUT/$key.err" \
        || { tail -5 "$OUT/$key.err" >&2; die "$key failed"; }
    read -r w u s m < <(tail -n 1 "$OUT/$key.time")
    echo "$w $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') $((m / 1024))"
}

bytes=$(du -sb --apparent-size "$BUNDLE" | cut -f1)
read -r ew ec er < <(measure evacdoc "$EVACDOC" redact "$BUNDLE" --out "$OUT/evacdoc")
read -r el eleft < <(leftovers "$OUT/evacdoc")
printf '%-22s %9s %9s %8s %s\n' "tool ($SIZE, $((bytes / 1048576)) MiB)" "wall s" "cpu s" "rss MB" "seeded values left"
printf '%-22s %9s %9s %8s %s %s\n' "evacdoc redact" "$ew" "$ec" "$er" "$el" "$eleft"
# The share engine (default-deny, identify then replace): what a public link's bundle is.
read -r pw pc pr < <(measure evacdoc-public "$EVACDOC" redact "$BUNDLE" --out "$OUT/evacdoc-public" --public)
read -r pl pleft < <(leftovers "$OUT/evacdoc-public")
printf '%-22s %9s %9s %8s %s %s\n' "evacdoc redact --public" "$pw" "$pc" "$pr" "$pl" "$pleft"

if [[ "$SOS" == 1 ]] && command -v sos >/dev/null; then
    mkdir -p "$OUT/sos"
    total_w=0 total_c=0 max_r=0
    for original in "$BUNDLE"/sosreport-*/; do
        # sos 4.0 cleans a report folder in place (its files end up moved away): give it a
        # copy, made before the clock starts.
        report="$OUT/sos-input/$(basename "$original")"
        mkdir -p "$OUT/sos-input" && cp -a "${original%/}" "$report"
        mkdir -p "$report/sos_logs" && touch "$report/sos_logs/sos.log"
        read -r w c r < <(measure "sos-$(basename "$report")" sos clean --batch --tmp-dir "$OUT/sos" "$report")
        total_w=$(awk -v a="$total_w" -v b="$w" 'BEGIN { print a + b }')
        total_c=$(awk -v a="$total_c" -v b="$c" 'BEGIN { print a + b }')
        ((r > max_r)) && max_r=$r
    done
    read -r sl sleft < <(leftovers "$OUT/sos")
    printf '%-22s %9s %9s %8s %s %s\n' "sos clean (per report)" "$total_w" "$total_c" "$max_r" "$sl" "$sleft"
    # Wall and CPU: sos clean is one Python process, evacdoc uses every core, so on a
    # busy machine the CPU figures are the steadier comparison.
    awk -v a="$total_w" -v b="$ew" -v c="$total_c" -v d="$ec" \
        'BEGIN { printf "evacdoc redact is %.1fx faster than sos clean (wall), %.1fx (cpu)\n", a / b, c / d }'
    awk -v a="$total_w" -v b="$pw" -v c="$total_c" -v d="$pc" \
        'BEGIN { printf "evacdoc redact --public is %.1fx faster than sos clean (wall), %.1fx (cpu)\n", a / b, c / d }'
elif [[ "$SOS" == 1 ]]; then
    note "sos is not installed (Debian package sosreport: apt-get install -y sosreport): evacdoc only"
fi
