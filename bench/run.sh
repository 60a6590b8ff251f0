#!/usr/bin/env bash
# hearth's benchmark, one command from a clean clone:
#   bench/run.sh [--preset 1x|10x] [--runs N] [--duration S] [--scenarios a,b] [--users N --courses N] [--out FILE]
# Installs wrk when missing, builds target/release/hearth when missing (HEARTH_BIN
# overrides), then runs bench/harness.py with every argument. See bench/README.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v wrk >/dev/null 2>&1; then
    echo "bench: installing wrk" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi

if [ -z "${HEARTH_BIN:-}" ]; then
    HEARTH_BIN="$repo/target/release/hearth"
    if [ ! -x "$HEARTH_BIN" ]; then
        echo "bench: building the release binary (cargo build --release)" >&2
        (cd "$repo" && cargo build --release)
    fi
fi
export HEARTH_BIN

exec python3 "$here/harness.py" "$@"
