#!/usr/bin/env bash
# Seed corpora for the fuzz targets, built from samples/ at run time (nothing binary is
# committed). Usage: scripts/fuzz_corpus.sh TARGET CORPUS_DIR
# Seeds are added next to whatever the corpus already holds (libFuzzer keeps what it
# found in the same folder); names are content hashes, so running twice adds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

target=$1
out=$2
mkdir -p "$out"

# seed FILE...: each file as one seed (prefix with $PREFIX when set).
seed() {
    local f
    for f in "$@"; do
        [[ -f "$f" ]] || continue
        local tmp
        tmp=$(mktemp)
        { printf '%b' "${PREFIX:-}"; head -c 65536 "$f"; } >"$tmp"
        mv "$tmp" "$out/$(sha1sum <"$tmp" | cut -c1-40)"
    done
}

# seed_lines FILE...: each distinct line as one seed (the line-level parsers).
seed_lines() {
    # awk stops counting rather than `head` closing the pipe (pipefail would fail us).
    cat "$@" 2>/dev/null | awk 'length($0) > 0 && !seen[$0]++ && n++ < 400' |
        while IFS= read -r line; do
            local h
            h=$(printf '%s' "$line" | sha1sum | cut -c1-40)
            printf '%s' "$line" >"$out/$h"
        done
}

logs() { find samples/parsers samples/scenarios -type f \( -name '*.log' -o -name '*.log.[0-9]' \) -size -256k | sort; }
captures() {
    { ls samples/parsers/capture/*; grep -rlE '^(\$ |# )?openstack |^\| (Field|Request ID|ID) ' samples/scenarios; } | sort -u
}

# archive: small bundles in every container and compression evacdoc reads.
archives() {
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    mkdir -p "$tmp/bundle/var/log/masakari" "$tmp/bundle/etc/nova"
    head -c 4000 samples/parsers/oslo/masakari_host_failure_zed.log >"$tmp/bundle/var/log/masakari/masakari-engine.log"
    head -c 2000 samples/parsers/ini/nova.conf >"$tmp/bundle/etc/nova/nova.conf"
    cp samples/scenarios/2020-juju-crashdump-no-status/0/lxd/0/var/log/masakari/masakari-engine.log.2.gz \
        "$tmp/bundle/var/log/masakari/"
    ln -s ../../etc/nova/nova.conf "$tmp/bundle/var/log/link.conf"
    (cd "$tmp" && tar -cf bundle.tar bundle)
    gzip -9 -k "$tmp/bundle.tar"
    command -v xz >/dev/null && xz -k "$tmp/bundle.tar"
    command -v zstd >/dev/null && zstd -q -k "$tmp/bundle.tar"
    command -v bzip2 >/dev/null && bzip2 -k "$tmp/bundle.tar"
    (cd "$tmp" && python3 -c 'import sys, zipfile, os
with zipfile.ZipFile("bundle.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk("bundle"):
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p): z.write(p)')
    (cd "$tmp" && mkdir outer && cp bundle.tar.gz outer/inner.tar.gz && tar -cf nested.tar outer)
    seed "$tmp"/bundle.tar* "$tmp/bundle.zip" "$tmp/nested.tar" \
        samples/scenarios/2020-juju-crashdump-no-status/1/lxd/0/var/log/nova/nova-api-wsgi.log.2.gz
}

case "$target" in
    # Structured input (arbitrary's encoding): no text seeds.
    date_time) ;;
    # Whole oslo.config files.
    parse_ini) seed $(find samples -name '*.conf' -size -64k | sort) ;;
    # One line at a time.
    parse_* | split_* | time_* | context) seed_lines $(logs) ;;
    # Whole files; the first byte of assembler_push is its split step.
    records | utf8_decode | assembler_push) seed $(logs | head -n 60) ;;
    # The first byte picks the command line: 11 is "none", the file brings its own.
    capture) PREFIX='\x0b' seed $(captures) ;;
    capture_parts)
        PREFIX='\x00' seed $(captures)
        PREFIX='\x01' seed $(captures)
        ;;
    capture_pylit)
        # The Python literals inside table cells, one per seed.
        grep -ohE "[\[{]'[^|]*" $(captures) | awk 'n++ < 200' | while IFS= read -r lit; do
            printf '%s' "$lit" >"$out/$(printf '%s' "$lit" | sha1sum | cut -c1-40)"
        done
        seed samples/parsers/capture/notification_show_bfv_json.txt
        ;;
    archive) archives ;;
    # Host seeds, NUL, then the text.
    redact_lines) PREFIX='10.159.14.5 node02ob100.maas node02ob100\n192.168.0.66 ctl1.cloud.example.com\n\0' seed $(logs | head -n 40) ;;
    redact_map)
        printf '%s' '{"schema":"evacdoc.pseudonym-map/v1","key":"00112233445566778899aabbccddeeff","entries":{"host":{"node02ob100":"host-1a2b3c"},"ipv4_net":{"10.159.14":"10.64.7"},"user":{"alice":"user-5d6e7f"}}}' >"$out/map-small"
        printf '%s' '{"schema":"evacdoc.pseudonym-map/v1","key":"","entries":{}}' >"$out/map-empty"
        ;;
    *)
        echo "fuzz_corpus.sh: no seeds defined for $target" >&2
        ;;
esac
