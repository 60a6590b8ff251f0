#!/usr/bin/env python3
"""Resource-exhaustion and brute-force attacks on a hearth binary (Python 3 stdlib only).

Each attack starts the given binary on a free port with a fresh temp database (so VmHWM
and the in-memory brute-force counters belong to that attack alone), runs, prints a
table and stops the server. Subcommands:

    slow-body       N connections trickle a 1 MB body one byte per 2 s; /healthz probed
    held-bodies     bodies sent whole but their last byte, held; server RSS
    password-burst  150 parallel wrong passwords for one username (token + login form)
    xff-spoof       wrong passwords with forged X-Forwarded-For
    uploads         16 concurrent course creations with an 8000x8000 PNG
    idle            1,030 idle connections from one address; a new client's /healthz
    all             every attack in that order (about 5 minutes)

    python3 bench/attacks.py --bin target/release/hearth all | tee bench/attacks-after.txt

Source addresses: the attackers and the probing "legitimate" client connect from
different loopback addresses (Linux routes all of 127.0.0.0/8 to lo), so a per-address
connection cap is measured as a real deployment sees it: the probe is another client.
"""

import argparse
import os
import re
import resource
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib

import procs  # bench/, beside this script

HOST = "127.0.0.1"
PROBE_SRC = "127.0.0.2"  # the legitimate client
PASSWORD = "correct horse battery staple"
NOFILE = 65536


def log(msg):
    print(f"attacks: {msg}", file=sys.stderr, flush=True)


def raise_nofile():
    """Raise RLIMIT_NOFILE for this process and the servers it starts."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = NOFILE
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    except (ValueError, OSError):
        want = hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# --- a minimal HTTP/1.1 client (source address and timeouts under our control) ----------


def connect(port, src=None, timeout=20.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if src:
        s.bind((src, 0))
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


def build_request(method, path, port, headers=None, body=b"", close=True):
    h = {"Host": f"{HOST}:{port}"}
    if body or method in ("POST", "PUT", "PATCH"):
        h["Content-Length"] = str(len(body))
    if close:
        h["Connection"] = "close"
    h.update(headers or {})
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
    return head.encode() + b"\r\n" + body


def parse_response(raw):
    """(status, headers with lowercased names (lists), body)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if not lines or not lines[0].startswith("HTTP/"):
        return None, {}, raw
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    if "chunked" in ",".join(headers.get("transfer-encoding", [])):
        out, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            n = int(size_line.split(b";")[0] or b"0", 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2:]
        body = out
    return status, headers, body


def read_to_end(s, left=None):
    """What `s` sends until it closes; `left()`, if given, is the timeout for each read."""
    chunks = []
    while True:
        c = s.recv(65536)
        if not c:
            return b"".join(chunks)
        chunks.append(c)
        if left is not None:
            s.settimeout(left())


def request(port, method, path, headers=None, body=b"", src=None, timeout=20.0, sock=None):
    """One request on a new connection (or `sock`, already connected). Returns
    (status or None, headers, body, seconds); status None with body=b"timeout"/error text."""
    t0 = time.monotonic()
    s = sock
    try:
        if s is None:
            s = connect(port, src, timeout)
        s.settimeout(max(0.001, timeout - (time.monotonic() - t0)))
        s.sendall(build_request(method, path, port, headers, body))
        left = lambda: max(0.001, timeout - (time.monotonic() - t0))
        st, hd, bd = parse_response(read_to_end(s, left))
        if st is None:
            return None, {}, b"closed without a response", time.monotonic() - t0
        return st, hd, bd, time.monotonic() - t0
    except socket.timeout:
        return None, {}, b"timeout", time.monotonic() - t0
    except OSError as e:
        return None, {}, f"error: {e.strerror or e}".encode(), time.monotonic() - t0
    finally:
        if s is not None:
            s.close()


# --- the server under test ---------------------------------------------------------------


