#!/usr/bin/env bash
# Runs the cargo-fuzz targets of both fuzz crates (parsers/fuzz: the parsers; fuzz/: the
# archive reader and the redaction engine), SECONDS each (default 600), one at a time
# under `nice -n 15`, each seeded from samples/ (scripts/fuzz_corpus.sh).
#
#   scripts/fuzz.sh [SECONDS] [TARGET..]
#
# Writes a table (target, runs, execs/s, coverage, crashes) to target/fuzz-results.txt
# and each run's log to target/fuzz-logs/. Exits non-zero when a target crashed, naming
# the input libFuzzer saved (replay it with `cargo fuzz run -s none TARGET FILE` in the
# target's crate).
#
# Environment: FUZZ_RESULTS (the table's path), FUZZ_SANITIZER (default none: the parsers forbid unsafe code, and the
# instrumentation-free build runs on stable and fuzzes twice as fast; `address` needs a
# nightly toolchain, given by FUZZ_TOOLCHAIN, default nightly then).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

seconds=${1:-600}
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET..]" >&2; exit 2; }
shift || true
sanitizer=${FUZZ_SANITIZER:-none}
toolchain=()
if [[ "$sanitizer" != none ]]; then
    toolchain=("+${FUZZ_TOOLCHAIN:-nightly}")
fi
crates=(parsers/fuzz fuzz)

# The crate of each target, from the crates' own lists.
declare -A crate_of=()
all=()
for crate in "${crates[@]}"; do
    for t in $(cd "$crate" && cargo "${toolchain[@]}" fuzz list); do
        crate_of[$t]=$crate
        all+=("$t")
    done
done
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
for t in "${targets[@]}"; do
    [[ -n "${crate_of[$t]:-}" ]] || { echo "no fuzz target $t (have: ${all[*]})" >&2; exit 2; }
done

# Longest input worth trying: one line for the line parsers, a small file otherwise.
max_len() {
    case "$1" in
        date_time) echo 64 ;;
        parse_* | split_* | time_* | context) echo 4096 ;;
        archive) echo 131072 ;;
        search_query) echo 8192 ;;
        *) echo 65536 ;;
    esac
}
# Memory: the archive target holds up to 8 MiB of decompressed content per file.
rss_limit() { [[ "${crate_of[$1]}" == fuzz ]] && echo 1536 || echo 1024; }

# Build each crate that has a selected target, once.
for crate in "${crates[@]}"; do
    for t in "${targets[@]}"; do
        if [[ "${crate_of[$t]}" == "$crate" ]]; then
            echo "== building $crate (sanitizer $sanitizer)"
            (cd "$crate" && nice -n 15 cargo "${toolchain[@]}" fuzz build -s "$sanitizer")
            break
        fi
    done
done

mkdir -p target/fuzz-logs
results=${FUZZ_RESULTS:-target/fuzz-results.txt}
header=$(printf '%-22s %12s %9s %8s %8s %7s  %s' target runs execs/s cov features crashes artifact)
{
    echo "# scripts/fuzz.sh $seconds s per target, sanitizer $sanitizer, $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "$header"
} >"$results"
failed=()
for t in "${targets[@]}"; do
    crate=${crate_of[$t]}
    corpus="$crate/corpus/$t"
    scripts/fuzz_corpus.sh "$t" "$corpus"
    mkdir -p "$crate/artifacts/$t"
    log="$repo/target/fuzz-logs/$t.log"
    echo "== $t: $seconds s, corpus $(find "$corpus" -type f | wc -l) inputs, log $log"
    status=0
    (cd "$crate" && nice -n 15 cargo "${toolchain[@]}" fuzz run -s "$sanitizer" "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -rss_limit_mb="$(rss_limit "$t")" \
        -timeout=30 -print_final_stats=1 -artifact_prefix="artifacts/$t/") >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -aoE ' cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || true)
    ft=$(grep -aoE ' ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || true)
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | grep -v slow-unit | tail -1 || true)
    crashes=0
    # A timeout may be the machine pausing the fuzzer (SIGSTOP), not a hang: replay the
    # input once and count it only when it hangs again.
    if [[ $status -ne 0 && "$artifact" == *timeout-* ]] &&
        (cd "$crate" && nice -n 15 cargo "${toolchain[@]}" fuzz run -s "$sanitizer" "$t" "$artifact" -- \
            -timeout=30 -rss_limit_mb="$(rss_limit "$t")") >>"$log" 2>&1; then
        echo "== $t: $artifact did not hang when replayed (the fuzzer was paused); not a crash" >&2
        status=0
        artifact="(timeout not reproduced: $artifact)"
    fi
    if [[ $status -ne 0 ]]; then
        crashes=1
        [[ -n "$artifact" ]] && artifact="$crate/$artifact" || artifact="(none; see $log)"
        failed+=("$t: $artifact")
        echo "!! $t failed (exit $status): $artifact" >&2
    fi
    printf '%-22s %12s %9s %8s %8s %7s  %s\n' "$t" "${runs:-?}" "${speed:-?}" "${cov:-?}" \
        "${ft:-?}" "$crashes" "${artifact:-}" >>"$results"
done
cat "$results"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo >&2
    echo "crashes (input saved by libFuzzer; logs in target/fuzz-logs/):" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
