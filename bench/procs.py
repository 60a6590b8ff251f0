"""The hearth server process, as the bench scripts (harness.py, attacks.py) run it: a
free loopback port to serve on, and a stop that waits, then kills."""

import signal
import socket
import subprocess


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
