"""Many attacker connections at once, driven by one thread, for bench/attacks.py: the
file-descriptor limit raised for them, their loopback source addresses, and the Herd
of non-blocking sockets that sends each its payload and notes how the server answered
(fmt_counts: those notes as one line of a table)."""

import re
import resource
import selectors
import socket
import time

from wire import HOST

NOFILE = 65536


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
