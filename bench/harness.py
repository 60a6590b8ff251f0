#!/usr/bin/env python3
"""hearth's benchmark harness (issue 8). Python 3 standard library only.

Generates (or reuses) the dataset, loads it into a fresh database, starts the release
binary on a free port, runs every scenario with wrk and prints one line per scenario:

    scenario  req/s  p50_ms  p99_ms  non2xx

plus the server's peak and idle RSS. bench/run.sh installs wrk and builds the binary
first; see bench/README.md.
"""

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
LUA_DIR = os.path.join(BENCH_DIR, "lua")
GENERATOR = os.path.join(BENCH_DIR, "gen_dataset.py")
sys.path.insert(0, BENCH_DIR)
import gen_dataset  # noqa: E402  (for its argument parsing: the cache key is the resolved args)

# In run order. token_password comes before token_refresh: its refresh tokens seed the pool.
SCENARIOS = [
    "ceiling", "healthz", "reactions_search", "prefs_search_keys", "me_jwt", "me_oauth",
    "verify_token", "followings_hub", "followings_hub_mutual1", "course_get",
    "course_search_p1", "course_search_deep", "course_create", "restore_post",
    "token_password", "token_refresh",
]
PASSWORD_CONNECTIONS = 4  # token_password: each request is 600k PBKDF2 iterations
GEN_FLAGS = ["users", "follows_per_user", "hub_followings", "hub_mutual", "categories",
             "courses", "discussions", "posts", "hub_deleted_posts", "statuses", "comments"]


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


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
    g = p.add_argument_group("dataset size (passed to gen_dataset.py)")
    for flag in GEN_FLAGS:
        g.add_argument("--" + flag.replace("_", "-"), type=int, dest="gen_" + flag)
    a = p.parse_args()
    a.scenarios = [s for s in a.scenarios.split(",") if s] or list(SCENARIOS)
    unknown = [s for s in a.scenarios if s not in SCENARIOS]
    if unknown:
        p.error(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    a.scenarios = [s for s in SCENARIOS if s in a.scenarios]
    if a.runs < 1 or a.duration < 1 or a.connections < 1:
        p.error("--runs, --duration and --connections must be at least 1")
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


# --- the server ----------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid):
    """VmRSS / VmHWM / RssAnon of a process in MB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon"):
                out[key] = int(rest.split()[0]) / 1024
    return out


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, binary, db, logfile, pin):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [binary, "--db", db, "serve", "--listen", f"127.0.0.1:{self.port}", "--public-url", self.base]
        if pin:
            cmd = ["taskset", "-c", "0"] + cmd  # taskset execs: the pid is hearth's
        self.log = open(logfile, "w")
        # wrk and this harness are one client address: lift the per-address cap (64)
        # above the load's connections so that no probe races wrk's closing sockets
        env = dict(os.environ)
        env.setdefault("HEARTH_MAX_CONNECTIONS_PER_ADDRESS", "1024")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.pid = self.proc.pid

    def wait_ready(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"bench: hearth exited with {self.proc.returncode}; see {self.log.name}")
            try:
                if http(self.base + "/healthz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"bench: hearth not ready after {timeout} s; see {self.log.name}")

    def drain(self, timeout=120):
        """Wait until the server has worked off what wrk left queued: /healthz < 100 ms twice."""
        fast, deadline = 0, time.monotonic() + timeout
        while fast < 2 and time.monotonic() < deadline:
            t0 = time.monotonic()
            try:
                ok = http(self.base + "/healthz", timeout=30)[0] == 200
            except OSError:
                ok = False
            fast = fast + 1 if ok and time.monotonic() - t0 < 0.1 else 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def http(url, data=None, headers=None, timeout=60):
    """(status, body bytes) of one request; HTTP errors are returned, not raised."""
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def password_grant(base, client_id, username):
    """One password grant (retrying a 429/503 'later'); returns the JSON answer."""
    form = urllib.parse.urlencode({"grant_type": "password", "client_id": client_id,
                                   "username": username, "password": "benchpass"}).encode()
    hdrs = {"Content-Type": "application/x-www-form-urlencoded"}
    for attempt in range(8):
        status, body = http(base + "/oauth/token/", form, hdrs)
        if status == 200:
            return json.loads(body)
        if status not in (429, 503):
            raise SystemExit(f"bench: password grant for {username}: HTTP {status} {body[:300]!r}")
        time.sleep(0.5 * 2 ** attempt)
    raise SystemExit(f"bench: password grant for {username} kept answering {status}")


def refresh_tokens(base, client_id, n, users, workers=4):
    """n refresh tokens from password grants of distinct-ish users, 4 at a time."""
    out, lock = [], threading.Lock()
    names = [f"user{(i % max(1, users - 1)) + 2:06d}" for i in range(n)]

    def work(chunk):
        for name in chunk:
            rt = password_grant(base, client_id, name)["refresh_token"]
            with lock:
                out.append(rt)

    threads = [threading.Thread(target=work, args=(names[i::workers],)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if len(out) != n:
        raise SystemExit("bench: seeding refresh tokens failed")
    return out


# --- wrk -----------------------------------------------------------------------------

def run_wrk(scenario, base, seconds, connections, env, pin):
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s",
           "-s", os.path.join(LUA_DIR, scenario + ".lua"), base]
    if pin:
        cmd = ["taskset", "-c", "1"] + cmd
    p = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            r = json.loads(line[len("BENCH_RESULT "):])
            secs = r["duration_us"] / 1e6
            return {
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
    log(f"{ncpu} CPUs: " + ("server on CPU 0, wrk on CPU 1" if pin else "server and wrk share the CPUs"))

    data, meta, gen_secs = dataset(a)
    lines = meta["lines"]
    workdir = tempfile.mkdtemp(prefix="run-", dir=os.environ.get("BENCH_DATA_DIR", "/tmp/hearth-bench"))
    db = os.path.join(workdir, "hearth.db")
    result = {
        "machine": {"cpus": ncpu, "platform": platform.platform(), "pinned": pin,
                    "cpu_model": cpu_model()},
        "hearth": {"binary": binary, "version": cli_version(binary)},
        "settings": {"runs": a.runs, "duration_s": a.duration, "warmup_s": a.warmup,
                     "connections": a.connections, "password_connections": PASSWORD_CONNECTIONS,
                     "wrk": "wrk -t1 --timeout 30s"},
        "dataset": {"file": data, "meta": meta, "generate_s": gen_secs},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    server = None
    try:
        cli(binary, db, "init")
        t0 = time.monotonic()
        cli(binary, db, "import", data)
        import_s = time.monotonic() - t0
        log(f"import: {lines} lines in {import_s:.1f} s = {lines / import_s:,.0f} rows/s "
            f"(database {os.path.getsize(db) / 2**20:.0f} MB)")
        result["load"] = {"import_s": round(import_s, 3), "rows": lines,
                          "rows_per_s": round(lines / import_s), "db_bytes": os.path.getsize(db)}
        client_id = json.loads(cli(binary, db, "app", "create", "--name", "bench", "--grant", "password", "--json"))["client_id"]
        jwt = cli(binary, db, "jwt", "mint", "--user-id", "1", "--ttl", "86400")
        if jwt.startswith("{"):
            jwt = next(v for k, v in json.loads(jwt).items() if k in ("token", "access", "access_token"))

        server = Server(binary, db, os.path.join(workdir, "server.log"), pin)
        t0 = time.monotonic()
        server.wait_ready()
        idle = proc_status(server.pid)
        log(f"hearth ready on {server.base} in {time.monotonic() - t0:.2f} s, pid {server.pid}, "
            f"idle RSS {idle['VmRSS']:.1f} MB")
        result["memory"] = {"idle": idle}
        oauth = password_grant(server.base, client_id, "user000001")["access_token"]

        users = meta["counts"]["user"]
        env = {
            "BENCH_LUA_DIR": LUA_DIR, "BENCH_JWT": jwt, "BENCH_OAUTH": oauth,
            "BENCH_CLIENT_ID": client_id, "BENCH_USERS": str(users),
            "BENCH_COURSES": str(meta["courses"]["max_id"]),
            "BENCH_HUB_POSTS": str(meta["hub_deleted_posts"][1]),
            "BENCH_DEEP_OFFSET": str(deep_offset(server.base, jwt)),
        }
        result["deep_offset"] = int(env["BENCH_DEEP_OFFSET"])
        result["preflight"] = preflight(server.base, jwt, oauth, meta)
        tokens_file = os.path.join(workdir, "password-grant-tokens")
        open(tokens_file, "w").close()
        env["BENCH_TOKENS_OUT"] = tokens_file

        result["scenarios"] = {}
        for scenario in a.scenarios:
            conns = PASSWORD_CONNECTIONS if scenario == "token_password" else a.connections
            if scenario == "token_refresh":
                env["BENCH_POOL"] = seed_pool(server.base, client_id, users, tokens_file, workdir,
                                              conns * (a.runs + 1) + 32)
                env["BENCH_POOL_OUT"] = os.path.join(workdir, "pool-next")
            log(f"{scenario}: c={conns}, {a.warmup} s warm-up + {a.runs} x {a.duration} s")
            if a.warmup:
                run_scenario(scenario, server, a.warmup, conns, env, pin, "warmup")
            runs = [run_scenario(scenario, server, a.duration, conns, env, pin, f"r{i}", last=i == a.runs)
                    for i in range(1, a.runs + 1)]
            result["scenarios"][scenario] = summarize(runs, conns)
        result["memory"]["final"] = proc_status(server.pid)
        result["memory"]["peak_rss_mb"] = result["memory"]["final"]["VmHWM"]
        result["memory"]["idle_rss_mb"] = idle["VmRSS"]
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


def run_scenario(scenario, server, seconds, conns, env, pin, tag, last=False):
    run_env = dict(env, BENCH_SEED=str(random.randrange(1, 2**31)),
                   BENCH_RUN_PREFIX=f"{int(time.time())}-{tag}")
    cpu0 = cpu_seconds(server.pid)
    r = run_wrk(scenario, server.base, seconds, conns, run_env, pin)
    r["server_cpu_us_per_req"] = round((cpu_seconds(server.pid) - cpu0) * 1e6 / max(1, r["requests"]), 1)
    server.drain()
    r["rss_after"] = proc_status(server.pid)
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
    return r


def seed_pool(base, client_id, users, tokens_file, workdir, need):
    with open(tokens_file) as f:
        pool = [line.strip() for line in f if line.strip()]
    if len(pool) < need:
        log(f"token_refresh: seeding {need - len(pool)} refresh tokens by password grant "
            f"({len(pool)} from token_password)")
        pool += refresh_tokens(base, client_id, need - len(pool), users)
    path = os.path.join(workdir, "pool")
    with open(path, "w") as f:
        f.write("\n".join(pool) + "\n")
    return path


def preflight(base, jwt, oauth, meta):
    """One request per kind before the load: the dataset arrived as the scenarios expect."""
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
    return max(0, min(50000, count - 20))


def summarize(runs, conns):
    return {
        "connections": conns,
        "rps": statistics.median(r["rps"] for r in runs),
        "p50_ms": statistics.median(r["p50_ms"] for r in runs),
        "p99_ms": statistics.median(r["p99_ms"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "socket_errors": sum(sum(r["socket_errors"].values()) for r in runs),
        "server_cpu_us_per_req": statistics.median(r["server_cpu_us_per_req"] for r in runs),
        "runs": runs,
    }


def print_table(result, a):
    print(f"\nhearth {result['hearth']['version']}; {a.runs} x {a.duration} s per scenario, "
          f"wrk -t1 -c{a.connections}; dataset {result['dataset']['meta']['lines']:,} lines; "
          f"import {result['load']['import_s']:.1f} s ({result['load']['rows_per_s']:,} rows/s)")
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
    m = result["memory"]
    print(f"peak RSS (VmHWM) under load: {m['peak_rss_mb']:.1f} MB; idle RSS after start: {m['idle_rss_mb']:.1f} MB")


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
