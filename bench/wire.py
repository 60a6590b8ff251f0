"""A minimal HTTP/1.1 client on raw sockets, for bench/attacks.py: the source address and
the timeouts are under our control. And the /healthz probe the attacks measure the
server's availability with."""

import socket
import threading
import time

HOST = "127.0.0.1"
PROBE_SRC = "127.0.0.2"  # the legitimate client


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
