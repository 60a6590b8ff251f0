"""The hearth server the harness benchmarks: started on a free port over the loaded
database, ready and drained by /healthz, read through /proc (memory, CPU time) and
/metrics; and the small HTTP client the harness talks to it with (password grants,
refresh tokens)."""

import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import procs  # bench/, beside this module
from metrics import parse_histograms


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


def serve_flags(binary):
    """The long options `hearth serve --help` lists (to detect optional features)."""
    try:
        out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return {w.rstrip(",") for w in out.split() if w.startswith("--")}


class Server:
    def __init__(self, binary, db, logfile, pin, metrics=False, env=None, cpus="0"):
        self.port = procs.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [binary, "--db", db, "serve", "--listen", f"127.0.0.1:{self.port}", "--public-url", self.base]
        # the server's own histogram of waits for the writer, when this build has metrics
        self.metrics_url = None
        if metrics:
            mport = procs.free_port()
            cmd += ["--metrics-listen", f"127.0.0.1:{mport}"]
            self.metrics_url = f"http://127.0.0.1:{mport}/metrics"
        if pin:
            cmd = ["taskset", "-c", cpus] + cmd  # taskset execs: the pid is hearth's
        self.log = open(logfile, "w")
        # wrk and this harness are one client address: lift the per-address cap (64)
        # above the load's connections so that no probe races wrk's closing sockets
        env = {**os.environ, **(env or {})}
        env.setdefault("HEARTH_MAX_CONNECTIONS_PER_ADDRESS", "1024")
        # one user a connection writes far faster than a person: no per-user write rate,
        # and a daily budget no run reaches (so every write is still charged and its
        # cost measured); builds without the quota ignore both
        env.setdefault("HEARTH_USER_WRITE_RATE", "0")
        env.setdefault("HEARTH_USER_DAILY_BYTES", "1TiB")
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

    def histograms(self, names):
        """{name: {"buckets": {le: cumulative count}, "count": n, "sum": s}} from /metrics,
        summed over label sets other than `le`; None without metrics or on failure."""
        if not self.metrics_url:
            return None
        try:
            status, body = http(self.metrics_url, timeout=10)
        except OSError:
            return None
        if status != 200:
            return None
        return parse_histograms(body.decode("utf-8", "replace"), names)

    def stop(self):
        procs.stop(self.proc, timeout=30)
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
