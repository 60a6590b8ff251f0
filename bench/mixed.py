"""The mixed scenario's own pieces (see bench/lua/mixed.lua): the dataset check, one user
per connection, the per-thread records read into a report, the runs pooled into a
summary, and the summary's table."""

import os
import statistics

from procs import log  # bench/, beside this module

WRITE_WAIT_LIMIT_S = 0.01  # mixed: a write "waited for the writer" when it took > 10 ms


def check_mixed_data(meta):
    """mixed draws discussions, live posts and statuses at random: each kind must exist."""
    counts = meta["counts"]
    live_posts = counts.get("post", 0) - meta["hub_deleted_posts"][1]
    if counts.get("discussion", 0) < 1 or live_posts < 1 or counts.get("status", 0) < 1 \
            or counts.get("category", 0) < 1 or counts.get("user", 0) < 3:
        raise SystemExit("bench: mixed needs at least 3 users, 1 category, 1 discussion, 1 status "
                         "and 1 post past the hub's deleted ones in the dataset")


def mixed_users(users, conns):
    """One distinct user per mixed connection, spread over the ids and never the hub (1,
    which other scenarios act as) or the staff user (2)."""
    first = 3
    span = users - first + 1
    if span < 1:
        raise SystemExit("bench: mixed needs at least 3 users")
    if span < conns:
        log(f"mixed: only {span} users for {conns} connections: some connections share a user")
    return [first + (k * span) // conns if span >= conns else first + k % span for k in range(conns)]


def mixed_report(logdir):
    """Reads the per-thread records of a mixed run (see bench/lua/mixed.lua): per kind and
    per group (reads, writes) the requests, statuses, p50/p99/max and how many took longer
    than 10 ms; and the refresh tokens the connections still hold unused."""
    kinds = {}
    with open(os.path.join(logdir, "kinds")) as f:
        for line in f:
            name, weight, rw = line.split()
            kinds[name] = {"weight": int(weight), "write": rw == "write", "lat": [], "status": {}}
    held, used, skipped = [], set(), 0
    for fname in sorted(os.listdir(logdir)):
        if not fname.startswith("thread-"):
            continue
        with open(os.path.join(logdir, fname)) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[0] == "token":
                    held.append(parts[1])
                elif len(parts) == 2 and parts[0] == "used":
                    used.add(parts[1])
                elif parts == ["skipped", "refresh"]:
                    skipped += 1
                elif len(parts) == 3 and parts[0] in kinds:
                    k = kinds[parts[0]]
                    k["lat"].append(int(parts[2]))
                    k["status"][parts[1]] = k["status"].get(parts[1], 0) + 1

    def entry(lat, status):
        lat = sorted(lat)

        def pct(p):  # nearest rank, as wrk's own percentiles
            return lat[max(0, min(len(lat) - 1, -(-len(lat) * p // 100) - 1))] if lat else 0
        return {"n": len(lat), "p50_us": pct(50), "p99_us": pct(99), "max_us": lat[-1] if lat else 0,
                "over_10ms": sum(1 for v in lat if v > WRITE_WAIT_LIMIT_S * 1e6),
                "non2xx": sum(n for code, n in status.items() if not code.startswith("2")),
                "status": status}

    out = {"kinds": {}, "groups": {}, "refresh_skipped": skipped}
    for group, is_write in (("reads", False), ("writes", True)):
        lat, status = [], {}
        for k in kinds.values():
            if k["write"] == is_write:
                lat += k["lat"]
                for code, n in k["status"].items():
                    status[code] = status.get(code, 0) + n
        out["groups"][group] = entry(lat, status)
    for name, k in kinds.items():
        out["kinds"][name] = dict(entry(k["lat"], k["status"]), weight=k["weight"], write=k["write"])
    left = [t for t in held if t not in used]
    return out, left


def summarize_mixed(runs):
    """Per kind and per group (reads, writes): requests and non-2xx summed over the runs,
    p50/p99 the median of the runs'; the share of writes slower than 10 ms pooled over the
    runs (client side), and, with metrics, the share of the writer waits over 10 ms."""
    def group(entries):
        return {
            "n": sum(e["n"] for e in entries),
            "non2xx": sum(e["non2xx"] for e in entries),
            "over_10ms": sum(e["over_10ms"] for e in entries),
            "p50_ms": statistics.median(e["p50_us"] for e in entries) / 1000,
            "p99_ms": statistics.median(e["p99_us"] for e in entries) / 1000,
            "max_ms": max(e["max_us"] for e in entries) / 1000,
        }
    ms = [r["mixed"] for r in runs]
    kinds = {}
    for name, first in ms[0]["kinds"].items():
        kinds[name] = dict(group([m["kinds"][name] for m in ms]), write=first["write"], weight=first["weight"])
    out = {"kinds": kinds,
           "reads": group([m["groups"]["reads"] for m in ms]),
           "writes": group([m["groups"]["writes"] for m in ms]),
           "refresh_skipped": sum(m["refresh_skipped"] for m in ms)}
    w = out["writes"]
    out["write_share_over_10ms"] = w["over_10ms"] / w["n"] if w["n"] else None
    waits = [(r.get("db_waits") or {}).get("hearth_db_write_wait_seconds") for r in runs]
    if all(waits) and all(x["over"] is not None for x in waits):
        total = sum(x["waits"] for x in waits)
        over = sum(x["over"] for x in waits)
        out["writer_waits"] = {"waits": total, "over_10ms": over,
                               "share_over_10ms": over / total if total else None,
                               "bucket_bound_s": waits[0]["bound_s"],
                               "source": "hearth_db_write_wait_seconds"}
    return out


def print_mixed(m, a):
    total_n = sum(k["n"] for k in m["kinds"].values()) or 1
    print(f"\nmixed, per kind ({a.runs} run(s) pooled; p50/p99 from the client's own timing, median of the runs):")
    print(f"  {'kind':<20} {'share':>6} {'requests':>9} {'p50_ms':>8} {'p99_ms':>8} {'>10ms':>7} {'non2xx':>7}")
    rows = list(m["kinds"].items()) + [("reads (all)", m["reads"]), ("writes (all)", m["writes"])]
    for name, k in rows:
        label = name + (" (w)" if k.get("write") else "")
        print(f"  {label:<20} {100 * k['n'] / total_n:>5.1f}% {k['n']:>9} {k['p50_ms']:>8.2f} "
              f"{k['p99_ms']:>8.2f} {100 * k['over_10ms'] / max(1, k['n']):>6.1f}% {k['non2xx']:>7}")
    share = m["write_share_over_10ms"]
    line = ("  writes slower than 10 ms (client side, whole request): "
            + (f"{100 * share:.1f}%" if share is not None else "no writes"))
    ww = m.get("writer_waits")
    if ww:
        bound = ww["bucket_bound_s"]
        line += (f"; waited for the writer > {bound * 1000:g} ms (server, hearth_db_write_wait_seconds): "
                 + (f"{100 * ww['share_over_10ms']:.2f}% of {ww['waits']} waits" if ww["waits"] else "no waits"))
    else:
        line += "; the server's writer-wait histogram is not available in this build"
    print(line)
    if m["refresh_skipped"]:
        print(f"  {m['refresh_skipped']} refreshes were sent as `me` instead: their connection had no refresh token left")