class Server:
    """`hearth serve` on a free port with a fresh database, a password user `victim`,
    a user `alice`, a password-grant app and a JWT for alice."""

    def __init__(self, binary, extra_args=(), users=("victim", "alice")):
        self.binary = os.path.abspath(binary)
        self.dir = tempfile.mkdtemp(prefix="hearth-attacks-")
        self.db = os.path.join(self.dir, "hearth.db")
        self.cli("init")
        for u in users:
            self.cli("user", "create", "--username", u, "--password-stdin", stdin=PASSWORD + "\n")
        import json

        app = json.loads(self.cli("app", "create", "--name", "attacks", "--grant", "password", "--json"))
        self.client_id = app["client_id"]
        self.jwt = self.cli("jwt", "mint", "--user-id", "2", "--ttl", "86400").strip()
        self.port = procs.free_port(HOST)
        self.log_path = os.path.join(self.dir, "server.log")
        self.log_file = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [self.binary, "--db", self.db, "serve", "--listen", f"{HOST}:{self.port}", *extra_args],
            stdout=self.log_file, stderr=subprocess.STDOUT, env={**os.environ, "RUST_LOG": "warn"},
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited at start: {self.tail_log()}")
            st, _, _, _ = request(self.port, "GET", "/healthz", src=PROBE_SRC, timeout=1)
            if st == 200:
                return
            time.sleep(0.05)
        raise RuntimeError("server did not answer /healthz within 15 s")

    def cli(self, *args, stdin=None):
        r = subprocess.run([self.binary, "--db", self.db, *args], input=(stdin or "").encode(),
                           capture_output=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"hearth {' '.join(args)}: {r.stderr.decode().strip()}")
        return r.stdout.decode()

    def mem(self):
        """(VmRSS, VmHWM) in MiB."""
        out = {}
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    k, _, v = line.partition(":")
                    if k in ("VmRSS", "VmHWM"):
                        out[k] = int(v.split()[0]) / 1024
        except OSError:
            return (float("nan"), float("nan"))
        return (out.get("VmRSS", float("nan")), out.get("VmHWM", float("nan")))

    def sockets(self):
        """Sockets the server holds open (its listener included)."""
        n = 0
        try:
            for fd in os.listdir(f"/proc/{self.proc.pid}/fd"):
                try:
                    n += os.readlink(f"/proc/{self.proc.pid}/fd/{fd}").startswith("socket:")
                except OSError:
                    pass
        except OSError:
            pass
        return n

    def oauth_token(self, username="alice"):
        form = urllib.parse.urlencode({"grant_type": "password", "client_id": self.client_id,
                                       "username": username, "password": PASSWORD}).encode()
        st, _, body, _ = request(self.port, "POST", "/oauth/token/", src=PROBE_SRC, body=form,
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
        import json

        if st != 200:
            raise RuntimeError(f"password grant: {st} {body[:200]!r}")
        return json.loads(body)["access_token"]

    def tail_log(self, n=5):
        try:
            with open(self.log_path, "rb") as f:
                return b" | ".join(f.read().splitlines()[-n:]).decode(errors="replace")
        except OSError:
            return ""

    def stop(self):
        procs.stop(self.proc, timeout=15)
        self.log_file.close()
        subprocess.run(["rm", "-rf", self.dir], check=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def help_text(binary):
    r = subprocess.run([binary, "serve", "--help"], capture_output=True, timeout=10)
    return r.stdout.decode() + r.stderr.decode()


# --- many connections at once, driven by one thread ---------------------------------------


def attacker_sources(k):
    """k loopback source addresses for attackers: 127.0.1.1, 127.0.1.2, ..."""
    return [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(k)]


class Herd:
    """n non-blocking client sockets; each gets an initial payload and is then pumped.
    Tracks which the server closed (EOF/reset) and which got a response (status)."""

    def __init__(self, port, n, sources, srv=None, batch=100):
        """Connects in batches of `batch`. With `srv`, each batch waits (up to 3 s) until
        the server has accepted or closed every connection so far: a burst of connects
        larger than the listen backlog would otherwise leave handshakes half done (the
        kernel drops the final ACK and finishes them on SYN-ACK retries, seconds later),
        and the measurement would start before the attack is really in place."""
        self.socks, self.pending, self.status, self.closed = [], [], [], []
        self.connect_failed = 0
        base = srv.sockets() if srv else 0
        for start in range(0, n, batch):
            self.connect_batch(port, range(start, min(n, start + batch)), sources)
            if srv is None:
                continue
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                self.refresh()
                if srv.sockets() - base + sum(self.closed) >= len(self.socks):
                    break
                time.sleep(0.02)

    def connect_batch(self, port, idx, sources, connect_deadline=10.0):
        sel = selectors.DefaultSelector()
        for i in idx:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            s.bind((sources[i % len(sources)], 0))
            err = s.connect_ex((HOST, port))
            if err not in (0, 115):  # EINPROGRESS
                self.connect_failed += 1
                s.close()
                continue
            sel.register(s, selectors.EVENT_WRITE)
        deadline = time.monotonic() + connect_deadline
        waiting = len(sel.get_map())
        while waiting and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=0.2):
                s = key.fileobj
                sel.unregister(s)
                waiting -= 1
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    self.connect_failed += 1
                    s.close()
                else:
                    self.add(s)
        for key in list(sel.get_map().values()):  # handshake never completed
            self.connect_failed += 1
            sel.unregister(key.fileobj)
            key.fileobj.close()
        sel.close()

    def add(self, s):
        self.socks.append(s)
        self.pending.append(memoryview(b""))
        self.status.append(None)
        self.closed.append(False)

    def queue(self, i, data):
        """Queues `data` (shared, not copied, when nothing is pending)."""
        if len(self.pending[i]) == 0:
            self.pending[i] = memoryview(data)
        else:
            self.pending[i] = memoryview(bytes(self.pending[i]) + data)

    def pump(self, deadline):
        """Sends pending bytes until all are sent or `deadline`; reads what arrives."""
        while time.monotonic() < deadline:
            busy = False
            for i, s in enumerate(self.socks):
                if self.closed[i]:
                    continue
                self.poll_read(i)
                if len(self.pending[i]) and not self.closed[i]:
                    try:
                        sent = s.send(self.pending[i][:1 << 20])
                        self.pending[i] = self.pending[i][sent:]  # a view: no copy
                    except BlockingIOError:
                        pass
                    except OSError:
                        self.closed[i] = True
                    busy = busy or len(self.pending[i]) > 0
            if not busy:
                return True
            time.sleep(0.005)
        return False

    def poll_read(self, i):
        try:
            data = self.socks[i].recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self.closed[i] = True
            return
        if not data:
            self.closed[i] = True
            return
        m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
        if m and self.status[i] is None:
            self.status[i] = int(m.group(1))

    def refresh(self):
        for i in range(len(self.socks)):
            if not self.closed[i]:
                self.poll_read(i)

    def counts(self):
        self.refresh()
        answered = {}
        for st in self.status:
            if st is not None:
                answered[st] = answered.get(st, 0) + 1
        return {
            "open": len(self.socks), "server_closed": sum(self.closed),
            "answered": answered, "connect_failed": self.connect_failed,
        }

    def close(self):
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass


def fmt_counts(c):
    ans = ", ".join(f"{k}x{v}" for k, v in sorted(c["answered"].items())) or "none"
    return (f"connected {c['open']}, connect failed {c['connect_failed']}, "
            f"closed by server {c['server_closed']}, answered: {ans}")


def probe_healthz(port, n=20, timeout=20.0, spacing=0.05, src=PROBE_SRC):
    """n /healthz probes on fresh connections from `src`, started `spacing` s apart,
    concurrently. Returns (p50 ms, max ms, timeouts, errors, statuses)."""
    results = [None] * n

    def one(i):
        results[i] = request(port, "GET", "/healthz", src=src, timeout=timeout)

    threads = []
    for i in range(n):
        t = threading.Thread(target=one, args=(i,))
        t.start()
        threads.append(t)
        time.sleep(spacing)
    for t in threads:
        t.join()
    oks = sorted(r[3] * 1000 for r in results if r[0] == 200)
    timeouts = sum(1 for r in results if r[0] is None and r[2] == b"timeout")
    other = [r for r in results if r[0] != 200 and not (r[0] is None and r[2] == b"timeout")]
    statuses = {}
    for r in results:
        key = r[0] if r[0] is not None else r[2].decode()[:40]
        statuses[key] = statuses.get(key, 0) + 1
    p50 = oks[len(oks) // 2] if oks else float("nan")
    mx = max(r[3] for r in results) * 1000
    return {"ok": len(oks), "n": n, "p50": p50, "max": mx, "timeouts": timeouts,
            "errors": len(other), "statuses": statuses}


def fmt_probe(p):
    p50 = "-" if p["ok"] == 0 else f"{p['p50']:.0f} ms"
    return (f"{p['ok']}/{p['n']} ok, p50 {p50}, max {p['max']:.0f} ms, "
            f"timeouts {p['timeouts']}, other {p['errors']}"
            + ("" if p["errors"] == 0 else f" {p['statuses']}"))


class Table:
    def __init__(self, title):
        self.title, self.rows = title, []

    def add(self, what, value):
        self.rows.append((what, value))

    def print(self):
        w = max([len(a) for a, _ in self.rows] + [10])
        print(f"\n== {self.title}")
        for a, b in self.rows:
            print(f"  {a:<{w}}  {b}")
        sys.stdout.flush()


# --- 1. slow-body ---------------------------------------------------------------------


def attack_slow_body(a):
    t = Table(f"slow-body: {a.connections} connections trickle a 1,000,000-byte body, "
              f"1 byte / 2 s, from {a.sources} source address(es)")
    with Server(a.bin) as srv:
        auth = {} if a.anonymous else {"Authorization": f"Bearer {srv.jwt}"}
        t.add("auth", "anonymous" if a.anonymous else "bearer JWT (a registered user)")
        head = build_request("POST", "/api/v2/post/", srv.port, {
            "Content-Type": "application/json", "Content-Length": "1000000", **auth}, close=False)
        t0 = time.monotonic()
        base = srv.sockets()
        herd = Herd(srv.port, a.connections, attacker_sources(a.sources), srv)
        for i in range(len(herd.socks)):
            herd.queue(i, head + b"{")
        herd.pump(time.monotonic() + 5)
        t.add("set-up", f"{time.monotonic() - t0:.1f} s; {fmt_counts(herd.counts())}; "
                        f"the server holds {srv.sockets() - base} connections")
        t0 = time.monotonic()  # t counts from the attack being in place
        results = {}

        def probe_at(at):
            delay = t0 + at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            results[at] = (probe_healthz(srv.port, n=20, timeout=a.probe_timeout), srv.mem()[0])

        probers = [threading.Thread(target=probe_at, args=(at,)) for at in (5, 15, 40)]
        for p in probers:
            p.start()
        counts_at = {}
        next_byte = time.monotonic() + 2
        while any(p.is_alive() for p in probers):
            if time.monotonic() >= next_byte:
                for i in range(len(herd.socks)):
                    herd.queue(i, b" ")
                next_byte += 2
            herd.pump(time.monotonic() + 0.2)
            el = time.monotonic() - t0
            for at in (5, 15, 40):
                if at not in counts_at and el >= at:
                    counts_at[at] = herd.counts()
            time.sleep(0.05)
        for at in (5, 15, 40):
            p, rss = results[at]
            t.add(f"set-up + {at:>2} s: /healthz", fmt_probe(p))
            t.add(f"set-up + {at:>2} s: attackers", f"{fmt_counts(counts_at.get(at, herd.counts()))}; "
                                             f"server RSS {rss:.0f} MiB")
        herd.close()
        t.add("server VmHWM", f"{srv.mem()[1]:.0f} MiB")
    t.print()


# --- 2. held-bodies -------------------------------------------------------------------


def multipart_body(boundary, fields, file_field=None, file_name="image.png", file_bytes=b"",
                   file_type="image/png"):
    out = []
    for k, v in fields:
        out.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode())
    if file_field:
        out.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{file_field}\"; "
                   f"filename=\"{file_name}\"\r\nContent-Type: {file_type}\r\n\r\n".encode())
        out.append(file_bytes)
        out.append(b"\r\n")
    out.append(f"--{boundary}--\r\n".encode())
    return b"".join(out)


