#!/usr/bin/env bash
# Build the real-stack venv under target/realstack/ from the package registries: pinned
# releases (requirements.txt) with every dependency pinned (constraints.txt). A venv built
# from the same two files is reused. RabbitMQ comes from Debian (apt) when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/target/realstack/venv"
py="${REALSTACK_PYTHON:-}"
if [[ -z "$py" ]]; then
    for c in python3.11 /root/.pyenv/versions/3.11*/bin/python3.11 python3.12 python3; do
        if command -v "$c" >/dev/null 2>&1; then py="$(command -v "$c")"; break; fi
    done
fi
if [[ -z "$py" ]]; then
    echo "realstack: no Python 3.11/3.12 found (set REALSTACK_PYTHON)" >&2
    exit 1
fi
stamp="$(cat "$here/requirements.txt" "$here/constraints.txt" | sha256sum | cut -c1-16)"
if [[ -f "$venv/.stamp" && "$(cat "$venv/.stamp")" == "$stamp" ]]; then
    echo "realstack venv: up to date ($venv)"
else
    echo "realstack venv: building with $py ($("$py" --version))"
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip >/dev/null
    nice "$venv/bin/pip" install -q -r "$here/requirements.txt" -c "$here/constraints.txt"
    echo "$stamp" > "$venv/.stamp"
fi
# With --masakari-21 / --masakari-14: an older Masakari in its own venv (its pins:
# constraints-masakari-<n>.txt): 21.0.0 for the pending-after-finished scenario, 14.0.1
# (before the fix of LP#1996835) for the stuck one.
for opt in "$@"; do
    case "$opt" in
        --masakari-21) release=21.0.0 ;;
        --masakari-14) release=14.0.1 ;;
        *) echo "setup.sh: unknown option $opt" >&2; exit 2 ;;
    esac
    major="${release%%.*}"
    old="$root/target/realstack/venv-masakari-$major"
    pins="$here/constraints-masakari-$major.txt"
    stamp="$(cat "$pins" | sha256sum | cut -c1-16)"
    if [[ -f "$old/.stamp" && "$(cat "$old/.stamp")" == "$stamp" ]]; then
        echo "realstack venv (masakari $release): up to date ($old)"
    else
        echo "realstack venv (masakari $release): building"
        rm -rf "$old"
        "$py" -m venv "$old"
        nice "$old/bin/pip" install -q "masakari==$release" -c "$pins"
        echo "$stamp" > "$old/.stamp"
    fi
done
if [[ ! -x /usr/lib/rabbitmq/bin/rabbitmq-server ]]; then
    echo "realstack: installing rabbitmq-server (Debian)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rabbitmq-server >/dev/null
fi
