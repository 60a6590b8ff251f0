#!/usr/bin/env python3
"""hearth's benchmark harness (issue 8). Python 3 standard library only.

Generates (or reuses) the dataset, loads it into a fresh database, starts the release
binary on a free port, runs every scenario with wrk and prints one line per scenario:

    scenario  req/s  p50_ms  p99_ms  non2xx

plus, for the mixed blend, a table per kind of request and the writes' waits, and the
server's memory: idle, peak, and some seconds after the load. bench/run.sh installs wrk
and builds the binary first; see bench/README.md.

This file holds the arguments, the dataset and import caches, the wrk runs and the
report; the server and the HTTP client are in bench/server.py, the mixed scenario's
records in bench/mixed.py, the /metrics histograms in bench/metrics.py.
"""

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
LUA_DIR = os.path.join(BENCH_DIR, "lua")
GENERATOR = os.path.join(BENCH_DIR, "gen_dataset.py")
sys.path.insert(0, BENCH_DIR)
import gen_dataset  # noqa: E402  (for its argument parsing: the cache key is the resolved args)
from metrics import WAIT_HISTOGRAMS, waits_over  # noqa: E402
from mixed import (WRITE_WAIT_LIMIT_S, check_mixed_data, mixed_report, mixed_users,  # noqa: E402
                   print_mixed, summarize_mixed)
from procs import log  # noqa: E402
from server import (Server, cpu_seconds, http, password_grant, proc_status,  # noqa: E402
                    refresh_tokens, serve_flags)

# In run order. token_password comes before token_refresh: its refresh tokens seed the pool,
# and what token_refresh leaves seeds mixed's. mixed (every kind of write) comes last.
SCENARIOS = [
    "ceiling", "healthz", "reactions_search", "prefs_search_keys", "me_jwt", "me_oauth",
    "verify_token", "followings_hub", "followings_hub_mutual1", "course_get",
    "course_search_p1", "course_search_deep", "feed_home", "feed_explore", "search", "poll_suggest",
    "pm_thread",
    "group_feed", "event_search",
    "course_create", "restore_post",
    "token_password", "token_refresh", "mixed",
]
PASSWORD_CONNECTIONS = 4  # token_password: each request is 600k PBKDF2 iterations
GEN_FLAGS = ["users", "follows_per_user", "hub_followings", "hub_mutual", "categories",
             "courses", "discussions", "posts", "hub_deleted_posts", "statuses", "comments",
             "pm_threads", "pm_messages", "groups", "group_posts", "hub_group_members", "events"]
# Dataset presets: sizes given to gen_dataset.py (an explicit size flag overrides one).
# 1x is the generator's defaults. 10x multiplies the volumes (users, courses and every
# kind of contribution; follows grow with the users at the same ~50 per user: ~10M)
# and keeps the shape: the hub's 1,000 followings / 300 mutual and its 1,000 deleted
# posts are what followings_hub and restore_post read and write, and 40 categories are
# a taxonomy, not a volume. So a scenario does the same work per request at 1x and 10x,
# over tables ten times larger. The hub group's posts, the groups, the events and the
# private messages (the hub's threads and its thread with user 2) grow tenfold too: the
# group feed, the event search and the PM thread read ten times more rows around the
# same page.
PRESETS = {
    "1x": {},
    "10x": {"users": 200_000, "courses": 1_000_000, "discussions": 40_000, "posts": 40_000,
            "statuses": 20_000, "comments": 100_000, "groups": 1_000, "group_posts": 20_000,
            "events": 20_000, "pm_threads": 1_000, "pm_messages": 20_000},
}