def held_variant(a, t, label, path, ctype, size, n, authenticated):
    with Server(a.bin) as srv:
        auth = {"Authorization": f"Bearer {srv.jwt}"} if authenticated else {}
        head = build_request("POST", path, srv.port, {
            "Content-Type": ctype, "Content-Length": str(size), **auth}, close=False)
        if ctype.startswith("multipart/"):
            boundary = ctype.split("boundary=")[1]
            pre = f"--{boundary}\r\nContent-Disposition: form-data; name=\"image_original\"; " \
                  f"filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n".encode()
            body = pre + b"\x00" * (size - len(pre))
        else:
            body = b'{"text": "' + b"a" * (size - 10) + b'"}'
            body = body[:size]
        before = srv.mem()[0]
        t0 = time.monotonic()
        herd = Herd(srv.port, n, attacker_sources(a.sources), srv)
        payload = head + body[:-1]
        for i in range(len(herd.socks)):
            herd.queue(i, payload)
        done = herd.pump(time.monotonic() + 20)
        sent_s = time.monotonic() - t0
        unsent = sum(len(p) for p in herd.pending)
        hold_end = time.monotonic() + a.hold
        peak = 0.0
        while time.monotonic() < hold_end:
            herd.pump(min(hold_end, time.monotonic() + 1))
            peak = max(peak, srv.mem()[0])
        during = srv.mem()[0]
        c = herd.counts()
        herd.close()
        time.sleep(5)
        after, hwm = srv.mem()
        who = "bearer JWT" if authenticated else "anonymous"
        t.add(f"{label}, {who}",
              f"RSS before {before:.0f} MiB, during {during:.0f} (peak {peak:.0f}), "
              f"5 s after close {after:.0f}; VmHWM {hwm:.0f} MiB")
        t.add("", f"sent in {sent_s:.1f} s{'' if done else ' (not all)'}, "
                  f"{unsent / 2**20:.0f} MiB never accepted by the socket; {fmt_counts(c)}")


