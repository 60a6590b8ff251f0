#!/usr/bin/env bash
# issue 34's measurements on a borrowed many-core machine, one prepared script (see
# bench/device/README.md). From the repository root:
#   bash bench/device/run.sh                   # 16+ cores: 1 core and 8 cores, ~5-6 min
#   DEVBENCH_SMALL=1 bash bench/device/run.sh  # a 2-core check of the script itself, ~4 min
# Needs .devbench/ (wrk, its libraries, floor, hearth-before, hearth-after, the 1x dataset),
# python3, taskset; no cargo, no curl, no network. Writes $OUT (default /tmp/devbench-out):
# results.md, results.json, progress.log, scale.log, harness.log.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
carry="$repo/.devbench"
OUT=${OUT:-/tmp/devbench-out}
mkdir -p "$OUT"
: >"$OUT/progress.log"
log() { printf '[%s +%4ds] %s\n' "$(date -u +%H:%M:%S)" "$SECONDS" "$*" | tee -a "$OUT/progress.log" >&2; }
step=setup
finish() {
  local rc=$?
  if [ "$rc" != 0 ]; then log "FAILED (exit $rc) during: $step"; fi
  if [ -s "${work:-/nonexistent}/scale.tsv" ] || compgen -G "${work:-/nonexistent}/harness-*.json" >/dev/null; then
    python3 "$repo/bench/device/report.py" "$work" "$OUT" || log "report.py failed"
  fi
  rm -rf "${work:-}"
  log "done (exit $rc) in ${SECONDS} s; files in $OUT: $(cd "$OUT" && echo *)"
}
trap finish EXIT

if [ -n "${DEVBENCH_CONFIGS:-}" ]; then
  read -r -a CONFIGS <<<"$DEVBENCH_CONFIGS"   # e.g. "0-7:8-15:8:256": a rerun of one
  DUR=${DEVBENCH_DURATION:-5}
elif [ "${DEVBENCH_SMALL:-0}" = 1 ]; then
  CONFIGS=("0:1:1:64" "0-1:0-1:2:64")   # 1 core each; then server and wrk share both cores
  DUR=${DEVBENCH_DURATION:-2}
else
  CONFIGS=("0:1:1:64" "0-7:8-15:8:256")  # 1 core each; server on 8, wrk -t8 on 8 others
  DUR=${DEVBENCH_DURATION:-5}
fi
SCENARIOS=${DEVBENCH_SCENARIOS:-ceiling,me_jwt,verify_token,course_get,course_create,mixed}
WARMUP=1
BUDGET=${DEVBENCH_BUDGET:-560}   # seconds: the device's 10-minute limit, less a margin
limit() { # the seconds a step may take: MAX, or what is left of the budget (less 15 s for the report)
  local left=$((BUDGET - SECONDS - 15))
  if [ "$left" -lt 10 ]; then log "out of time: ${SECONDS} s of the ${BUDGET} s budget spent"; return 1; fi
  echo $(($1 < left ? $1 : left))
}

# --- inputs ------------------------------------------------------------------------------
chmod +x "$carry"/wrk "$carry"/floor "$carry"/hearth-* 2>/dev/null || true  # in case the copy lost the bits
for f in wrk floor hearth-before; do
  [ -x "$carry/$f" ] || { log "missing $carry/$f (see bench/device/README.md)"; exit 1; }
done
BUILDS=(before after)
if [ ! -x "$carry/hearth-after" ]; then
  if [ "${DEVBENCH_SMALL:-0}" = 1 ]; then
    log "no hearth-after: small mode measures hearth-before twice (as 'before' and 'after')"
    ln -sf hearth-before "$carry/hearth-after"
  else
    log "missing $carry/hearth-after"; exit 1
  fi
fi
work=$(mktemp -d /tmp/devbench.XXXXXX)
mkdir -p "$work/bin"
for tool in python3 taskset getconf awk sha256sum timeout; do
  command -v "$tool" >/dev/null || { log "missing tool: $tool"; exit 1; }
