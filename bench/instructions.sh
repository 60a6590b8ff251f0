#!/usr/bin/env bash
# Instructions per request: exact and repeatable where wall-clock timings are not.
#   bench/instructions.sh BIN DB PATHS [USER]
# Serves a copy of DB with BIN under valgrind's callgrind, GETs every path of the file
# PATHS (one per line) once to warm the caches, zeroes the counters, GETs them all again
# as USER (default 1, a JWT minted with BIN) and prints the instructions per request.
# Kernel time (system calls, page copies) is not counted. Needs valgrind and curl.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: bench/instructions.sh BIN DB PATHS [USER]" >&2
    exit 2
fi
bin=$(realpath "$1"); db=$2; paths=$(realpath "$3"); user=${4:-1}
for tool in valgrind callgrind_control curl python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "bench: $tool is missing: apt-get install valgrind curl python3" >&2
        exit 1
    fi
done

dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
cp "$db" "$dir/hearth.db"
jwt=$("$bin" --db "$dir/hearth.db" jwt mint --user-id "$user" --ttl 86400 2>/dev/null)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$dir" && exec valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
    "$bin" --db "$dir/hearth.db" serve --listen "127.0.0.1:$port" --release-memory-after 0 \
    >"$dir/server.log" 2>&1) &
pid=$!
for _ in $(seq 1 240); do
    curl -fs -o /dev/null "http://127.0.0.1:$port/livez" && break
    sleep 0.5
done

get_all() {
    python3 - "$port" "$jwt" "$paths" <<'PY'
import http.client, sys
port, jwt, paths = int(sys.argv[1]), sys.argv[2], [l.strip() for l in open(sys.argv[3]) if l.strip()]
c = http.client.HTTPConnection("127.0.0.1", port)
for p in paths:
    c.request("GET", p, headers={"Authorization": "Bearer " + jwt})
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(f"bench: GET {p} answered {r.status}")
PY
}

get_all
callgrind_control -z "$pid" >/dev/null 2>&1
get_all
callgrind_control -d "$pid" >/dev/null 2>&1
for _ in $(seq 1 20); do
    compgen -G "$dir/cg.out.*" >/dev/null && break
    sleep 0.5
done
n=$(grep -c . "$paths")
# the dump after the zeroing holds the measured requests (the largest of the files)
total=$(cat "$dir"/cg.out* | awk '/^(summary|totals):/ {print $2}' | sort -n | tail -1)
echo "$(basename "$paths"): $n requests, $((total / n)) instructions per request"