def attack_held_bodies(a):
    t = Table(f"held-bodies: bodies sent whole but the last byte, held {a.hold:.0f} s")
    mib = 1 << 20
    variants = [
        ("300 x 1 MiB JSON, POST /api/v2/post/", "/api/v2/post/", "application/json", mib, 300),
        ("100 x 12 MiB multipart, POST /api/v2/course/", "/api/v2/course/",
         "multipart/form-data; boundary=XhearthX", 12 * mib, 100),
    ]
    for label, path, ctype, size, n in variants:
        for authenticated in ([False, True] if a.auth_too else [False]):
            held_variant(a, t, label, path, ctype, size, n, authenticated)
    t.print()


# --- 3. password-burst ----------------------------------------------------------------


def burst(n, make):
    """n threads: each connects, waits on a barrier, sends. Returns status counts and
    the total seconds."""
    barrier = threading.Barrier(n)
    out = [None] * n

    def one(i):
        port, req = make(i)
        try:
            s = connect(port, PROBE_SRC, timeout=120)
        except OSError as e:
            barrier.wait()
            out[i] = f"connect: {e}"
            return
        barrier.wait()
        try:
            s.sendall(req)
            st, _, _ = parse_response(read_to_end(s))
            out[i] = st
        except OSError as e:
            out[i] = f"error: {e}"
        finally:
            s.close()

    t0 = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    counts = {}
    for st in out:
        counts[st] = counts.get(st, 0) + 1
    return counts, time.monotonic() - t0


