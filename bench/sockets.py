#!/usr/bin/env python3
"""Idle live sockets (issue 31): what N open `GET /ws/notify?subscribe-user` WebSockets
cost the server in memory, and whether they cost the request path anything.

    bench/sockets.py                              # 10,000 sockets, the mixed workload
    bench/sockets.py --sockets 2000 --rounds 4    # smaller and quicker
    bench/sockets.py --scenario me_jwt --out sockets.json

Two servers over their own copies of the 1x dataset (run.sh's caches, as pair.py), both
pinned to CPU 0, wrk on CPU 1: A holds no socket, B holds N. This process opens B's N
sockets from loopback (asyncio, a minimal WebSocket client: the HTTP/1.1 upgrade with
`Sec-WebSocket-Key`, version 13 and the kit's `Sec-WebSocket-Protocol: __<jwt>`; the 101
and the echoed protocol are checked), all as one user (`hearth jwt mint`, by default the
dataset's last user, whom mixed neither acts as nor, but for a random follow or vote,
writes to), and then leaves them idle: no heartbeat unless `--heartbeat S`; whatever the
server sends (a push) is read and counted. B's RSS (/proc VmRSS) is read before and after
the sockets open (the server's own `hearth_live_sockets_open` gauge from
`--metrics-listen` must read N), then the scenario alternates between A and B in slices as
pair.py does (A B, B A, ...), and the report gives each side's throughput, p99 and CPU per
request with the per-round B/A ratios. The sockets are checked still open after the load,
then closed, and B's gauge must come back to 0.

Both servers get `HEARTH_MAX_SOCKETS` and `HEARTH_MAX_SOCKETS_PER_ADDRESS` of N (the
defaults, 10,000 and 16, refuse a loopback bench), and this process and the servers an
RLIMIT_NOFILE raised to N + 4096 (as root, the hard limit too).
"""

import argparse
import asyncio
import base64
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import harness  # noqa: E402
import pair  # noqa: E402
from procs import log  # noqa: E402
from server import Server, cpu_seconds, http, password_grant, proc_status  # noqa: E402

SCENARIOS = ["mixed"] + pair.SCENARIOS
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
GAUGE = "hearth_live_sockets_open"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="N idle live sockets: memory and request-path cost (see the module's notes)")
    p.add_argument("--sockets", type=int, default=10000, help="sockets B holds (10000)")
    p.add_argument("--scenario", default="mixed", choices=SCENARIOS, help="the load (mixed)")
    p.add_argument("--rounds", type=int, default=8, help="slices per side (8)")
    p.add_argument("--slice", type=int, default=5, help="seconds per slice (5)")
    p.add_argument("--warmup", type=int, default=3, help="seconds of discarded load per side first (3)")
    p.add_argument("--connections", type=int, default=64, help="wrk connections (64)")
    p.add_argument("--heartbeat", type=float, default=0,
                   help="seconds between heartbeats on each socket (0: none, idle; the kit sends one every 5)")
    p.add_argument("--user", type=int, default=0, help="the sockets' user id (0: the dataset's last user)")
    p.add_argument("--open-concurrency", type=int, default=200, help="handshakes in flight while opening (200)")
    p.add_argument("--settle", type=int, default=5, help="seconds between the sockets opening and the RSS reading (5)")
    p.add_argument("--idle-window", type=int, default=30,
                   help="seconds over which both servers' CPU is read with no load, B's sockets open (30: one token recheck)")
    p.add_argument("--preset", choices=sorted(harness.PRESETS), default="1x")
    p.add_argument("--bin", default=os.environ.get("HEARTH_BIN")
                   or os.path.join(harness.REPO, "target", "release", "hearth"))
    p.add_argument("--out", help="write the readings, the slices and the summary as JSON to this file")
    a = p.parse_args(argv)
    if a.sockets < 1 or a.rounds < 1 or a.slice < 1 or a.warmup < 0 or a.connections < 1 or a.open_concurrency < 1:
        p.error("--sockets, --rounds, --slice, --connections and --open-concurrency must be at least 1, --warmup 0 or more")
    if a.heartbeat < 0 or a.settle < 0 or a.idle_window < 0:
        p.error("--heartbeat, --settle and --idle-window must be 0 or more")
    return a


