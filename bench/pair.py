#!/usr/bin/env python3
"""Paired alternation: one scenario against two servers, A and B, in short alternating
slices, so that a ratio between them survives a machine whose speed drifts.

On this project's VM a scenario's throughput moves by 15-45% between two runs minutes
apart (the ceiling, which reads no data, included), so a 5% difference between two
builds, or between the 1x and 10x datasets, is invisible in `run.sh`'s separate runs.
Here both servers run at once (pinned to the same CPU, only one of them loaded at a
time) and the load alternates between them every few seconds, A B B A A B ..., so both
see the same machine. Each slice records the server's requests and CPU time; the report
gives, per side, the total throughput and CPU per request, and the B/A ratios of each
pair of adjacent slices (median, min, max).

    bench/pair.py --scenario course_get --a-preset 1x --b-preset 10x
    bench/pair.py --scenario me_jwt --a-bin /tmp/hearth-old --b-bin target/release/hearth
    bench/pair.py --scenario course_get --b-env HEARTH_MMAP_SIZE=2047

A side is a binary (`--a-bin`, default target/release/hearth), a dataset preset
(`--a-preset`, 1x) and server environment variables (`--a-env VAR=VALUE`, repeatable).
Both sides run with `HEARTH_RELEASE_MEMORY_AFTER=0` unless a side's `--*-env` says
otherwise: the side that waits would otherwise empty its caches after 2 s idle and start
every slice cold. Datasets and imports come from run.sh's caches (bench/harness.py).
`mixed` and `token_refresh` (which need token pools) are not offered. A slice with a
non-2xx answer or a socket error stops the run: its throughput is not the scenario's.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import harness  # noqa: E402
from procs import log  # noqa: E402
from server import Server, cpu_seconds, password_grant  # noqa: E402

SCENARIOS = [s for s in harness.SCENARIOS if s not in ("mixed", "token_refresh")]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="one scenario, two servers, alternating slices (see the module's notes)")
    p.add_argument("--scenario", required=True, choices=SCENARIOS)
    p.add_argument("--rounds", type=int, default=10, help="slices per side (10)")
    p.add_argument("--slice", type=int, default=3, help="seconds per slice (3)")
    p.add_argument("--warmup", type=int, default=3, help="seconds of discarded load per side first (3)")
    p.add_argument("--connections", type=int, default=64,
                   help="wrk connections (64; token_password uses 4, as in run.sh)")
    p.add_argument("--out", help="write the slices and the summary as JSON to this file")
    for side in ("a", "b"):
        p.add_argument(f"--{side}-bin", default=os.environ.get("HEARTH_BIN")
                       or os.path.join(harness.REPO, "target", "release", "hearth"))
        p.add_argument(f"--{side}-preset", choices=sorted(harness.PRESETS), default="1x")
        p.add_argument(f"--{side}-env", action="append", default=[], metavar="VAR=VALUE")
    a = p.parse_args(argv)
    if a.rounds < 1 or a.slice < 1 or a.warmup < 0 or a.connections < 1:
        p.error("--rounds, --slice and --connections must be at least 1, --warmup 0 or more")
    for side in ("a", "b"):
        env = {"HEARTH_RELEASE_MEMORY_AFTER": "0"}
        for item in getattr(a, f"{side}_env"):
            var, eq, value = item.partition("=")
            if not eq or not var:
                p.error(f"--{side}-env wants VAR=VALUE, not {item!r}")
            env[var] = value
        setattr(a, f"{side}_env", env)
    return a


def connections(a):
    """wrk's connections: `--connections`, but token_password's 4 as in run.sh (each
    request is 600k PBKDF2 iterations)."""
    return harness.PASSWORD_CONNECTIONS if a.scenario == "token_password" else a.connections


def order(rounds):
    """The slices' order: A B, B A, A B, ... (each side goes first as often as the other,
    so a drift over the run weighs on both alike)."""
    return [("a", "b") if i % 2 == 0 else ("b", "a") for i in range(rounds)]


def summarize(slices):
    """Per side, the totals over its slices; and the B/A ratios of the rounds (each round a
    slice of each side, back to back): throughput (B's req/s over A's) and CPU (A's CPU
    per request over B's: above 1, B does a request with less CPU)."""
    out = {}
    for side in ("a", "b"):
        mine = [s for s in slices if s["side"] == side]
        req = sum(s["requests"] for s in mine)
        secs = sum(s["seconds"] for s in mine)
        cpu = sum(s["cpu_s"] for s in mine)
        out[side] = {"requests": req, "rps": req / secs if secs else 0.0,
                     "cpu_us_per_req": cpu * 1e6 / req if req else 0.0,
                     "p99_ms_median": statistics.median(s["p99_ms"] for s in mine) if mine else 0.0}
    rounds = {}
    for s in slices:
        rounds.setdefault(s["round"], {})[s["side"]] = s
    rps, cpu = [], []
    for r in rounds.values():
        if "a" in r and "b" in r and r["a"]["requests"] and r["b"]["requests"]:
            rps.append(r["b"]["rps"] / r["a"]["rps"])
            # CPU time comes in 10 ms ticks: a short slice of a slow route may read 0
            if r["b"]["cpu_us_per_req"] > 0:
                cpu.append(r["a"]["cpu_us_per_req"] / r["b"]["cpu_us_per_req"])

    def spread(v):
        return {"median": statistics.median(v), "min": min(v), "max": max(v)} if v else None
    out["ratio_rps"] = spread(rps)
    out["ratio_cpu"] = spread(cpu)
    return out


class Side:
    """A server over its own copy of its preset's imported dataset, and its scenario env."""

    def __init__(self, name, binary, preset, env, workdir, pin):
        data, meta, _ = harness.dataset(_preset_args(preset))
        self.name, self.preset, self.binary, self.runs = name, preset, binary, 0
        db = os.path.join(workdir, "hearth.db")
        harness.load(binary, data, meta["lines"], db, False)
        client_id = json.loads(harness.cli(binary, db, "app", "create", "--name", "bench", "--grant",
                                           "password", "--json"))["client_id"]
        jwt = harness.mint_jwt(binary, db, 1)
        self.server = Server(binary, db, os.path.join(workdir, "server.log"), pin, env=env)
        try:
            self.server.wait_ready()
            oauth = password_grant(self.server.base, client_id, "user000001")["access_token"]
            self.env = harness.scenario_env(self.server.base, meta, jwt, oauth, client_id)
        except BaseException:
            self.server.stop()  # main's cleanup only knows the sides that started
            raise
        tokens = os.path.join(workdir, "password-grant-tokens")
        open(tokens, "w").close()
        self.env["BENCH_TOKENS_OUT"] = tokens
        log(f"{name}: {binary} over the {preset} dataset on {self.server.base} ({env})")

    def run(self, scenario, seconds, conns, pin):
        # as run.sh gives each run: a seed, and a prefix that keeps created names unique
        self.runs += 1
        env = dict(self.env, BENCH_SEED=str(random.randrange(1, 2**31)),
                   BENCH_RUN_PREFIX=f"{int(time.time())}-{self.name}{self.runs}")
        cpu0 = cpu_seconds(self.server.pid)
        r = harness.run_wrk(scenario, self.server.base, seconds, conns, env, pin)
        r["cpu_s"] = cpu_seconds(self.server.pid) - cpu0
        r["cpu_us_per_req"] = r["cpu_s"] * 1e6 / max(1, r["requests"])
        self.server.drain()
        return r


def _preset_args(preset):
    """harness.parse_args's namespace for a preset, without reading sys.argv."""
    saved = sys.argv
    try:
        sys.argv = ["harness.py", "--preset", preset]
        return harness.parse_args()
    finally:
        sys.argv = saved


def main():
    a = parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is not installed (bench/run.sh installs it)")
    pin = len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset") is not None
    data_dir = os.environ.get("BENCH_DATA_DIR", "/tmp/hearth-bench")
    os.makedirs(data_dir, exist_ok=True)
    root = tempfile.mkdtemp(prefix="pair-", dir=data_dir)
    sides = {}
    try:
        for name in ("a", "b"):
            workdir = os.path.join(root, name)
            os.makedirs(workdir)
            sides[name] = Side(name.upper(), getattr(a, f"{name}_bin"), getattr(a, f"{name}_preset"),
                               getattr(a, f"{name}_env"), workdir, pin)
        conns = connections(a)
        if a.warmup:
            for name in ("a", "b"):
                sides[name].run(a.scenario, a.warmup, conns, pin)
        slices = []
        for i, pair in enumerate(order(a.rounds)):
            for name in pair:
                r = sides[name].run(a.scenario, a.slice, conns, pin)
                slices.append(dict(r, side=name, round=i))
                log(f"  round {i + 1} {name.upper()}: {r['rps']:.0f} req/s, {r['cpu_us_per_req']:.1f} µs CPU/req")
                errors = r["non2xx"] + sum(r["socket_errors"].values())
                if errors:
                    raise SystemExit(f"bench: {name.upper()} answered {r['non2xx']} non-2xx and had "
                                     f"{r['socket_errors']} socket errors in round {i + 1}: its "
                                     "throughput is not the scenario's (see its server.log)")
        result = summarize(slices)
    finally:
        for s in sides.values():
            s.server.stop()
        shutil.rmtree(root, ignore_errors=True)
    print_report(a, result)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"scenario": a.scenario, "rounds": a.rounds, "slice_s": a.slice,
                       "sides": {n: {"bin": getattr(a, f"{n}_bin"), "preset": getattr(a, f"{n}_preset"),
                                     "env": getattr(a, f"{n}_env")} for n in ("a", "b")},
                       "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "summary": result, "slices": slices}, f, indent=1)
            f.write("\n")


def print_report(a, r):
    print(f"{a.scenario}: {a.rounds} rounds of {a.slice} s a side, {connections(a)} connections")
    for n in ("a", "b"):
        s = r[n]
        print(f"  {n.upper()} {getattr(a, f'{n}_preset'):>3} {getattr(a, f'{n}_bin')}: {s['rps']:,.0f} req/s, "
              f"{s['cpu_us_per_req']:.1f} µs CPU/req, p99 {s['p99_ms_median']:.2f} ms (median slice)")
    for key, what in (("ratio_rps", "B/A throughput"), ("ratio_cpu", "A/B CPU per request")):
        v = r[key]
        if v:
            print(f"  {what}: median {v['median']:.3f} (min {v['min']:.3f}, max {v['max']:.3f})")


if __name__ == "__main__":
    main()