def fmt_status(counts):
    return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=lambda kv: str(kv[0])))


def attack_password_burst(a):
    n = a.parallel
    t = Table(f"password-burst: {n} parallel wrong passwords for one username (limit: 10 / 5 min)")
    with Server(a.bin) as srv:
        form = urllib.parse.urlencode({"grant_type": "password", "client_id": srv.client_id,
                                       "username": "victim", "password": "wrong"}).encode()
        req = build_request("POST", "/oauth/token/", srv.port,
                            {"Content-Type": "application/x-www-form-urlencoded"}, form)
        counts, secs = burst(n, lambda i: (srv.port, req))
        t.add("POST /oauth/token/ (password grant)",
              f"{fmt_status(counts)}  ->  {counts.get(400, 0)} password checks ran; {secs:.1f} s")
    with Server(a.bin) as srv:
        # the login form: a double-submit CSRF cookie and the same token in the form
        st, hd, body, _ = request(srv.port, "GET", "/accounts/login/", src=PROBE_SRC)
        cookie = next((c.split(";")[0] for c in hd.get("set-cookie", []) if c.startswith("hearth_csrf=")), "")
        m = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
        if st != 200 or not cookie or not m:
            t.add("POST /accounts/login/", f"skipped: no CSRF cookie/token in GET ({st})")
        else:
            form = urllib.parse.urlencode({"csrfmiddlewaretoken": m.group(1).decode(),
                                           "username": "victim", "password": "wrong"}).encode()
            req = build_request("POST", "/accounts/login/", srv.port,
                                {"Content-Type": "application/x-www-form-urlencoded",
                                 "Cookie": cookie}, form)
            counts, secs = burst(n, lambda i: (srv.port, req))
            t.add("POST /accounts/login/ (form)",
                  f"{fmt_status(counts)}  ->  {counts.get(200, 0)} password checks ran "
                  f"(200 = form again); {secs:.1f} s")
    t.print()


