#!/usr/bin/env python3
"""bench/device/run.sh's report: reads WORK/scale.tsv (bench/device/scale.sh's rows) and
WORK/harness-<build>-<server cpus>.json (bench/harness.py --out), writes OUT/results.md
(the tables, the ratios and issue 34's targets) and OUT/results.json (every number).
Usage: report.py WORK OUT. Whatever is missing (a failed run) is left out of the tables."""

import glob
import hashlib
import json
import os
import re
import sys

BUILDS = ["before", "after"]
SCALE_ROUTES = [("floor", "floor (bare hyper + tokio)"), ("hearth-livez", "hearth `/livez`"),
                ("hearth-healthz", "hearth `/healthz`"), ("hearth-me_jwt", "hearth `me_jwt` (scale.sh)")]
HARNESS_ORDER = ["ceiling", "me_jwt", "verify_token", "course_get", "course_create", "mixed"]


def ncpus(cpulist):
    n = 0
    for part in cpulist.split(","):
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n


def load(work):
    """{(row, build): {server_cpus: {"rps", "us", "p50", "p99", ...}}}, the server CPU lists
    in the order measured, and the raw harness JSON per (build, cpus)."""
    rows, cpus_seen, raw = {}, [], {}

    def add(row, build, sc, rec):
        rows.setdefault((row, build), {})[sc] = rec
        if sc not in cpus_seen:
            cpus_seen.append(sc)

    tsv = os.path.join(work, "scale.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            for line in f:
                cfg, server, build, rps, us, reqs, p50, p99, non2xx, serr = line.rstrip("\n").split("\t")
                sc = cfg.split(":")[0]
                add(server, build, sc, {"cfg": cfg, "rps": float(rps), "us": float(us), "requests": int(reqs),
                                        "p50": float(p50), "p99": float(p99), "errors": int(non2xx) + int(serr)})
    for path in sorted(glob.glob(os.path.join(work, "harness-*.json"))):
        m = re.match(r"harness-(\w+)-(.+)\.json$", os.path.basename(path))
        build, sc = m.group(1), m.group(2)
        with open(path) as f:
            h = json.load(f)
        raw[(build, sc)] = h
        for name, s in h["scenarios"].items():
            rec = {"rps": s["rps"], "us": s["server_cpu_us_per_req"], "p50": s["p50_ms"], "p99": s["p99_ms"],
                   "errors": s["non2xx"] + s["socket_errors"], "connections": s["connections"]}
            if name == "mixed":
                mx = s["mixed"]
                rec.update(reads_p99=mx["reads"]["p99_ms"], writes_p50=mx["writes"]["p50_ms"],
                           writes_p99=mx["writes"]["p99_ms"], writes_n=mx["writes"]["n"],
                           writes_over_10ms=mx["write_share_over_10ms"],
                           writer_waits_over_10ms=(mx.get("writer_waits") or {}).get("share_over_10ms"))
            add("h-" + name, build, sc, rec)
    cpus_seen.sort(key=ncpus)
    return rows, cpus_seen, raw


def fmt(v, nd=0):
    if v is None:
        return "–"
    return f"{v:,.{nd}f}"


def ratio(a, b, nd=2, suffix="x"):
    if a is None or b is None or not b:
        return "–"
    return f"{a / b:.{nd}f}{suffix}"


def get(rows, row, build, sc, key):
    return (rows.get((row, build)) or {}).get(sc, {}).get(key)


def main():
    work, out = sys.argv[1], sys.argv[2]
    rows, cpus, raw = load(work)
    lo, hi = (cpus[0], cpus[-1]) if cpus else (None, None)
    labels = {sc: f"{ncpus(sc)} core{'s' if ncpus(sc) > 1 else ''} ({sc})" for sc in cpus}
    md = ["# devbench: the floor and hearth before/after (issue 34)", ""]
    if raw:
        first = min(raw.values(), key=lambda h: h["started_at"])
        mach = first["machine"]
        md.append(f"Machine: {mach['cpus']} CPUs, {mach['cpu_model']}; {mach['platform']}. "
                  f"First harness run {first['started_at']}.")
    for (build, sc), h in sorted(raw.items()):
        if sc == lo:
            md.append(f"- {build}: {h['hearth']['version']}, sha256 {sha256(h['hearth']['binary'])[:16]}")
    for (build, sc), h in sorted(raw.items(), key=lambda kv: kv[1]["started_at"]):
        m, st = h["machine"], h["settings"]
        md.append(f"- harness {h['started_at']}: {build}, server CPUs {m.get('server_cpus')}, wrk CPUs "
                  f"{m.get('wrk_cpus')}, {st['wrk']} -c{st['connections']}, {st['runs']} x {st['duration_s']} s "
                  f"after {st['warmup_s']} s")
    md += ["", "Server CPU is user + system time of every server thread (/proc), per request. "
           "Rows marked (scale.sh) come from bench/device/scale.sh (plain wrk, no Lua), the others from "
           "bench/harness.py (1 run, dataset 1x). `scaling` is the high-core req/s over the 1-core one; "
           "`CPU x` the high-core CPU per request over the 1-core one.", ""]

    names = [(r, label) for r, label in SCALE_ROUTES] + \
            [("h-" + s, f"hearth `{s}`") for s in HARNESS_ORDER if any(k[0] == "h-" + s for k in rows)]
    head = "| route | build | " + " | ".join(f"{labels[sc]} req/s | µs/req | busy | p99 ms" for sc in cpus)
    head += " | scaling | CPU x |" if len(cpus) > 1 else " |"
    md += ["## Throughput and server CPU per request", "",
           "`busy`: the server's CPU seconds per second (req/s x µs/req): at most the cores it is pinned to; "
           "more means `taskset` is not enforced here, and the core counts are not what they say.", "",
           head, "|" + "---|" * (2 + 4 * len(cpus) + (2 if len(cpus) > 1 else 0))]
    busiest = {}
    for row, label in names:
        for build in (["-"] if row == "floor" else BUILDS):
            if (row, build) not in rows:
                continue
            cells = [label, build]
            for sc in cpus:
                rps, us = get(rows, row, build, sc, "rps"), get(rows, row, build, sc, "us")
                busy = rps * us / 1e6 if rps is not None and us is not None else None
                if busy is not None:
                    busiest[sc] = max(busiest.get(sc, 0.0), busy)
                cells += [fmt(rps), fmt(us, 1), fmt(busy, 2), fmt(get(rows, row, build, sc, "p99"), 2)]
                if get(rows, row, build, sc, "errors"):
                    cells[-4] += f" ({get(rows, row, build, sc, 'errors')} errors!)"
            if len(cpus) > 1:
                cells += [ratio(get(rows, row, build, hi, "rps"), get(rows, row, build, lo, "rps"), 1),
                          ratio(get(rows, row, build, hi, "us"), get(rows, row, build, lo, "us"))]
            md.append("| " + " | ".join(cells) + " |")

    for sc in cpus:
        if sc in busiest and busiest[sc] > ncpus(sc) * 1.05:
            md += ["", f"**Pinning check failed**: at {labels[sc]} a server was busy {busiest[sc]:.2f} CPUs "
                   f"(pinned to {ncpus(sc)})."]
    if any(k[0] == "h-mixed" for k in rows):
        md += ["", "## mixed (12% writes): latency", "",
               "| build | cores | conns | req/s | p50 ms | p99 ms | reads p99 | writes p50 | writes p99 | "
               "writes > 10 ms | writer waits > 10 ms |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for sc in cpus:
            for build in BUILDS:
                r = (rows.get(("h-mixed", build)) or {}).get(sc)
                if not r:
                    continue
                pct = (lambda v: "–" if v is None else f"{100 * v:.1f}%")
                md.append(f"| {build} | {labels[sc]} | {r['connections']} | {fmt(r['rps'])} | {fmt(r['p50'], 2)} | "
                          f"{fmt(r['p99'], 2)} | {fmt(r['reads_p99'], 2)} | {fmt(r['writes_p50'], 2)} | "
                          f"{fmt(r['writes_p99'], 2)} | {pct(r['writes_over_10ms'])} | "
                          f"{pct(r['writer_waits_over_10ms'])} |")

    md += ["", "## Ratios", "", "After / before (req/s; CPU per request before / after: above 1 is less CPU):", "",
           "| route | " + " | ".join(f"{labels[sc]} req/s | CPU" for sc in cpus) + " |",
           "|" + "---|" * (1 + 2 * len(cpus))]
    for row, label in names[1:]:
        if (row, "before") in rows and (row, "after") in rows:
            cells = [label]
            for sc in cpus:
                cells += [ratio(get(rows, row, "after", sc, "rps"), get(rows, row, "before", sc, "rps")),
                          ratio(get(rows, row, "before", sc, "us"), get(rows, row, "after", sc, "us"))]
            md.append("| " + " | ".join(cells) + " |")
    if lo:
        md += ["", f"Against the floor, each at {labels[lo]} (req/s, same run):", "",
               "| route | " + " | ".join(BUILDS) + " |", "|---|" + "---|" * len(BUILDS)]
        for row, label in SCALE_ROUTES[1:]:
            md.append(f"| {label} / floor | " + " | ".join(
                pct_of(get(rows, row, b, lo, "rps"), get(rows, "floor", "-", lo, "rps")) for b in BUILDS) + " |")
        md.append("| `verify_token` / `ceiling` (harness) | " + " | ".join(
            pct_of(get(rows, "h-verify_token", b, lo, "rps"), get(rows, "h-ceiling", b, lo, "rps"))
            for b in BUILDS) + " |")

    md += ["", "## Issue 34's targets (after)", ""] + targets(rows, lo, hi, labels)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"rows": {f"{r}|{b}": v for (r, b), v in rows.items()}, "cpus": cpus,
                   "harness": {f"{b}|{sc}": h for (b, sc), h in raw.items()}}, f, indent=1)
    print("\n".join(md))


