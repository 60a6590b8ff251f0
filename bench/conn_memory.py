#!/usr/bin/env python3
"""Memory a connection holds outside every budget (issue 27, Medium 6): the server's RSS
(/proc/PID/status VmRSS) while N clients each hold a partial request header of SIZE
bytes, and while M clients each pipeline 3 requests for a large response and never
read. Also /healthz latency from one more client meanwhile.

    python3 bench/conn_memory.py --bin target/debug/hearth [--headers 1000] [--size 400000]
                                 [--pipeliners 600]

Starts its own `hearth serve` on a temporary database (`init`, one user with 100 posts
of 8 KB so that a list page is ~800 KB), so it measures a fresh server each time.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HOST = "127.0.0.1"


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def hwm_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def healthz_ms(port):
    t = time.monotonic()
    try:
        with socket.create_connection((HOST, port), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            s.recv(4096)
    except OSError:
        return float("inf")
    return (time.monotonic() - t) * 1000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="target/debug/hearth")
    p.add_argument("--headers", type=int, default=1000)
    p.add_argument("--size", type=int, default=400_000)
    p.add_argument("--pipeliners", type=int, default=600)
    a = p.parse_args()
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "h.db")
    env = {**os.environ, "RUST_LOG": "warn", "HEARTH_USER_WRITE_RATE": "0",
           "HEARTH_MAX_CONNECTIONS": "4096", "HEARTH_MAX_CONNECTIONS_PER_ADDRESS": "4096"}
    run = lambda *args, **kw: subprocess.run([a.bin, "--db", db, *args], check=True,
                                             capture_output=True, text=True, env=env, **kw)
    run("init")
    posts = "".join(json.dumps({"record": "post", "id": i, "author": 1, "text": "x" * 8000,
                                "added_at": "2026-11-27T00:00:00.000000Z"}) + "\n" for i in range(1, 101))
    users = json.dumps({"record": "user", "id": 1, "username": "ann"}) + "\n"
    imp = os.path.join(tmp, "data.ndjson")
    with open(imp, "w") as f:
        f.write(users + posts)
    try:
        run("import", imp)
    except subprocess.CalledProcessError as e:
        print("import failed (the list page will be small):", e.stderr.strip()[:200])
    port = free_port()
    srv = subprocess.Popen([a.bin, "--db", db, "serve", "--listen", f"{HOST}:{port}"],
                           env=env, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if healthz_ms(port) < 1000:
                break
            time.sleep(0.1)
        print(f"idle: RSS {rss_mib(srv.pid):.0f} MiB, /healthz {healthz_ms(port):.1f} ms")

        conns = []
        pad = b"a" * a.size
        for i in range(a.headers):
            try:
                s = socket.create_connection((HOST, port), timeout=10)
                s.setblocking(False)
                try:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + pad)
                except BlockingIOError:
                    pass
                conns.append(s)
            except OSError:
                pass
        time.sleep(3)
        closed = 0
        for s in conns:
            try:
                if s.recv(1, socket.MSG_PEEK) == b"":
                    closed += 1
                else:
                    closed += 1  # answered (431) then closed
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        print(f"{a.headers} partial {a.size}-byte headers: RSS {rss_mib(srv.pid):.0f} MiB, "
              f"/healthz {healthz_ms(port):.1f} ms, {closed} closed by the server")
        for s in conns:
            s.close()
        time.sleep(3)
        print(f"after: RSS {rss_mib(srv.pid):.0f} MiB")

        conns = []
        req = b"GET /api/v2/post/?limit=100 HTTP/1.1\r\nHost: x\r\n\r\n" * 3
        for i in range(a.pipeliners):
            try:
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect((HOST, port))
                s.sendall(req)
                conns.append(s)
            except OSError:
                pass
        time.sleep(5)
        print(f"{a.pipeliners} clients pipelining 3 x GET /api/v2/post/?limit=100, never reading: "
              f"RSS {rss_mib(srv.pid):.0f} MiB, /healthz {healthz_ms(port):.1f} ms")
        # settled: every page computed is either held for its client or refused
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120 and healthz_ms(port) > 200:
            time.sleep(1)
        print(f"  settled after {time.monotonic() - t0:.0f} s more: RSS {rss_mib(srv.pid):.0f} MiB "
              f"(peak VmHWM {hwm_mib(srv.pid):.0f} MiB), /healthz {healthz_ms(port):.1f} ms")
        for s in conns:
            s.close()
        time.sleep(3)
        print(f"after: RSS {rss_mib(srv.pid):.0f} MiB")
    finally:
        srv.terminate()
        srv.wait(timeout=20)


if __name__ == "__main__":
    sys.exit(main())