# --- 4. xff-spoof ---------------------------------------------------------------------


def attack_xff_spoof(a):
    n = 15
    help_ = help_text(a.bin)
    has_trusted = "--trusted-proxy" in help_
    has_trust = "--trust-proxy" in help_
    t = Table(f"xff-spoof: {n} wrong passwords, each with a different X-Forwarded-For "
              "(limit: 10 / 5 min per username and per address)")
    t.add("binary", f"--trust-proxy: {'yes' if has_trust else 'no'}, "
                    f"--trusted-proxy CIDR: {'yes' if has_trusted else 'no'}")

    def run(label, extra, username, xff):
        with Server(a.bin, extra_args=extra) as srv:
            counts = {}
            for i in range(n):
                form = urllib.parse.urlencode({"grant_type": "password", "client_id": srv.client_id,
                                               "username": username(i), "password": "wrong"}).encode()
                st, _, _, _ = request(srv.port, "POST", "/oauth/token/", src=PROBE_SRC, body=form,
                                      headers={"Content-Type": "application/x-www-form-urlencoded",
                                               "X-Forwarded-For": xff(i)})
                counts[st] = counts.get(st, 0) + 1
            t.add(label, f"{fmt_status(counts)}  ->  {counts.get(400, 0)} password checks ran")

    if has_trust:
        run("one username, XFF 10.0.0.N, --trust-proxy", ["--trust-proxy"],
            lambda i: "victim", lambda i: f"10.0.0.{i + 1}")
        # what a proxy forwards when the client forged the header itself: the proxy
        # appends the real client address on the right
        run("15 usernames, XFF '10.0.0.N, 198.51.100.7' (forged + proxy-appended), --trust-proxy",
            ["--trust-proxy"], lambda i: f"nobody{i}", lambda i: f"10.0.0.{i + 1}, 198.51.100.7")
    else:
        t.add("--trust-proxy cases", "skipped: the binary has no --trust-proxy")
    if has_trusted:
        run("15 usernames, XFF 10.0.0.N, direct (--trusted-proxy 192.0.2.0/24)",
            ["--trusted-proxy", "192.0.2.0/24"], lambda i: f"nobody{i}", lambda i: f"10.0.0.{i + 1}")
    else:
        run("15 usernames, XFF 10.0.0.N, direct (no proxy flag)", [],
            lambda i: f"nobody{i}", lambda i: f"10.0.0.{i + 1}")
    t.print()


# --- 5. uploads -----------------------------------------------------------------------


def solid_png(w, h, rgb=(200, 80, 40)):
    """A valid w x h RGB PNG of one colour (compresses to almost nothing)."""
    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * w
    z = zlib.compressobj(9)
    parts = [z.compress(row) for _ in range(h)]
    parts.append(z.flush())
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))


def attack_uploads(a):
    n, side = a.uploads, 8000
    png = solid_png(side, side)
    t = Table(f"uploads: {n} concurrent course creations with a {side}x{side} PNG "
              f"({len(png) / 1024:.0f} KiB on the wire)")
    with Server(a.bin) as srv:
        token = srv.oauth_token()
        before = srv.mem()[0]
        boundary = "XhearthuploadX"

        def make(i):
            body = multipart_body(boundary, [("name", f"Huge image {i}"), ("type", "self-paced"),
                                             ("privacy", "open")],
                                  file_field="image_original", file_bytes=png)
            return srv.port, build_request("POST", "/api/v2/course/", srv.port, {
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Authorization": f"Bearer {token}"}, body)

        peak = [0.0]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], srv.mem()[0])
                time.sleep(0.1)

        sampler = threading.Thread(target=sample)
        sampler.start()
        counts, secs = burst(n, make)
        stop.set()
        sampler.join()
        time.sleep(2)
        rss, hwm = srv.mem()
        t.add("status codes", f"{fmt_status(counts)}; all answered in {secs:.1f} s")
        t.add("server memory", f"RSS before {before:.0f} MiB, sampled peak {peak[0]:.0f}, "
                               f"VmHWM {hwm:.0f} MiB, 2 s after {rss:.0f} MiB")
        alive = srv.proc.poll() is None
        t.add("server alive after", "yes" if alive else f"NO (exit {srv.proc.returncode})")
    t.print()