def parse_args():
    p = argparse.ArgumentParser(description="hearth benchmark harness (see bench/README.md)")
    p.add_argument("--runs", type=int, default=3, help="measured runs per scenario (3)")
    p.add_argument("--duration", type=int, default=10, help="seconds per run (10)")
    p.add_argument("--warmup", type=int, default=2, help="seconds of discarded warm-up (2; 0 = none)")
    p.add_argument("--connections", type=int, default=64, help="wrk connections (64; token_password uses 4)")
    p.add_argument("--scenarios", default="", help="comma-separated subset, e.g. me_jwt,course_get")
    p.add_argument("--out", help="write everything as JSON to this file")
    p.add_argument("--keep", action="store_true", help="keep the temp data dir (database, server log)")
    p.add_argument("--dataset", help="use this NDJSON file (needs FILE.meta.json) instead of generating")
    p.add_argument("--preset", choices=sorted(PRESETS), default="1x",
                   help="dataset size: 1x (default: 20k users, ~1M follows, 100k courses) or 10x "
                        "(200k users, ~10M follows, 1M courses); size flags override it")
    p.add_argument("--fresh-import", action="store_true",
                   help="import the dataset again even when a database imported by this binary is cached")
    p.add_argument("--settle", type=int, default=5,
                   help="seconds to wait after the last scenario before reading the after-load RSS (5)")
    p.add_argument("--server-cpus", default="0", help="taskset CPU list for the server when pinned (0), e.g. 0-7")
    p.add_argument("--wrk-cpus", default="1", help="taskset CPU list for wrk when pinned (1), e.g. 8-15")
    p.add_argument("--threads", type=int, default=1,
                   help="wrk threads (1; mixed always runs one thread per connection)")
    g = p.add_argument_group("dataset size (passed to gen_dataset.py)")
    for flag in GEN_FLAGS:
        g.add_argument("--" + flag.replace("_", "-"), type=int, dest="gen_" + flag)
    a = p.parse_args()
    a.scenarios = [s for s in a.scenarios.split(",") if s] or list(SCENARIOS)
    unknown = [s for s in a.scenarios if s not in SCENARIOS]
    if unknown:
        p.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    a.scenarios = [s for s in SCENARIOS if s in a.scenarios]
    if a.runs < 1 or a.duration < 1 or a.connections < 1 or a.threads < 1:
        p.error("--runs, --duration, --connections and --threads must be at least 1")
    if a.settle < 0:
        p.error("--settle must be 0 or more")
    if a.dataset and any(getattr(a, "gen_" + f) is not None for f in GEN_FLAGS):
        p.error("--dataset and the dataset size flags exclude each other")
    for flag, v in PRESETS[a.preset].items():
        if getattr(a, "gen_" + flag) is None:
            setattr(a, "gen_" + flag, v)
    return a


# --- dataset -------------------------------------------------------------------------

def dataset(a):
    """The cached dataset for these arguments, generating it when missing."""
    if a.dataset:
        with open(a.dataset + ".meta.json") as f:
            return a.dataset, json.load(f), None
    gen_argv = []
    for flag in GEN_FLAGS:
        v = getattr(a, "gen_" + flag)
        if v is not None:
            gen_argv += ["--" + flag.replace("_", "-"), str(v)]
    resolved = vars(gen_dataset.parse_args(gen_argv + ["--out", "-"]))
    resolved.pop("out")
    h = hashlib.sha256()
    with open(GENERATOR, "rb") as f:
        h.update(f.read())
    h.update(json.dumps(resolved, sort_keys=True).encode())
    cache = os.environ.get("BENCH_DATA_DIR", "/tmp/hearth-bench")
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, f"dataset-{h.hexdigest()[:16]}.ndjson")
    gen_secs = None
    if os.path.exists(path) and os.path.exists(path + ".meta.json"):
        log(f"dataset {path} (cached)")
    else:
        log(f"generating dataset {path} {' '.join(gen_argv)}")
        t0 = time.monotonic()
        subprocess.run([sys.executable, GENERATOR, "--out", path] + gen_argv, check=True)
        gen_secs = time.monotonic() - t0
        log(f"generated in {gen_secs:.1f} s")
    with open(path + ".meta.json") as f:
        return path, json.load(f), gen_secs


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def db_files(db):
    """The database and its WAL, as far as they exist (the -shm index is rebuilt on open)."""
    return [p for p in (db, db + "-wal") if os.path.exists(p)]


