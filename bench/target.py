"""The hearth server each attack in bench/attacks.py runs against: a fresh temp database
with its users, an app and a JWT, served on a free port, and read through /proc (memory,
sockets held)."""

import os
import subprocess
import tempfile
import time
import urllib.parse

import procs  # bench/, beside this module
from wire import HOST, PROBE_SRC, request

PASSWORD = "correct horse battery staple"


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
