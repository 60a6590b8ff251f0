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

This file holds the attacks and their table; the raw-socket HTTP client and the /healthz
probe are in bench/wire.py, the server under attack in bench/target.py, and the herd of
attacker connections in bench/herd.py.
"""

import argparse
import os
import re
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import zlib

# bench/, beside this script
from herd import Herd, attacker_sources, fmt_counts, raise_nofile
from target import Server, help_text
from wire import PROBE_SRC, build_request, connect, fmt_probe, parse_response, probe_healthz, read_to_end, request


def log(msg):
    print(f"attacks: {msg}", file=sys.stderr, flush=True)


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
