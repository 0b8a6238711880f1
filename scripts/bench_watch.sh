#!/bin/sh
# Watch throughput on appended lines, RSS over a long synthetic run, and the latency
# from a failed recovery's last line to its finding (see examples/bench_watch.rs).
#
#     scripts/bench_watch.sh [MB] [RECOVERIES] [LATENCY_RUNS]
#
# Goals (issue 12): >= 50 MB/s of appended lines on one core; RSS flat over the run;
# under 1 s from the last line to the finding.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --example bench_watch >&2
target="${CARGO_TARGET_DIR:-target}"
exec "$target/release/examples/bench_watch" "${1:-500}" "${2:-2000}" "${3:-10}"