# --- the WebSocket client --------------------------------------------------------------

def handshake_request(host, path, token, key):
    """The HTTP/1.1 upgrade react-core's socket sends (the token as the `__` sub-protocol)."""
    return (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: __{token}\r\n\r\n").encode()


def accept_value(key):
    return base64.b64encode(hashlib.sha1(key.encode() + WS_GUID).digest()).decode()


def check_handshake(head, key, token):
    """None when `head` (the response's status line and headers) is the 101 of this key
    with the protocol echoed; otherwise what is wrong."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or parts[1] != "101":
        return f"status {lines[0]!r}"
    hdrs = {}
    for line in lines[1:]:
        k, sep, v = line.partition(":")
        if sep:
            hdrs[k.strip().lower()] = v.strip()
    if hdrs.get("sec-websocket-accept") != accept_value(key):
        return "bad Sec-WebSocket-Accept"
    if hdrs.get("sec-websocket-protocol") != "__" + token:
        return f"protocol not echoed ({hdrs.get('sec-websocket-protocol', '')[:20]!r}...)"
    return None


def text_frame(payload, mask=None):
    """A masked text frame, FIN set, as a client must send it (RFC 6455 5.2)."""
    mask = mask if mask is not None else os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes([0x81, 0x80 | n])
    elif n < 1 << 16:
        head = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Sockets:
    """N sockets held by an asyncio loop in a thread of their own (wrk runs meanwhile)."""

    def __init__(self, port, token, heartbeat):
        self.port, self.token, self.heartbeat = port, token, heartbeat
        self.conns = []  # (reader, writer, task)
        self.failures = {}
        self.received = 0  # bytes the server sent after the handshakes (pushes, closes)
        self.ended = 0  # sockets the server closed
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def call(self, coro, timeout=None):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def open(self, n, concurrency):
        return self.call(self._open(n, concurrency))

    async def _open(self, n, concurrency):
        sem = asyncio.Semaphore(concurrency)
        path = "/ws/notify?subscribe-user"

        async def one():
            async with sem:
                key = base64.b64encode(os.urandom(16)).decode()
                try:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 30)
                    writer.write(handshake_request(f"127.0.0.1:{self.port}", path, self.token, key))
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as e:
                    self.failures[type(e).__name__] = self.failures.get(type(e).__name__, 0) + 1
                    return
                wrong = check_handshake(head[:-4], key, self.token)
                if wrong:
                    self.failures[wrong] = self.failures.get(wrong, 0) + 1
                    writer.close()
                    return
                self.conns.append((reader, writer, asyncio.ensure_future(self._hold(reader, writer))))

        await asyncio.gather(*(one() for _ in range(n)))
        return len(self.conns)

    async def _hold(self, reader, writer):
        """Reads (and counts) what the server sends; sends a heartbeat every
        `heartbeat` seconds when asked to."""
        beat = None
        if self.heartbeat:
            async def beats():
                while True:
                    await asyncio.sleep(self.heartbeat)
                    writer.write(text_frame(b"heartbeat"))
            beat = asyncio.ensure_future(beats())
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                self.received += len(data)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            if beat:
                beat.cancel()
        self.ended += 1

    def still_open(self):
        return sum(1 for _, _, t in self.conns if not t.done())

    def close(self):
        async def close_all():
            for _, writer, task in self.conns:
                task.cancel()
                writer.close()
            await asyncio.sleep(0)
        self.call(close_all())
        self.conns = []

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


# --- the servers -----------------------------------------------------------------------

def raise_nofile(need):
    """RLIMIT_NOFILE of at least `need` for this process and the servers it starts."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, need))
            return need
        except (ValueError, OSError):
            raise SystemExit(f"bench: {need} file descriptors are needed and the hard limit is {hard} "
                             "(run as root, or raise it with ulimit -Hn, or use fewer --sockets)")
    if soft == resource.RLIM_INFINITY or soft >= need:
        return soft
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    return need


def gauge(server, name=GAUGE):
    """The server's gauge `name` from /metrics (None without it)."""
    try:
        status, body = http(server.metrics_url, timeout=10)
    except OSError:
        return None
    if status != 200:
        return None
    for line in body.decode("utf-8", "replace").splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return None


def wait_gauge(server, want, timeout=30):
    deadline = time.monotonic() + timeout
    g = gauge(server)
    while g != want and time.monotonic() < deadline:
        time.sleep(0.2)
        g = gauge(server)
    return g


class Side:
    """A server over its own copy of the imported dataset, set up for the scenario (for
    mixed: one JWT per connection and a pool of refresh tokens, as harness.py does)."""

    def __init__(self, name, a, data, meta, workdir, pin, sockets):
        self.name, self.runs = name, 0
        binary = a.bin
        db = os.path.join(workdir, "hearth.db")
        harness.load(binary, data, meta["lines"], db, False)
        client_id = json.loads(harness.cli(binary, db, "app", "create", "--name", "bench", "--grant",
                                           "password", "--json"))["client_id"]
        jwt = harness.mint_jwt(binary, db, 1)
        users = meta["counts"]["user"]
        self.socket_jwt = harness.mint_jwt(binary, db, a.user or users)
        creds = None
        if a.scenario == "mixed":
            harness.check_mixed_data(meta)
            creds = os.path.join(workdir, "mixed-creds")
            harness.mixed_credentials(binary, db, users, a.connections, creds)
        cap = str(max(sockets, 1))
        env = {"HEARTH_RELEASE_MEMORY_AFTER": "0", "HEARTH_MAX_SOCKETS": cap,
               "HEARTH_MAX_SOCKETS_PER_ADDRESS": cap}
        self.server = Server(binary, db, os.path.join(workdir, "server.log"), pin, metrics=True, env=env)
        try:
            self.server.wait_ready()
            if not self.server.metrics_url:
                raise SystemExit("bench: this build has no serve --metrics-listen")
            oauth = password_grant(self.server.base, client_id, "user000001")["access_token"]
            self.env = harness.scenario_env(self.server.base, meta, jwt, oauth, client_id)
            harness.preflight(self.server.base, jwt, oauth, meta, a.scenario == "mixed")
            tokens = os.path.join(workdir, "password-grant-tokens")
            open(tokens, "w").close()
            self.env["BENCH_TOKENS_OUT"] = tokens
            if creds:
                self.env["BENCH_CREDS"] = creds
                self.env["BENCH_POOL"] = harness.seed_pool(self.server.base, client_id, users, [], workdir,
                                                           a.connections + a.connections // 4, f"{name}-mixed-pool")
                self.env["BENCH_MIXED_LOG"] = os.path.join(workdir, "mixed-log")
        except BaseException:
            self.server.stop()
            raise
        log(f"{name}: {binary} on {self.server.base}, pid {self.server.pid}")

    def run(self, scenario, seconds, conns, pin):
        self.runs += 1
        cpu0 = cpu_seconds(self.server.pid)
        r = harness.run_scenario(scenario, self.server, seconds, conns, self.env, pin, f"{self.name}{self.runs}")
        # the drain is in run_scenario: CPU per request counts what the requests left queued
        r["cpu_s"] = cpu_seconds(self.server.pid) - cpu0
        r["cpu_us_per_req"] = r["cpu_s"] * 1e6 / max(1, r["requests"])
        return r


# --- the report ------------------------------------------------------------------------

def memory(idle, held, n):
    """B's RSS before and with the sockets: the delta in MB and per socket in KB."""
    delta = held["VmRSS"] - idle["VmRSS"]
    return {"idle": idle, "with_sockets": held, "delta_mb": round(delta, 2),
            "per_socket_kb": round(delta * 1024 / n, 2) if n else None,
            "anon_delta_mb": round(held["RssAnon"] - idle["RssAnon"], 2)}


def summarize(slices):
    """pair.py's totals and B/A ratios, plus per round B's p99 over A's (above 1: B slower)
    and, for mixed, the reads' and the writes' p99 the same way."""
    out = pair.summarize(slices)
    rounds = {}
    for s in slices:
        rounds.setdefault(s["round"], {})[s["side"]] = s

    def spread(v):
        return {"median": statistics.median(v), "min": min(v), "max": max(v)} if v else None

    def ratios(get):
        v = []
        for r in rounds.values():
            if "a" in r and "b" in r:
                a, b = get(r["a"]), get(r["b"])
                if a and b:
                    v.append(b / a)
        return spread(v)

    out["ratio_p99"] = ratios(lambda s: s["p99_ms"])
    if any("mixed" in s for s in slices):
        for g in ("reads", "writes"):
            out[f"ratio_{g}_p99"] = ratios(lambda s, g=g: s.get("mixed", {}).get("groups", {}).get(g, {}).get("p99_us"))
            for side in ("a", "b"):
                v = [s["mixed"]["groups"][g]["p99_us"] / 1000 for s in slices if s["side"] == side and "mixed" in s]
                out[side][f"{g}_p99_ms_median"] = statistics.median(v) if v else None
    return out


def print_report(a, res):
    m = res["memory"]
    print(f"{res['sockets']['open']:,} idle sockets (asked {a.sockets:,}) on B, none on A; hearth "
          f"{res['hearth']}; {res['machine']['cpus']} CPUs ({res['machine']['cpu_model']})")
    print(f"  B's RSS: idle {m['idle']['VmRSS']:.1f} MB, with the sockets {m['with_sockets']['VmRSS']:.1f} MB: "
          f"+{m['delta_mb']:.1f} MB = {m['per_socket_kb']:.1f} KB a socket "
          f"(RssAnon +{m['anon_delta_mb']:.1f} MB); {res['sockets']['open_s']:.1f} s to open them")
    s = res["sockets"]
    print(f"  gauge {GAUGE}: {s['gauge_open']:.0f} open, {s['gauge_after_load']:.0f} after the load, "
          f"{s['gauge_closed']:.0f} once closed; {s['still_open_after_load']:,} still open after the load, "
          f"{s['received_bytes']:,} bytes pushed to them; B's RSS once closed {s['rss_closed_mb']:.1f} MB")
    if "idle_cpu_pct" in res:
        print(f"  no load, {a.idle_window} s: A used {res['idle_cpu_pct']['a']}% of a CPU, B {res['idle_cpu_pct']['b']}%")
    r = res["summary"]
    print(f"{a.scenario}: {a.rounds} rounds of {a.slice} s a side, {a.connections} connections")
    for n, what in (("a", "A (0 sockets)"), ("b", f"B ({s['open']:,} sockets)")):
        x = r[n]
        extra = ""
        if x.get("reads_p99_ms_median") is not None:
            extra = f", reads p99 {x['reads_p99_ms_median']:.2f} ms, writes p99 {x['writes_p99_ms_median']:.2f} ms"
        print(f"  {what}: {x['rps']:,.0f} req/s, {x['cpu_us_per_req']:.1f} µs CPU/req, "
              f"p99 {x['p99_ms_median']:.2f} ms (median slice){extra}")
    for key, what in (("ratio_rps", "B/A throughput"), ("ratio_cpu", "A/B CPU per request"),
                      ("ratio_p99", "B/A p99"), ("ratio_reads_p99", "B/A reads p99"),
                      ("ratio_writes_p99", "B/A writes p99")):
        v = r.get(key)
        if v:
            print(f"  {what}: median {v['median']:.3f} (min {v['min']:.3f}, max {v['max']:.3f})")


def main():
    a = parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is not installed (bench/run.sh installs it)")
    if not os.access(a.bin, os.X_OK):
        raise SystemExit(f"bench: no hearth binary at {a.bin}")
    nofile = raise_nofile(a.sockets + 4096)
    pin = len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset") is not None
    data, meta, _ = harness.dataset(pair._preset_args(a.preset))
    data_dir = os.environ.get("BENCH_DATA_DIR", "/tmp/hearth-bench")
    os.makedirs(data_dir, exist_ok=True)
    root = tempfile.mkdtemp(prefix="sockets-", dir=data_dir)
    sides, socks = {}, None
    res = {"machine": {"cpus": len(os.sched_getaffinity(0)), "cpu_model": harness.cpu_model(),
                       "platform": platform.platform(), "pinned": pin, "nofile": nofile},
           "hearth": harness.cli_version(a.bin), "settings": vars(a),
           "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        for name in ("a", "b"):
            workdir = os.path.join(root, name)
            os.makedirs(workdir)
            sides[name] = Side(name.upper(), a, data, meta, workdir, pin, a.sockets)
        b = sides["b"].server
        time.sleep(a.settle)
        idle = proc_status(b.pid)
        res["memory_a_idle"] = proc_status(sides["a"].server.pid)
        log(f"B idle: RSS {idle['VmRSS']:.1f} MB; opening {a.sockets:,} sockets")
        socks = Sockets(b.port, sides["b"].socket_jwt, a.heartbeat)
        t0 = time.monotonic()
        opened = socks.open(a.sockets, a.open_concurrency)
        open_s = time.monotonic() - t0
        g_open = wait_gauge(b, opened)
        log(f"opened {opened:,} of {a.sockets:,} in {open_s:.1f} s (failures {socks.failures or 'none'}); "
            f"{GAUGE} {g_open}")
        if opened != a.sockets or g_open != opened:
            raise SystemExit(f"bench: {opened} sockets opened of {a.sockets} and the server counts {g_open}: "
                             f"failures {socks.failures}; see {b.log.name}")
        time.sleep(a.settle)
        held = proc_status(b.pid)
        res["memory"] = memory(idle, held, opened)
        log(f"B with {opened:,} sockets: RSS {held['VmRSS']:.1f} MB (+{res['memory']['delta_mb']:.1f} MB, "
            f"{res['memory']['per_socket_kb']:.1f} KB a socket)")

        if a.idle_window:
            # no load: what the open sockets cost by themselves (each rechecks its token every 30 s)
            cpu0 = {n: cpu_seconds(sides[n].server.pid) for n in sides}
            time.sleep(a.idle_window)
            res["idle_cpu_pct"] = {n: round((cpu_seconds(sides[n].server.pid) - cpu0[n]) * 100 / a.idle_window, 2)
                                   for n in sides}
            log(f"no load for {a.idle_window} s: A used {res['idle_cpu_pct']['a']}% of a CPU, "
                f"B {res['idle_cpu_pct']['b']}%")
        conns = a.connections
        if a.warmup:
            for name in ("a", "b"):
                sides[name].run(a.scenario, a.warmup, conns, pin)
        slices = []
        for i, order in enumerate(pair.order(a.rounds)):
            for name in order:
                r = sides[name].run(a.scenario, a.slice, conns, pin)
                slices.append(dict(r, side=name, round=i))
                errors = r["non2xx"] + sum(r["socket_errors"].values())
                log(f"  round {i + 1} {name.upper()}: {r['rps']:.0f} req/s, p99 {r['p99_ms']:.2f} ms, "
                    f"{r['cpu_us_per_req']:.1f} µs CPU/req" + (f", {errors} errors" if errors else ""))
                if sum(r["socket_errors"].values()):
                    raise SystemExit(f"bench: {name.upper()} had socket errors {r['socket_errors']} in round "
                                     f"{i + 1}; see its server.log")
        res["summary"] = summarize(slices)
        res["slices"] = slices
        still = socks.still_open()
        g_after = gauge(b)
        res["memory_after_load"] = {"a": proc_status(sides["a"].server.pid), "b": proc_status(b.pid)}
        socks.close()
        g_closed = wait_gauge(b, 0)
        time.sleep(a.settle)
        res["sockets"] = {"asked": a.sockets, "open": opened, "open_s": round(open_s, 2),
                          "failures": socks.failures, "gauge_open": g_open, "gauge_after_load": g_after,
                          "still_open_after_load": still, "received_bytes": socks.received,
                          "gauge_closed": g_closed, "rss_closed_mb": proc_status(b.pid)["VmRSS"],
                          "heartbeat_s": a.heartbeat}
    finally:
        if socks:
            socks.stop()
        for s in sides.values():
            s.server.stop()
        shutil.rmtree(root, ignore_errors=True)
    print_report(a, res)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