# --- 6. idle --------------------------------------------------------------------------


def attack_idle(a):
    n = a.idle
    t = Table(f"idle: {n} idle connections from one address (127.0.1.1), then a new client")
    with Server(a.bin) as srv:
        t0 = time.monotonic()
        base = srv.sockets()
        herd = Herd(srv.port, n, ["127.0.1.1"], srv)
        t.add("set-up", f"{time.monotonic() - t0:.1f} s; {fmt_counts(herd.counts())}")
        t.add("server holds", f"{srv.sockets() - base} connections")
        # both probes at once, so that each sees the attack as it was set up
        probes = {}

        def probe(src):
            probes[src] = probe_healthz(srv.port, n=1, timeout=a.idle_timeout, spacing=0, src=src)

        threads = [threading.Thread(target=probe, args=(src,)) for src in (PROBE_SRC, "127.0.1.1")]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for src, who in ((PROBE_SRC, "another client"), ("127.0.1.1", "the same address")):
            p = probes[src]
            t.add(f"/healthz from {src} ({who})",
                  f"{p['max']:.0f} ms, {'ok' if p['ok'] else 'failed: ' + str(p['statuses'])}")
        t.add("attackers at the end", fmt_counts(herd.counts()))
        herd.close()
    t.print()


ATTACKS = {
    "slow-body": attack_slow_body,
    "held-bodies": attack_held_bodies,
    "password-burst": attack_password_burst,
    "xff-spoof": attack_xff_spoof,
    "uploads": attack_uploads,
    "idle": attack_idle,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default=os.environ.get("HEARTH_BIN", "target/release/hearth"),
                   help="hearth binary (env HEARTH_BIN; default target/release/hearth)")
    p.add_argument("attack", choices=[*ATTACKS, "all"])
    p.add_argument("--connections", type=int, default=1100, help="slow-body connections (1100)")
    p.add_argument("--sources", type=int, default=20,
                   help="attacker source addresses for slow-body and held-bodies (20: "
                        "a spread-out attacker that stays under a per-address cap of 64)")
    p.add_argument("--anonymous", action="store_true", help="slow-body without a token")
    p.add_argument("--probe-timeout", type=float, default=20.0, help="/healthz probe timeout (20 s)")
    p.add_argument("--hold", type=float, default=20.0, help="held-bodies hold time (20 s)")
    p.add_argument("--no-auth-too", dest="auth_too", action="store_false",
                   help="held-bodies: anonymous only (default: anonymous, then with a JWT)")
    p.add_argument("--parallel", type=int, default=150, help="password-burst requests (150)")
    p.add_argument("--uploads", type=int, default=16, help="concurrent uploads (16)")
    p.add_argument("--idle", type=int, default=1030, help="idle connections (1030)")
    p.add_argument("--idle-timeout", type=float, default=35.0,
                   help="timeout of the idle attack's /healthz (35 s: past a 30 s header timeout)")
    a = p.parse_args()
    a.bin = os.path.abspath(a.bin)
    if not os.access(a.bin, os.X_OK):
        p.error(f"{a.bin} is not an executable (build it: cargo build --release)")
    nofile = raise_nofile()
    ver = subprocess.run([a.bin, "--version"], capture_output=True).stdout.decode().strip()
    print(f"hearth attacks: {a.bin} ({ver}), {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, "
          f"{os.cpu_count()} CPUs, RLIMIT_NOFILE {nofile}, "
          f"load average {os.getloadavg()[0]:.1f} (other work on the machine skews latencies)")
    started = time.monotonic()
    for name in (ATTACKS if a.attack == "all" else [a.attack]):
        t0 = time.monotonic()
        log(f"{name} ...")
        ATTACKS[name](a)
        log(f"{name} took {time.monotonic() - t0:.0f} s")
    print(f"\n(total {time.monotonic() - started:.0f} s; load average at the end "
          f"{os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