done
# wrk through a wrapper: the carried libluajit (.devbench/lib), and Debian's libssl3 and
# libcrypto3 (.devbench/lib-ssl3.tar.xz) only when this system has none
wrapper() {
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s/wrk "$@"\n' \
    "$1" "$carry" >"$work/bin/wrk"
  chmod +x "$work/bin/wrk"
}
wrk_version() { "$work/bin/wrk" -v 2>&1 | head -1 || true; }  # wrk -v exits 1
wrk_runs() { [[ "$(wrk_version)" == wrk* ]]; }
export PATH="$work/bin:$PATH"
wrapper "$carry/lib"
if ! wrk_runs && [ -f "$carry/lib-ssl3.tar.xz" ]; then
  log "wrk: $(wrk_version); trying the carried libssl3"
  mkdir -p "$work/lib-ssl3"
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="data")' \
    "$carry/lib-ssl3.tar.xz" "$work/lib-ssl3"
  wrapper "$carry/lib:$work/lib-ssl3"
fi
wrk_runs || { log "wrk does not run:"; "$work/bin/wrk" -v >&2 || true; exit 1; }

ncpu=$(nproc)
log "machine: $ncpu CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'));" \
  "$(uname -srm); load $(cut -d' ' -f1-3 /proc/loadavg); mem $(awk '/MemTotal/{print $2 / 1048576 " GiB"}' /proc/meminfo)"
if [ "${DEVBENCH_SMALL:-0}" != 1 ] && [ "$ncpu" -lt 16 ]; then
  log "needs 16 CPUs for 0-7:8-15 (this machine has $ncpu); DEVBENCH_SMALL=1 for a small run"; exit 1
fi
for b in before after; do
  bin="$carry/hearth-$b"
  log "hearth-$b: $("$bin" --version) sha256 $(sha256sum "$bin" | cut -c1-16)"
