"""The server's Prometheus histograms (serve --metrics-listen): the waits for a database
connection, parsed from a text exposition, and how many of the waits between two
scrapes took longer than a limit."""

WAIT_HISTOGRAMS = ["hearth_db_write_wait_seconds", "hearth_db_read_wait_seconds"]


def parse_histograms(text, names):
    """The named histograms of a Prometheus text exposition (see Server.histograms)."""
    out = {n: {"buckets": {}, "count": 0.0, "sum": 0.0} for n in names}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        name, _, labels = head.partition("{")
        try:
            v = float(value)
        except ValueError:
            continue
        for n in names:
            if name == n + "_bucket":
                le = next((lab.split("=", 1)[1].strip('"') for lab in labels.rstrip("}").split(",")
                           if lab.startswith("le=")), None)
                if le is not None:
                    key = float("inf") if le == "+Inf" else float(le)
                    out[n]["buckets"][key] = out[n]["buckets"].get(key, 0.0) + v
            elif name == n + "_count":
                out[n]["count"] += v
            elif name == n + "_sum":
                out[n]["sum"] += v
    return out


def waits_over(before, after, name, limit):
    """From two scrapes: how many waits `name` saw in between, and how many took longer
    than `limit` seconds (counted from the largest bucket bound <= limit)."""
    if not before or not after or name not in after:
        return None
    b, a = before.get(name, {"buckets": {}, "count": 0.0}), after[name]
    count = a["count"] - b["count"]
    bounds = [le for le in a["buckets"] if le <= limit]
    if not bounds:
        return {"waits": int(count), "over": None, "bound_s": None}
    le = max(bounds)
    within = a["buckets"][le] - b["buckets"].get(le, 0.0)
    return {"waits": int(count), "over": int(count - within), "bound_s": le,
            "share_over": (count - within) / count if count else 0.0,
            "sum_s": round(a["sum"] - b.get("sum", 0.0), 6)}
