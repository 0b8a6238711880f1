#!/usr/bin/env bash
# Cost of archives of many tiny entries (issue 22): a ~1 MB .tar.gz of N entries of each
# kind (empty files, folders, 1-byte files of no known type, one-line logs), analysed by
# `evacdoc analyze`; wall s, CPU s (user+sys) and peak RSS from /usr/bin/time.
#
#   scripts/bench_entries.sh [N]        N entries per archive (default 100000)
#   EVACDOC=path scripts/bench_entries.sh   that binary (default target/debug/evacdoc)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${1:-100000}
BIN=${EVACDOC:-$ROOT/target/debug/evacdoc}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for kind in empty dirs junk logs; do
    python3 - "$kind" "$N" "$WORK/$kind.tar.gz" <<'PY'
import gzip, io, sys, tarfile
kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
line = b"2024-10-08 06:25:03.311 1187 INFO nova.compute.manager [-] tiny\n"
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
    for i in range(n):
        if kind == "dirs":
            info = tarfile.TarInfo(f"b/d{i}/"); info.type = tarfile.DIRTYPE
            tar.addfile(info); continue
        name, data = {"empty": (f"b/x/f{i}", b""), "junk": (f"b/x/f{i}", b"x"),
                      "logs": (f"ctl1/var/log/nova/nova-compute.log.{i}", line)}[kind]
        info = tarfile.TarInfo(name); info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
open(out, "wb").write(gzip.compress(buf.getvalue(), 9))
PY
    size=$(stat -c %s "$WORK/$kind.tar.gz")
    # Nothing readable in the first three: they end non-zero (NothingRead), as they should.
    /usr/bin/time -o "$WORK/time" -f '%e %U %S %M' "$BIN" analyze "$WORK/$kind.tar.gz" \
        --format json >/dev/null 2>&1 || true
    read -r wall user sys rss < <(tail -1 "$WORK/time")
    printf '%-6s %7d entries, %8d bytes: wall %6.2f s, CPU %6.2f s, peak RSS %5d MB\n' \
        "$kind" "$N" "$size" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
done
