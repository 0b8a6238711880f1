#!/usr/bin/env bash
# Search index benchmark (not run in CI): indexing throughput (MB/s of log), index size
# against the input, and search latency (median, p99 over mixed field + text queries).
#
#   scripts/bench_search.sh [BUNDLE] [QUERIES]
#
# BUNDLE defaults to /work/bench-index-bundle, generated when missing with
# scripts/gen_bundle.py --size ${SIZE:-200M} (two zones, one clock offset). Keep bench
# bundles outside the repository. INDEX_DIR says where the temporary index goes.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-/work/bench-index-bundle}
queries=${2:-1000}
if [[ ! -f "$bundle/ground_truth.json" && ! -d "$bundle" ]]; then
    python3 scripts/gen_bundle.py --size "${SIZE:-200M}" --out "$bundle" \
        --zones 'UTC,Europe/Berlin' --skews 'compute-2=30' -q
fi
cargo run --quiet --release --example bench_index -- "$bundle" "$queries"