done
log "floor sha256 $(sha256sum "$carry/floor" | cut -c1-16); wrk: $(wrk_version)"
log "configurations: ${CONFIGS[*]}; ${DUR} s per run after ${WARMUP} s of warm-up; harness scenarios $SCENARIOS"
nsc=$(tr ',' '\n' <<<"$SCENARIOS" | grep -c .)
# measured on the 2-core dev VM: ~3 s per scale configuration and ~12 s per harness run
# (start, credentials, token seeding, drains) besides the wrk runs, ~8 s per import
est=$(( ${#CONFIGS[@]} * 7 * (DUR + WARMUP) + 3 * ${#CONFIGS[@]} + 2 * ${#CONFIGS[@]} * (nsc * (DUR + WARMUP) + 12) + 2 * 8 + 5 ))
log "estimated total: ~${est} s; every step is cut off so that the whole stays under ${BUDGET} s (DEVBENCH_BUDGET)"

# --- dataset: the carried 1x file, else generated here -------------------------------------
step=dataset
export BENCH_DATA_DIR="$work/bench-data"
mkdir -p "$BENCH_DATA_DIR"
DATASET="$BENCH_DATA_DIR/dataset-1x.ndjson"
packed=$(ls "$carry"/dataset-1x.ndjson.xz "$carry"/dataset-1x.ndjson.gz 2>/dev/null | head -1 || true)
if [ -n "$packed" ] && [ -f "$carry/dataset-1x.ndjson.meta.json" ]; then
  python3 -c 'import gzip, lzma, shutil, sys
opener = lzma.open if sys.argv[1].endswith(".xz") else gzip.open
with opener(sys.argv[1]) as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)' "$packed" "$DATASET"
  cp "$carry/dataset-1x.ndjson.meta.json" "$DATASET.meta.json"
  log "dataset: carried 1x, $(du -m "$DATASET" | cut -f1) MiB unpacked"
else
  log "dataset: generating the 1x preset (no .devbench/dataset-1x.ndjson.xz or .gz)"
  python3 bench/gen_dataset.py --out "$DATASET"
  log "dataset: generated"
fi

# --- 1. scale.sh: the floor and both builds, /livez /healthz me_jwt ----------------------------
step=scale
log "scale: ${CONFIGS[*]}"
lim=$(limit $((${#CONFIGS[@]} * 7 * (DUR + WARMUP) * 2 + 30)))
FLOOR_BIN="$carry/floor" HEARTH_BINS="before=$carry/hearth-before after=$carry/hearth-after" \
  SCALE_TSV="$work/scale.tsv" SCALE_LOG="$OUT/scale.log" SECONDS_PER_RUN=$DUR \
  timeout -k 5 "$lim" bash bench/device/scale.sh "${CONFIGS[@]}" 2>&1 | tee -a "$OUT/progress.log"
log "scale: done"

# --- 2. bench/harness.py: both builds per configuration, alternating which goes first ----------
# DEVBENCH_FIRST=after starts the first configuration with hearth-after: a second sitting
# with it counterbalances the first (in both sittings of 2026-11-28 the build that ran
# second at one core wrote ~20% slower, which alternation on the dev VM did not show:
# docs/performance.md, issue 34)
case "${DEVBENCH_FIRST:-before}" in
  before) n=0 ;;
  after) n=1 ;;
  *) log "DEVBENCH_FIRST is before or after, not ${DEVBENCH_FIRST}"; exit 1 ;;
esac
for cfg in "${CONFIGS[@]}"; do
  IFS=: read -r sc wc t c <<<"$cfg"
  order=(before after); [ $((n % 2)) = 1 ] && order=(after before)
  n=$((n + 1))
  for b in "${order[@]}"; do
    step="harness $b $cfg"
    log "harness: hearth-$b, server CPUs $sc, wrk CPUs $wc, -t$t -c$c"
    rc=0
    lim=$(limit $((nsc * (DUR + WARMUP) * 2 + 90)))
    HEARTH_BIN="$carry/hearth-$b" timeout -k 5 "$lim" python3 bench/harness.py --dataset "$DATASET" --scenarios "$SCENARIOS" \
      --runs 1 --duration "$DUR" --warmup "$WARMUP" --settle 0 \
      --server-cpus "$sc" --wrk-cpus "$wc" --threads "$t" --connections "$c" \
      --out "$work/harness-$b-$sc.json" >"$work/harness.out" 2>&1 || rc=$?
    { printf '\n##### hearth-%s %s (exit %s)\n' "$b" "$cfg" "$rc"; cat "$work/harness.out"; } >>"$OUT/harness.log"
    if [ "$rc" != 0 ]; then tail -30 "$work/harness.out" >&2; exit "$rc"; fi
    grep -E '^bench: (import|[a-z_-]+: (c=|seeded)|  r1:)' "$work/harness.out" | sed 's/^/    /' | tee -a "$OUT/progress.log" >&2
  done
done
# --- 3. a variant of the after build at the last configuration (DEVBENCH_VARIANT) ---------------
# NAME:VAR=VALUE[:SCENARIOS], e.g. workers7:TOKIO_WORKER_THREADS=7:mixed,course_create:
# the same harness run with one environment variable set for the server (tokio reads
# TOKIO_WORKER_THREADS when serve sets no count: 7 runtime threads leave the 8th core
# to the writer). Its JSON and log go to $OUT/variant-NAME.json and harness.log.
if [ -n "${DEVBENCH_VARIANT:-}" ]; then
  IFS=: read -r vname vset vsc <<<"$DEVBENCH_VARIANT"
  vsc=${vsc:-mixed,course_create,course_get}
  IFS=: read -r sc wc t c <<<"${CONFIGS[-1]}"
  step="variant $vname"
  log "variant $vname: hearth-after with $vset, server CPUs $sc, wrk CPUs $wc, -t$t -c$c, $vsc"
  rc=0
  lim=$(limit $(($(tr ',' '\n' <<<"$vsc" | grep -c .) * (DUR + WARMUP) * 2 + 90)))
  env "$vset" HEARTH_BIN="$carry/hearth-after" timeout -k 5 "$lim" python3 bench/harness.py --dataset "$DATASET" \
    --scenarios "$vsc" --runs 1 --duration "$DUR" --warmup "$WARMUP" --settle 0 \
    --server-cpus "$sc" --wrk-cpus "$wc" --threads "$t" --connections "$c" \
    --out "$OUT/variant-$vname.json" >"$work/harness.out" 2>&1 || rc=$?
  { printf '\n##### variant %s (%s) %s (exit %s)\n' "$vname" "$vset" "${CONFIGS[-1]}" "$rc"; cat "$work/harness.out"; } >>"$OUT/harness.log"
  grep -E '^bench: (import|[a-z_-]+: (c=|seeded)|  r1:)' "$work/harness.out" | sed 's/^/    /' | tee -a "$OUT/progress.log" >&2 || true
  [ "$rc" = 0 ] || log "variant $vname: exit $rc (the main measurements stand)"
fi
step=report
log "measured: ${SECONDS} s (estimate was ~${est} s)"