def load(binary, data, lines, db, fresh):
    """Puts the imported dataset at `db`: imported by `binary` once, then copied from the
    cache (BENCH_DATA_DIR/db-<dataset>-<binary>/), since a 10x import takes minutes. The
    cache key is the dataset file's name (its content hash for generated ones; for
    --dataset its path, size and mtime) and the binary's SHA-256, so a database is only
    ever reused by the build that imported it. Returns the import timing (from the run
    that imported it, marked cached when it was copied)."""
    if os.path.basename(data).startswith("dataset-"):
        data_key = os.path.basename(data).removesuffix(".ndjson")
    else:
        st = os.stat(data)
        data_key = "file-" + hashlib.sha256(f"{os.path.abspath(data)}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]
    cache = os.path.join(os.environ.get("BENCH_DATA_DIR", "/tmp/hearth-bench"),
                         f"db-{data_key}-{file_sha256(binary)[:16]}")
    info_file = os.path.join(cache, "import.json")
    if not fresh and os.path.exists(info_file):
        with open(info_file) as f:
            info = json.load(f)
        t0 = time.monotonic()
        for src in db_files(os.path.join(cache, "hearth.db")):
            shutil.copyfile(src, db + src[len(os.path.join(cache, "hearth.db")):])
        log(f"import: cached database {cache} (imported {info['imported_at']}: {info['rows']:,} lines "
            f"in {info['import_s']:.1f} s = {info['rows_per_s']:,} rows/s, {info['db_bytes'] / 2**20:.0f} MB); "
            f"copied in {time.monotonic() - t0:.1f} s")
        return dict(info, cached=True, cache_dir=cache)

    cli(binary, db, "init")
    t0 = time.monotonic()
    cli(binary, db, "import", data)
    import_s = time.monotonic() - t0
    db_bytes = sum(os.path.getsize(p) for p in db_files(db))
    info = {"import_s": round(import_s, 3), "rows": lines, "rows_per_s": round(lines / import_s),
            "db_bytes": db_bytes, "db_file_bytes": os.path.getsize(db),
            "dataset_bytes": os.path.getsize(data),
            "imported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "binary": binary}
    log(f"import: {lines:,} lines in {import_s:.1f} s = {lines / import_s:,.0f} rows/s "
        f"(dataset {info['dataset_bytes'] / 2**20:.0f} MB -> database {db_bytes / 2**20:.0f} MB)")
    # into the cache through a private dir and one rename, so a concurrent run never
    # copies a half-written database
    tmp = tempfile.mkdtemp(prefix="db-tmp-", dir=os.path.dirname(cache))
    try:
        for src in db_files(db):
            shutil.copyfile(src, os.path.join(tmp, "hearth.db" + src[len(db):]))
        with open(os.path.join(tmp, "import.json"), "w") as f:
            json.dump(info, f, indent=1)
        if fresh and os.path.isdir(cache):
            shutil.rmtree(cache, ignore_errors=True)
        os.rename(tmp, cache)
        log(f"import: cached as {cache}")
    except OSError as e:
        log(f"import: not cached ({e})")
        shutil.rmtree(tmp, ignore_errors=True)
    return dict(info, cached=False, cache_dir=cache)


# --- wrk -----------------------------------------------------------------------------

def wrk_threads(scenario, connections, threads=1):
    """mixed gives every connection its own thread (its own Lua state: its own user,
    JWT and refresh tokens, and exact per-request timing); the others use `threads` (1),
    never more than their connections."""
    return connections if scenario == "mixed" else min(threads, connections)


def run_wrk(scenario, base, seconds, connections, env, pin, cpus="1", threads=1):
    threads = wrk_threads(scenario, connections, threads)
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s",
           "-s", os.path.join(LUA_DIR, scenario + ".lua"), base]
    if pin:
        cmd = ["taskset", "-c", cpus] + cmd
    p = subprocess.run(cmd, env={**os.environ, **env, "BENCH_THREADS": str(threads)},
                       capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            r = json.loads(line[len("BENCH_RESULT "):])
            secs = r["duration_us"] / 1e6
            out = {
                "requests": r["requests"],
                "seconds": round(secs, 3),
                "rps": r["requests"] / secs if secs else 0.0,
                "p50_ms": r["p50_us"] / 1000,
                "p99_ms": r["p99_us"] / 1000,
                "mean_ms": r["mean_us"] / 1000,
                "max_ms": r["max_us"] / 1000,
                "non2xx": r["non2xx"],
                "socket_errors": {k: r[k] for k in ("connect", "read", "write", "timeout")},
            }
            return out
    raise SystemExit(f"bench: wrk failed for {scenario} (exit {p.returncode}):\n{p.stdout}\n{p.stderr}")


# --- main ----------------------------------------------------------------------------

def cli(binary, db, *args):
    p = subprocess.run([binary, "--db", db, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench: hearth {' '.join(args)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return p.stdout.strip()


def main():
    a = parse_args()
    binary = os.environ.get("HEARTH_BIN") or os.path.join(REPO, "target", "release", "hearth")
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"bench: no hearth binary at {binary} (bench/run.sh builds it)")
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is not installed (bench/run.sh installs it)")
    ncpu = len(os.sched_getaffinity(0))
    pin = ncpu >= 2 and shutil.which("taskset") is not None
    log(f"{ncpu} CPUs: " + (f"server on CPUs {a.server_cpus}, wrk on CPUs {a.wrk_cpus}" if pin
                            else "server and wrk share the CPUs"))
    metrics = "--metrics-listen" in serve_flags(binary)
    log("writer waits: " + ("the server's hearth_db_write_wait_seconds (serve --metrics-listen)" if metrics
                            else "this build has no serve --metrics-listen: client-side write latency only"))

    data, meta, gen_secs = dataset(a)
    lines = meta["lines"]
    workdir = tempfile.mkdtemp(prefix="run-", dir=os.environ.get("BENCH_DATA_DIR", "/tmp/hearth-bench"))
    db = os.path.join(workdir, "hearth.db")
    result = {
        "machine": {"cpus": ncpu, "platform": platform.platform(), "pinned": pin,
                    "server_cpus": a.server_cpus if pin else None, "wrk_cpus": a.wrk_cpus if pin else None,
                    "cpu_model": cpu_model(), "loadavg": os.getloadavg()},
        "hearth": {"binary": binary, "version": cli_version(binary), "metrics": metrics},
        "settings": {"runs": a.runs, "duration_s": a.duration, "warmup_s": a.warmup,
                     "connections": a.connections, "password_connections": PASSWORD_CONNECTIONS,
                     "wrk": f"wrk -t{a.threads} --timeout 30s (mixed: -t<connections>)", "settle_s": a.settle},
        "dataset": {"preset": None if a.dataset else a.preset, "file": data,
                    "bytes": os.path.getsize(data), "meta": meta, "generate_s": gen_secs},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    server = None
    try:
        result["load"] = load(binary, data, lines, db, a.fresh_import)
        client_id = json.loads(cli(binary, db, "app", "create", "--name", "bench", "--grant", "password", "--json"))["client_id"]
        jwt = mint_jwt(binary, db, 1)
        users = meta["counts"]["user"]
        creds_file = None
        if "mixed" in a.scenarios:
            check_mixed_data(meta)
            creds_file = os.path.join(workdir, "mixed-creds")
            mixed_credentials(binary, db, users, a.connections, creds_file)

        server = Server(binary, db, os.path.join(workdir, "server.log"), pin, metrics, cpus=a.server_cpus)
        t0 = time.monotonic()
        server.wait_ready()
        idle = proc_status(server.pid)
        log(f"hearth ready on {server.base} in {time.monotonic() - t0:.2f} s, pid {server.pid}, "
            f"idle RSS {idle['VmRSS']:.1f} MB")
        result["memory"] = {"idle": idle}
        oauth = password_grant(server.base, client_id, "user000001")["access_token"]

        env = scenario_env(server.base, meta, jwt, oauth, client_id)
        if creds_file:
            env["BENCH_CREDS"] = creds_file
        result["deep_offset"] = int(env["BENCH_DEEP_OFFSET"])
        result["preflight"] = preflight(server.base, jwt, oauth, meta, "mixed" in a.scenarios)
        tokens_file = os.path.join(workdir, "password-grant-tokens")
        open(tokens_file, "w").close()
        env["BENCH_TOKENS_OUT"] = tokens_file

        result["scenarios"] = {}
        for scenario in a.scenarios:
            conns = PASSWORD_CONNECTIONS if scenario == "token_password" else a.connections
            if scenario == "token_refresh":
                env["BENCH_POOL"] = seed_pool(server.base, client_id, users, [tokens_file], workdir,
                                              conns * (a.runs + 1) + 32, "pool")
                env["BENCH_POOL_OUT"] = os.path.join(workdir, "pool-next")
            if scenario == "mixed":
                # what token_refresh left (else token_password's tokens), topped up so that
                # every connection starts with one and a quarter of them with a spare
                env["BENCH_POOL"] = seed_pool(server.base, client_id, users,
                                              [env.get("BENCH_POOL") or tokens_file], workdir,
                                              conns + conns // 4, "mixed-pool")
                env["BENCH_MIXED_LOG"] = os.path.join(workdir, "mixed-log")
            log(f"{scenario}: c={conns}, {a.warmup} s warm-up + {a.runs} x {a.duration} s")
            wrk = {"cpus": a.wrk_cpus, "threads": a.threads}
            if a.warmup:
                run_scenario(scenario, server, a.warmup, conns, env, pin, "warmup", wrk=wrk)
            runs = [run_scenario(scenario, server, a.duration, conns, env, pin, f"r{i}", last=i == a.runs, wrk=wrk)
                    for i in range(1, a.runs + 1)]
            result["scenarios"][scenario] = summarize(scenario, runs, conns)
        result["memory"].update(after_load(server.pid, a.settle, idle))
    finally:
        if server:
            server.stop()
        if a.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    print_table(result, a)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        log(f"wrote {a.out}")


def scenario_env(base, meta, jwt, oauth, client_id):
    """What the Lua scenarios read from the environment, for a server at `base` over the
    dataset `meta` describes."""
    counts = meta["counts"]
    return {
        "BENCH_LUA_DIR": LUA_DIR, "BENCH_JWT": jwt, "BENCH_OAUTH": oauth,
        "BENCH_CLIENT_ID": client_id, "BENCH_USERS": str(counts["user"]),
        "BENCH_COURSES": str(meta["courses"]["max_id"]),
        "BENCH_HUB_POSTS": str(meta["hub_deleted_posts"][1]),
        "BENCH_DEEP_OFFSET": str(deep_offset(base, jwt)),
        "BENCH_DISCUSSIONS": str(counts.get("discussion", 0)),
        "BENCH_POSTS": str(counts.get("post", 0)),
        "BENCH_STATUSES": str(counts.get("status", 0)),
        "BENCH_CATEGORIES": str(counts.get("category", 0)),
        "BENCH_PM_MESSAGES": str(meta.get("pm", {}).get("messages", 0)),
        "BENCH_HUB_GROUP": str((meta.get("groups") or {}).get("hub_group") or 0),
        "BENCH_EVENT_TOPICS": str((meta.get("events") or {}).get("topics", 97)),
    }


def mint_jwt(binary, db, user_id):
    jwt = cli(binary, db, "jwt", "mint", "--user-id", str(user_id), "--ttl", "86400")
    if jwt.startswith("{"):
        jwt = next(v for k, v in json.loads(jwt).items() if k in ("token", "access", "access_token"))
    return jwt


def mixed_credentials(binary, db, users, conns, path):
    """`user_id jwt` per connection, each JWT from `hearth jwt mint` (a day's lifetime)."""
    t0 = time.monotonic()
    with open(path, "w") as f:
        for uid in mixed_users(users, conns):
            f.write(f"{uid} {mint_jwt(binary, db, uid)}\n")
    log(f"mixed: minted {conns} JWTs (one user per connection) in {time.monotonic() - t0:.1f} s")


def after_load(pid, settle, idle):
    """Memory once the load is over: VmHWM (the peak over the whole benchmark), then VmRSS
    once a second for `settle` seconds after the last scenario drained; `after` is the last
    reading."""
    final = proc_status(pid)
    series = [final["VmRSS"]]
    for _ in range(settle):
        time.sleep(1)
        series.append(proc_status(pid)["VmRSS"])
    after = proc_status(pid)
    log(f"memory: idle {idle['VmRSS']:.1f} MB, peak {final['VmHWM']:.1f} MB, "
        f"{settle} s after the load {after['VmRSS']:.1f} MB ({after['VmRSS'] / idle['VmRSS']:.1f}x idle)")
    return {"final": final, "peak_rss_mb": final["VmHWM"], "idle_rss_mb": idle["VmRSS"],
            "after_load": after, "after_load_rss_mb": after["VmRSS"],
            "after_load_vs_idle": round(after["VmRSS"] / idle["VmRSS"], 2) if idle["VmRSS"] else None,
            "after_load_series_mb": [round(v, 1) for v in series]}


def run_scenario(scenario, server, seconds, conns, env, pin, tag, last=False, wrk=None):
    """One wrk run of `scenario`; `wrk`: run_wrk's cpus and threads (CPU 1, 1 thread when None)."""
    run_env = dict(env, BENCH_SEED=str(random.randrange(1, 2**31)),
                   BENCH_RUN_PREFIX=f"{int(time.time())}-{tag}")
    if scenario == "mixed":
        logdir = env["BENCH_MIXED_LOG"]
        shutil.rmtree(logdir, ignore_errors=True)
        os.makedirs(logdir)
    before = server.histograms(WAIT_HISTOGRAMS)
    cpu0 = cpu_seconds(server.pid)
    r = run_wrk(scenario, server.base, seconds, conns, run_env, pin, **(wrk or {}))
    r["server_cpu_us_per_req"] = round((cpu_seconds(server.pid) - cpu0) * 1e6 / max(1, r["requests"]), 1)
    server.drain()
    after = server.histograms(WAIT_HISTOGRAMS)
    if after:
        # waits of this run only (the drain's /healthz reads included)
        r["db_waits"] = {name: waits_over(before, after, name, WRITE_WAIT_LIMIT_S) for name in WAIT_HISTOGRAMS}
    r["rss_after"] = proc_status(server.pid)
    if scenario == "mixed":
        r["mixed"], left = mixed_report(logdir)
        with open(env["BENCH_POOL"], "w") as f:  # what is left seeds the next run
            f.write("".join(t + "\n" for t in left))
        r["pool_left"] = len(left)
    if scenario == "token_refresh":
        os.replace(env["BENCH_POOL_OUT"], env["BENCH_POOL"])  # what is left seeds the next run
        with open(env["BENCH_POOL"]) as f:
            r["pool_left"] = sum(1 for line in f if line.strip())
        if r["pool_left"] < conns and not last:
            log(f"token_refresh: only {r['pool_left']} refresh tokens left; the next run will starve")
    if r["requests"] < conns and tag != "warmup":
        log(f"{scenario}: only {r['requests']} requests completed in {seconds} s with {conns} connections: "
            "each connection did not finish one request; use a longer --duration for this route")
    errs = sum(r["socket_errors"].values())
    log(f"  {tag}: {r['rps']:.1f} req/s, p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, "
        f"non2xx {r['non2xx']}" + (f", socket errors {r['socket_errors']}" if errs else ""))
    if scenario == "mixed":
        m = r["mixed"]
        w, rd = m["groups"]["writes"], m["groups"]["reads"]
        m["write_share_over_10ms"] = w["over_10ms"] / w["n"] if w["n"] else 0.0
        ww = (r.get("db_waits") or {}).get("hearth_db_write_wait_seconds")
        log(f"  {tag}: reads {rd['n']} (p99 {rd['p99_us'] / 1000:.2f} ms), writes {w['n']} "
            f"(p99 {w['p99_us'] / 1000:.2f} ms, {100 * m['write_share_over_10ms']:.1f}% slower than 10 ms)"
            + (f", writer waits > 10 ms: {ww['over']} of {ww['waits']}" if ww else "")
            + (f", {m['refresh_skipped']} refreshes skipped (no token left)" if m["refresh_skipped"] else ""))
        bad = {k: v["status"] for k, v in m["kinds"].items() if v["non2xx"]}
        if bad and tag != "warmup":
            log(f"  {tag}: mixed answers other than 2xx: {bad}")
    return r


def seed_pool(base, client_id, users, sources, workdir, need, name):
    """A refresh-token pool file of at least `need` tokens: those in the `sources` files,
    topped up by password grants."""
    pool = []
    for src in sources:
        with open(src) as f:
            pool += [line.strip() for line in f if line.strip()]
    if len(pool) < need:
        n, t0 = need - len(pool), time.monotonic()
        pool += refresh_tokens(base, client_id, n, users)
        log(f"{name}: seeded {n} refresh tokens by password grant in {time.monotonic() - t0:.1f} s "
            f"({need - n} left over)")
    path = os.path.join(workdir, name)
    with open(path, "w") as f:
        f.write("\n".join(pool) + "\n")
    return path


def preflight(base, jwt, oauth, meta, mixed=False):
    """One request per kind before the load: the dataset arrived as the scenarios expect
    (and, for mixed, this build serves every route the blend uses)."""
    auth = {"Authorization": "Bearer " + jwt}
    hub = meta["hub"]
    checks = [
        ("/livez", None, None, None),
        ("/api/v2/user/me/", auth, "id", 1),
        ("/api/v2/user/me/", {"Authorization": "Bearer " + oauth}, "id", 1),
        ("/api/v2/user/1/followings/", None, "count", hub["followings"]),
        ("/api/v2/user/1/followings/?mutual=1", None, "count", hub["mutual"]),
        ("/api/v2/reaction/search/?search=a&active=true", None, "count", 3),
        ("/api/v2/post/1/", auth, "deleted", True),
    ]
    groups, events = meta.get("groups") or {}, meta.get("events") or {}
    if groups.get("hub_group"):
        checks.append((f"/api/v2/group/{groups['hub_group']}/feed/?limit=1", auth, "count",
                       groups["hub_group_posts"]))
    if events.get("count"):
        checks.append(("/api/v2/event/search/?limit=1", auth, None, None))
    if mixed:
        live_post = meta["hub_deleted_posts"][1] + 1
        checks += [
            (f"/api/v2/post/{live_post}/vote/", auth, None, None),  # votes: SPEC section 8
            ("/api/v2/comment/?discussion=1", auth, None, None),
            ("/api/v2/course/", auth, None, None),
        ]
    report = []
    for path, hdrs, key, want in checks:
        status, body = http(base + path, headers=hdrs or {})
        got = json.loads(body).get(key) if key and status == 200 else None
        ok = status == 200 and (key is None or got == want)
        report.append({"path": path, "status": status, key or "body": got, "ok": ok})
        if not ok:
            log(f"preflight: GET {path} -> {status}, {key} = {got!r} (expected 200, {want!r}): {body[:200]!r}")
    log("preflight: " + ("all as expected" if all(r["ok"] for r in report) else "MISMATCHES above"))
    return report


def deep_offset(base, jwt):
    status, body = http(base + "/api/v2/course/search/?limit=1", headers={"Authorization": "Bearer " + jwt})
    if status != 200:
        raise SystemExit(f"bench: course search answered {status}: {body[:300]!r}")
    count = json.loads(body)["count"]
    # the deepest page every list serves (http/pagination.rs caps offset at 10,000)
    return max(0, min(10000, count - 20))


def summarize(scenario, runs, conns):
    out = {
        "connections": conns,
        "rps": statistics.median(r["rps"] for r in runs),
        "p50_ms": statistics.median(r["p50_ms"] for r in runs),
        "p99_ms": statistics.median(r["p99_ms"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "socket_errors": sum(sum(r["socket_errors"].values()) for r in runs),
        "server_cpu_us_per_req": statistics.median(r["server_cpu_us_per_req"] for r in runs),
        "runs": runs,
    }
    if scenario == "mixed":
        out["mixed"] = summarize_mixed(runs)
    return out


def print_table(result, a):
    load = result["load"]
    cached = f", cached from {load['imported_at']}" if load.get("cached") else ""
    ds = result["dataset"]
    print(f"\nhearth {result['hearth']['version']}; {a.runs} x {a.duration} s per scenario, "
          f"wrk -t{a.threads} -c{a.connections} (mixed -t{a.connections}); dataset "
          f"{'preset ' + ds['preset'] + ', ' if ds['preset'] else ''}{ds['meta']['lines']:,} lines "
          f"({ds['bytes'] / 2**20:,.0f} MB)")
    print(f"import: {load['import_s']:.1f} s = {load['rows_per_s']:,} rows/s; database "
          f"{load['db_bytes'] / 2**20:,.0f} MB{cached}")
    print(f"{'scenario':<24} {'req/s':>9} {'p50_ms':>8} {'p99_ms':>9} {'non2xx':>7}")
    for name, s in result.get("scenarios", {}).items():
        note = ""
        if name == "ceiling":
            note = "   (the ceiling: GET /livez, no DB)"
        elif s["connections"] != a.connections:
            note = f"   (c={s['connections']})"
        if s["socket_errors"]:
            note += f"   socket errors {s['socket_errors']}"
        print(f"{name:<24} {s['rps']:>9.1f} {s['p50_ms']:>8.2f} {s['p99_ms']:>9.2f} {s['non2xx']:>7}{note}")
    mixed = result.get("scenarios", {}).get("mixed")
    if mixed:
        print_mixed(mixed["mixed"], a)
    m = result["memory"]
    print(f"memory: idle {m['idle_rss_mb']:.1f} MB (VmRSS once ready, before the load); "
          f"peak {m['peak_rss_mb']:.1f} MB (VmHWM over the whole benchmark); "
          f"after the load {m['after_load_rss_mb']:.1f} MB (VmRSS {a.settle} s after the last scenario, "
          f"{m['after_load_vs_idle']}x idle)")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def cli_version(binary):
    try:
        return subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


if __name__ == "__main__":
    main()