def sha256(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "?"


def pct_of(a, b):
    return "–" if a is None or not b else f"{100 * a / b:.0f}%"


def targets(rows, lo, hi, labels):
    """Issue 34's targets, each with before and after and whether after meets it."""
    if not lo:
        return ["(nothing measured)"]
    g = (lambda row, b, sc, k: get(rows, row, b, sc, k))
    floor = g("floor", "-", lo, "rps")
    out = ["| target | before | after | met |", "|---|---|---|---|"]

    def line(name, fn, ok):
        vals = [fn(b) for b in BUILDS]
        shown = ["–" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.2f}" for v in vals]
        met = "–" if vals[1] is None else ("yes" if ok(vals[1], vals[0]) else "NO")
        out.append(f"| {name} | {shown[0]} | {shown[1]} | {met} |")

    def div(a, b):
        return None if a is None or not b else a / b
    line(f"`/livez` ≥ 0.85 of the floor, {labels[lo]}", lambda b: div(g("hearth-livez", b, lo, "rps"), floor),
         lambda v, _: v >= 0.85)
    line(f"`me_jwt` ≥ 0.55 of the floor, {labels[lo]}", lambda b: div(g("hearth-me_jwt", b, lo, "rps"), floor),
         lambda v, _: v >= 0.55)
    line(f"`verify_token` ≥ 0.75 of `ceiling`, {labels[lo]}",
         lambda b: div(g("h-verify_token", b, lo, "rps"), g("h-ceiling", b, lo, "rps")), lambda v, _: v >= 0.75)
    if hi != lo:
        for row, name in (("hearth-livez", "`/livez`"), ("hearth-me_jwt", "`me_jwt` (scale.sh)"),
                          ("h-course_get", "`course_get`")):
            line(f"{name} {labels[hi]} ≥ 6x its 1-core rate",
                 lambda b, row=row: div(g(row, b, hi, "rps"), g(row, b, lo, "rps")), lambda v, _: v >= 6)
            line(f"{name} CPU/request {labels[hi]} ≤ 1.35x its 1-core figure",
                 lambda b, row=row: div(g(row, b, hi, "us"), g(row, b, lo, "us")), lambda v, _: v <= 1.35)
        line(f"`course_create` {labels[hi]} ≥ 10k/s and ≥ 3x before", lambda b: g("h-course_create", b, hi, "rps"),
             lambda v, before: v >= 10000 and before is not None and v >= 3 * before)
        line(f"`mixed` {labels[hi]} ≥ 50k req/s", lambda b: g("h-mixed", b, hi, "rps"), lambda v, _: v >= 50000)
        line(f"`mixed` {labels[hi]} writes p99 ≤ 15 ms", lambda b: g("h-mixed", b, hi, "writes_p99"),
             lambda v, _: v <= 15)
    line(f"`course_create` {labels[lo]} ≥ 1.5x before", lambda b: g("h-course_create", b, lo, "rps"),
         lambda v, before: before is not None and v >= 1.5 * before)
    line(f"`mixed` {labels[lo]} p99 ≤ 25 ms", lambda b: g("h-mixed", b, lo, "p99"), lambda v, _: v <= 25)
    return out


if __name__ == "__main__":
    main()
