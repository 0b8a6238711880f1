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
    # One line at a time, and the same lines under kubectl's prefixes.
    peel_layers)
        seed_lines $(logs)
        logs | head -n 20 | xargs cat | awk 'length($0) > 0 && n++ < 200' |
            while IFS= read -r line; do
                for p in '[pod/nova-0/nova-api] ' '2024-09-18T07:53:42.784913042Z ' \
                    '[pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z '; do
                    printf '%s%s' "$p" "$line" >"$out/$(printf '%s%s' "$p" "$line" | sha1sum | cut -c1-40)"
                done
            done
        ;;
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
    # Host seeds (bare names), NUL, then the text.
    public_lines) PREFIX='node02ob100.maas juju-4f2a1c-3-lxd-4 compute-01\n\0' seed $(logs | head -n 40) ;;
    redact_map)
        printf '%s' '{"schema":"evacdoc.pseudonym-map/v1","key":"00112233445566778899aabbccddeeff","entries":{"host":{"node02ob100":"host-1a2b3c"},"ipv4_net":{"10.159.14":"10.64.7"},"user":{"alice":"user-5d6e7f"}}}' >"$out/map-small"
        printf '%s' '{"schema":"evacdoc.pseudonym-map/v1","key":"","entries":{}}' >"$out/map-empty"
        ;;
    # Queries as the search pages take them.
    search_query)
        for q in 'nova' '"still in use" AND level:ERROR' 'instance:56ce6206-3659-495e-a6ea-f4d3d578cc96 -(debug OR info)' \
            'host:cmp1 service:nova-compute NOT (a OR "b c")' 'level:(ERROR OR WARNING) evacuat*'; do
            printf '%s' "$q" >"$out/$(printf '%s' "$q" | sha1sum | cut -c1-40)"
        done
        ;;
    # Method byte, credentials/content-type byte, target, newline, body ({id}, {csrf} filled in).
    router)
        for r in '\x00\x01/api/v1/analyses/{id}/search?q=nova&page=2&per_page=5' \
            '\x00\x02/analyses/{id}/search?q=level:ERROR' '\x00\x01/api/v1/analyses/{id}/files/0/lines?from=1&to=20' \
            '\x00\x01/api/v1/analyses/{id}/timeline?instance=56ce6206-3659-495e-a6ea-f4d3d578cc96' \
            '\x01\x05/api/v1/analyses?name=a.log\nnova-compute ERROR x' '\x01\x0a/analyses/{id}/share\ncsrf={csrf}&scope=%7B%7D' \
            '\x00\x00/healthz' '\x00\x01/api/v1/openapi.json'; do
            printf '%b' "$r" >"$out/$(printf '%b' "$r" | sha1sum | cut -c1-40)"
        done
        ;;
    *)
        echo "fuzz_corpus.sh: no seeds defined for $target" >&2
        ;;
esac
