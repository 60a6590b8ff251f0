#!/usr/bin/env bash
# The floor server and one or more hearth builds side by side, the same wrk, one run:
#   FLOOR_BIN=... HEARTH_BINS="before=/path after=/path" scale.sh SERVER_CPUS:WRK_CPUS:THREADS:CONNS ...
# A copy of ../shared/bench/floor/scale.sh (../shared does not travel to the device machine),
# changed so that one run interleaves several builds (their order alternates from one
# configuration to the next), needs no curl and no cargo, and appends one TSV row per
# measurement to $SCALE_TSV:
#   config  server  build  rps  cpu_us_per_req  requests  p50_ms  p99_ms  non2xx  socket_errors
# Per configuration: the floor, then per build /livez, /healthz and /api/v2/user/me/ (a JWT),
# each a 1 s wrk warm-up and a $SECONDS_PER_RUN s measured run. Server CPU per request is
# from /proc/PID/stat (user + system, every thread) around the measured run.
set -euo pipefail
: "${FLOOR_BIN:?set FLOOR_BIN to the floor server binary}"
: "${HEARTH_BINS:?set HEARTH_BINS to NAME=PATH pairs}"
: "${SCALE_TSV:?set SCALE_TSV to the TSV file to append to}"
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
work=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$work"' EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
ready() { # url: waits up to 10 s for a 200
  python3 - "$1" <<'EOF'
import sys, time, urllib.request
deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    try:
        if urllib.request.urlopen(sys.argv[1], timeout=1).status == 200:
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.05)
sys.exit(f"scale.sh: {sys.argv[1]} not ready after 10 s")
EOF
}
ms() { # wrk latency (e.g. 1.23ms, 850.00us, 1.02s) in ms
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0;
    else if (v ~ /s$/) n *= 1000; else if (v ~ /m$/) n *= 60000; printf "%.3f", n }'
}
measure() { # server build wrk_cpus threads conns url [header]
  local server=$1 build=$2 wc=$3 t=$4 c=$5 url=$6 hdr=${7:-} out c0 c1 reqs rps non2xx serr us p50 p99
  local args=(-t"$t" -c"$c" --latency)
  [ -n "$hdr" ] && args+=(-H "$hdr")
  taskset -c "$wc" wrk "${args[@]}" -d1s "$url" >/dev/null   # warm-up
  c0=$(ticks "$PID"); out=$(taskset -c "$wc" wrk "${args[@]}" -d"${SECONDS_PER_RUN}s" "$url"); c1=$(ticks "$PID")
  printf '### %s %s %s %s\n%s\n' "$cfg" "$server" "$build" "$url" "$out" >>"${SCALE_LOG:-/dev/null}"
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out"); reqs=$(awk '/requests in/{print $1}' <<<"$out")
  [ -n "$rps" ] && [ -n "$reqs" ] || { echo "scale.sh: wrk gave no result for $url:" >&2; echo "$out" >&2; exit 1; }
  non2xx=$(awk '/Non-2xx/{print $NF}' <<<"$out"); non2xx=${non2xx:-0}
  serr=$(awk '/Socket errors/{gsub(",", ""); print $4+$6+$8+$10}' <<<"$out"); serr=${serr:-0}
  p50=$(ms "$(awk '$1=="50%"{print $2}' <<<"$out")"); p99=$(ms "$(awk '$1=="99%"{print $2}' <<<"$out")")
  us=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n="$reqs" 'BEGIN { printf "%.2f", (b - a) * 1e6 / hz / (n > 0 ? n : 1) }')
  printf '%-16s %-8s %-14s %12s req/s %8s us/req  p99 %8s ms%s\n' "$server" "$build" "cpus=$sc" "$rps" "$us" "$p99" \
    "$([ "$non2xx" != 0 ] || [ "$serr" != 0 ] && echo "  (non-2xx $non2xx, socket errors $serr!)" || true)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "$server" "$build" "$rps" "$us" "$reqs" "$p50" "$p99" \
    "$non2xx" "$serr" >>"$SCALE_TSV"
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }

read -r -a builds <<<"$HEARTH_BINS"
declare -A JWT DB
for b in "${builds[@]}"; do
  name=${b%%=*} bin=${b#*=}
  DB[$name]=$work/$name.db
  "$bin" --db "${DB[$name]}" init >/dev/null
  "$bin" --db "${DB[$name]}" user create --username u1 --email u1@example.org --no-password >/dev/null
  JWT[$name]=$("$bin" --db "${DB[$name]}" jwt mint --user-id 1 --ttl 86400)
done
export HEARTH_MAX_CONNECTIONS_PER_ADDRESS=4096
n=0
for cfg in "$@"; do
  IFS=: read -r sc wc t c <<<"$cfg"
  p=$(port); taskset -c "$sc" "$FLOOR_BIN" "127.0.0.1:$p" & PID=$!
  ready "http://127.0.0.1:$p/"
  measure floor - "$wc" "$t" "$c" "http://127.0.0.1:$p/"
  stop
  order=("${builds[@]}")
  if [ $((n % 2)) = 1 ]; then  # every other configuration, the builds in reverse order
    order=(); for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[$i]}"); done
  fi
  n=$((n + 1))
  for b in "${order[@]}"; do
    name=${b%%=*} bin=${b#*=}
    p=$(port)
    taskset -c "$sc" "$bin" --db "${DB[$name]}" serve --listen "127.0.0.1:$p" >>"$work/serve-$name.log" 2>&1 & PID=$!
    ready "http://127.0.0.1:$p/livez"
    measure hearth-livez "$name" "$wc" "$t" "$c" "http://127.0.0.1:$p/livez"
    measure hearth-healthz "$name" "$wc" "$t" "$c" "http://127.0.0.1:$p/healthz"
    measure hearth-me_jwt "$name" "$wc" "$t" "$c" "http://127.0.0.1:$p/api/v2/user/me/" "Authorization: Bearer ${JWT[$name]}"
    stop
  done
done
