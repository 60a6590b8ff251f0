"""The hearth server process, as the bench scripts run it (server.py for harness.py,
target.py for attacks.py): a free loopback port to serve on, and a stop that waits, then
kills. And the harness's progress line on stderr, which its modules share."""

import signal
import socket
import subprocess
import sys


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def free_port(host="127.0.0.1"):
    """A port on `host` that nothing listens on now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def stop(proc, timeout):
    """SIGTERM to `proc` if it still runs; SIGKILL when it has not exited in `timeout` s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
