#!/usr/bin/env python3
"""Generate hearth's benchmark dataset in the import format (SPEC section 2).

Deterministic: a fixed seed, no clock, no hash randomisation in the output order, so the
same arguments give a byte-identical file.  Next to FILE it writes FILE.meta.json
(counts and the id rules the harness and the Lua scripts rely on).

Shape (defaults):
  * 20,000 users user000001.., all with password "benchpass" (one shared Django
    pbkdf2_sha256 hash, 600,000 iterations, computed once); user 2 is staff; ~10% ext_id.
  * ~1M follows (50 per user on average, ~25% of the random ones reciprocated).
    User 1 is the hub: it follows exactly users 2..1001 (1,000), of whom exactly
    users 2..301 (300) follow it back; users 1002.. may follow it too (followers only).
  * 40 categories, 2 preference lines.
  * 100,000 courses; privacy by id % 10: 0-5 open, 6-7 private, 8 secret, 9 draft ("");
    1-2 categories each; 0-2 course_member lines each (never the creator).
  * 4,000 discussions, 4,000 posts (posts 1..1000 by user 1, all deleted), 2,000
    statuses, 10,000 comments (threads on live items, some replies with a parent).
    Every tenth live post has a single-choice poll of three choices and up to five
    votes; the hub (user 1) answered every other poll.
  * 100 groups (SPEC section 10); group 1 is the hub group: public, created by user 2,
    with members 1..200 (user 1 joined) and 2,000 posts (ids after the other posts) by
    them; the other groups public or private by id, 0-3 members each, no posts.
  * 2,000 events over 2025-2027 (a tenth weekly, monthly or daily), public but every
    fifth private, virtual or in person, in three zones, 0-2 members each besides the
    creator; user 1 joined (going) every 50th. Groups and events are switched on.
  * private messages: user 1's thread of 2,000 with user 2, and 99 more threads.

Python 3 standard library only.
"""

import argparse
import base64
import hashlib
import json
import os
import random
import sys

SEED = 20261122
PASSWORD = "benchpass"
SALT = "hearthbenchsalt2026xyz"  # fixed: the hash must be the same on every run
ITERATIONS = 600_000
EPOCH = 1735689600  # 2025-01-01T00:00:00Z
HUB = 1
COURSE_TYPES = ("self-paced", "structured", "scheduled")
JOIN_STATUSES = ("joined", "manager", "invited", "requested")
EVENT_ZONES = ("UTC", "Europe/Rome", "America/New_York")
EVENT_RECURRENCES = {0: "weekly", 1: "monthly", 2: "daily"}  # by id % 30: a tenth recur


def privacy_of(course_id):
    """Privacy by id: the rule the harness and course_get.lua use."""
    r = course_id % 10
    if r <= 5:
        return "open"
    if r <= 7:
        return "private"
    if r == 8:
        return "secret"
    return ""  # draft: creator and managers only


def ts(seconds):
    """RFC 3339 UTC with microseconds, without the clock or time zones."""
    days, rem = divmod(seconds, 86400)
    h, rem = divmod(rem, 3600)
    m, s = divmod(rem, 60)
    # civil-from-days (Howard Hinnant), days since 1970-01-01
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    if mo <= 2:
        y += 1
    return f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{m:02d}:{s:02d}.000000Z"


def django_hash(password):
    dk = hashlib.pbkdf2_hmac("sha256", password.encode(), SALT.encode(), ITERATIONS)
    return f"pbkdf2_sha256${ITERATIONS}${SALT}${base64.b64encode(dk).decode()}"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="NDJSON file to write (plus OUT.meta.json)")
    p.add_argument("--users", type=int, default=20_000)
    p.add_argument("--follows-per-user", type=int, default=50)
    p.add_argument("--hub-followings", type=int, default=1000)
    p.add_argument("--hub-mutual", type=int, default=300)
    p.add_argument("--categories", type=int, default=40)
    p.add_argument("--courses", type=int, default=100_000)
    p.add_argument("--discussions", type=int, default=4000)
    p.add_argument("--posts", type=int, default=4000)
    p.add_argument("--hub-deleted-posts", type=int, default=1000)
    p.add_argument("--statuses", type=int, default=2000)
    p.add_argument("--comments", type=int, default=10_000)
    p.add_argument("--pm-threads", type=int, default=100,
                   help="the hub's private message threads (one message each but the first)")
    p.add_argument("--pm-messages", type=int, default=2000,
                   help="messages in the hub's thread with user 2 (what pm_thread reads)")
    p.add_argument("--groups", type=int, default=100,
                   help="groups; group 1 is the hub group (user 1 a member) that group_feed reads")
    p.add_argument("--group-posts", type=int, default=2000, help="posts in the hub group")
    p.add_argument("--hub-group-members", type=int, default=200,
                   help="members of the hub group: users 1..N (user 2 created it)")
    p.add_argument("--events", type=int, default=2000, help="events (what event_search lists)")
    p.add_argument("--seed", type=int, default=SEED)
    a = p.parse_args(argv)
    if a.users < 2 or a.categories < 2 or a.courses < 1:
        p.error("need at least 2 users, 2 categories and 1 course")
    a.hub_followings = min(a.hub_followings, a.users - 1)
    a.hub_mutual = min(a.hub_mutual, a.hub_followings)
    a.hub_deleted_posts = min(a.hub_deleted_posts, a.posts)
    a.pm_threads = min(a.pm_threads, a.users - 1)
    a.hub_group_members = max(2, min(a.hub_group_members, a.users))
    if a.groups < 1:
        a.group_posts = 0
    return a


def generate(a, out):
    rng = random.Random(a.seed)
    counts = {}
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

    def emit(kind, obj):
        out.write(dumps({"record": kind, **obj}))
        out.write("\n")
        counts[kind] = counts.get(kind, 0) + 1

    # --- users ------------------------------------------------------------------
    pw = django_hash(PASSWORD)
    for uid in range(1, a.users + 1):
        emit("user", {
            "id": uid,
            "username": f"user{uid:06d}",
            "email": f"user{uid:06d}@bench.example",
            "real_name": f"Bench User {uid}",
            "password": pw,
            "is_staff": uid == 2,
            "ext_id": f"ext-{uid}" if uid % 10 == 3 else None,
            "date_joined": ts(EPOCH + uid * 60),
        })

    # --- follows ----------------------------------------------------------------
    seen = set()
    n = a.users

    def follow(a_, b_, t):
        key = a_ * (n + 1) + b_
        if a_ == b_ or key in seen:
            return False
        seen.add(key)
        emit("follow", {"follower": a_, "followed": b_, "created_at": ts(t)})
        return True

    t = EPOCH + 86400 * 30
    hub_followed = range(2, 2 + a.hub_followings)           # users 2..1001
    for v in hub_followed:
        follow(HUB, v, t)
    for v in range(2, 2 + a.hub_mutual):                     # users 2..301 follow back
        follow(v, HUB, t + 1)
    hub_fans = range(2 + a.hub_followings, min(n, 1 + a.hub_followings + 2 * a.hub_followings) + 1)
    for v in hub_fans:                                      # followers the hub does not follow
        if v % 2 == 0:
            follow(v, HUB, t + 2)
    # Random follows for everyone else; the hub never appears (its lists are exact).
    # ~25% of the random edges are reciprocated, so picks average per_user / 1.25.
    mean_picks = max(1, round(a.follows_per_user / 1.25))
    lo, hi = max(0, mean_picks // 2), mean_picks + mean_picks // 2
    pool = n - 2  # possible targets besides self and the hub
    for u in range(2, n + 1):
        k = min(rng.randint(lo, hi), pool)
        for _ in range(k):
            v = rng.randint(2, n)
            t += 1
            if follow(u, v, t) and rng.random() < 0.25:
                follow(v, u, t)
    del seen

    # --- categories, preferences -------------------------------------------------
    for cid in range(1, a.categories + 1):
        emit("category", {"id": cid, "name": f"Category {cid}", "slug": f"category-{cid}"})
    emit("preference", {"section": "text", "name": "application_name", "value": "hearth bench"})
    emit("preference", {"section": "configurations", "name": "content_availability", "value": True})

    def cats(lo_n=1, hi_n=2):
        return sorted(rng.sample(range(1, a.categories + 1), rng.randint(lo_n, hi_n)))

    # --- courses and members -----------------------------------------------------
    visible = {"open": 0, "private": 0, "secret": 0, "": 0}
    t = EPOCH + 86400 * 60
    for cid in range(1, a.courses + 1):
        creator = rng.randint(1, n)
        privacy = privacy_of(cid)
        visible[privacy] += 1
        emit("course", {
            "id": cid,
            "created_by": creator,
            "name": f"Course {cid:06d}",
            "slug": f"course-{cid:06d}",
            "description": f"Bench course number {cid}, about topic {cid % 97}.",
            "type": COURSE_TYPES[cid % 3],
            "privacy": privacy,
            "categories": cats(),
            "created_at": ts(t + cid * 30),
        })
        members = set()
        for _ in range(rng.randint(0, 2)):
            m = rng.randint(1, n)
            if m == creator or m in members:
                continue
            members.add(m)
            emit("course_member", {"course": cid, "user": m, "join_status": rng.choice(JOIN_STATUSES)})

    # --- groups (SPEC section 10): on; group 1, the hub group, is public, created by
    # user 2, with users 1..hub_group_members as members (what group_feed reads)
    if a.groups > 0:
        emit("preference", {"section": "configurations", "name": "groups_enabled", "value": True})
    t = EPOCH + 86400 * 90
    for gid in range(1, a.groups + 1):
        t += 60
        creator = 2 if gid == 1 else rng.randint(1, n)
        emit("group", {
            "id": gid,
            "name": "Hub group" if gid == 1 else f"Group {gid:06d}",
            "created_by": creator,
            "description": f"Bench group number {gid}, about topic {gid % 97}.",
            "privacy": "private" if gid % 4 == 3 else "public",
            "created_at": ts(t),
        })
        if gid == 1:
            for m in range(1, a.hub_group_members + 1):
                if m != creator:
                    emit("group_member", {"group": gid, "user": m, "join_status": "joined"})
            continue
        members = set()
        for _ in range(rng.randint(0, 3)):
            m = rng.randint(1, n)
            if m == creator or m in members:
                continue
            members.add(m)
            emit("group_member", {"group": gid, "user": m, "join_status": rng.choice(JOIN_STATUSES)})

    # --- contributions -----------------------------------------------------------
    t = EPOCH + 86400 * 120

    def contribution(kind, cid, author, deleted, extra):
        nonlocal t
        t += 7
        emit(kind, {
            "id": cid,
            "author": author,
            "text": f"Bench {kind} {cid}: some text to read and search through.",
            **extra,
            "categories": cats(0, 2),
            "added_at": ts(t),
            "deleted": deleted,
        })

    for i in range(1, a.discussions + 1):
        contribution("discussion", i, rng.randint(1, n), False, {"title": f"Discussion {i}"})
    # every tenth live post has a poll of three choices (ids 3i-2..3i); its votes come
    # from a generator of their own, so adding polls left every other line as it was
    polled = []
    for i in range(1, a.posts + 1):
        hub_post = i <= a.hub_deleted_posts
        extra = {}
        if not hub_post and i % 10 == 0:
            extra["poll"] = {"title": f"Poll {i}?", "multiple_choices": False, "expiration_at": None,
                             "choices": [{"id": 3 * i - k, "choice": f"choice {3 - k}"} for k in (2, 1, 0)]}
            polled.append(i)
        contribution("post", i, HUB if hub_post else rng.randint(1, n), hub_post, extra)
    # the hub group's posts, ids after the others, by its members
    for i in range(a.posts + 1, a.posts + a.group_posts + 1):
        contribution("post", i, rng.randint(1, a.hub_group_members), False, {"group": 1})
    for i in range(1, a.statuses + 1):
        contribution("status", i, rng.randint(1, n), False, {"action": "says"})

    # Poll votes: up to five random members each; the hub answers every other poll, so
    # the hub's poll suggestions (the poll_suggest scenario) skip half the polls they walk
    votes = random.Random(SEED + 1)
    for i in polled:
        voters = {votes.randint(2, n) for _ in range(votes.randint(0, 5))}
        if i % 20 == 0:
            voters.add(HUB)
        for u in sorted(voters):
            emit("poll_vote", {"user": u, "choice": 3 * i - votes.randint(0, 2)})

    # Comments on live items only; a thread's later comments may reply to an earlier one.
    targets = [("discussion", i) for i in range(1, a.discussions + 1)]
    targets += [("post", i) for i in range(a.hub_deleted_posts + 1, a.posts + a.group_posts + 1)]
    targets += [("status", i) for i in range(1, a.statuses + 1)]
    thread_last = {}
    if targets:
        for i in range(1, a.comments + 1):
            target = targets[rng.randrange(len(targets))]
            parent = thread_last.get(target) if rng.random() < 0.3 else None
            t += 3
            emit("comment", {
                "id": i,
                "author": rng.randint(1, n),
                "text": f"Bench comment {i}.",
                target[0]: target[1],
                "parent": parent,
                "added_at": ts(t),
                "deleted": False,
            })
            thread_last[target] = i

    # --- events (SPEC section 10): on; spread over 2025-2027 so that the date filters
    # find some whatever today is in that span
    if a.events > 0:
        emit("preference", {"section": "configurations", "name": "events_enabled", "value": True})
    span = 3 * 365 * 86400
    for eid in range(1, a.events + 1):
        creator = rng.randint(1, n)
        start = EPOCH + rng.randrange(span // 3600) * 3600
        line = {
            "id": eid,
            "created_by": creator,
            "name": f"Event {eid:06d}",
            "description": f"Bench event number {eid}, about topic {eid % 97}.",
            "start_date": ts(start),
            "end_date": ts(start + 3600 * rng.randint(1, 3)),
            "timezone": EVENT_ZONES[eid % len(EVENT_ZONES)],
            "recurring": EVENT_RECURRENCES.get(eid % 30, "never"),
            "privacy": "private" if eid % 5 == 4 else "public",
            "created_at": ts(EPOCH + eid * 60),
        }
        if eid % 2:
            line.update(location="virtual", link=f"https://meet.bench.example/{eid}")
        else:
            line.update(location="in person", geolocation=f"Bench Hall {eid % 50}")
        emit("event", line)
        members = {creator}
        if eid % 50 == 0 and HUB not in members:
            members.add(HUB)
            emit("event_member", {"event": eid, "user": HUB, "join_status": "joined", "going": True})
        for _ in range(rng.randint(0, 2)):
            m = rng.randint(2, n)
            if m in members:
                continue
            members.add(m)
            emit("event_member", {"event": eid, "user": m, "join_status": "joined",
                                  "going": rng.random() < 0.7})

    # --- private messages (SPEC §10): on; the hub's long thread with user 2 first (its
    # messages are ids 1..pm_messages), then one message from each other thread's user
    if a.pm_threads > 0 and a.pm_messages > 0:
        emit("preference", {"section": "addons", "name": "private_messages_enabled", "value": True})
        t = EPOCH + 86400 * 200
        for i in range(a.pm_messages):
            t += 7
            sender, receiver = (HUB, 2) if i % 3 else (2, HUB)
            emit("private_message", {"sender": sender, "receiver": receiver,
                                     "message": f"Bench message {i + 1}.", "created_at": ts(t)})
        for other in range(3, a.pm_threads + 2):
            t += 7
            emit("private_message", {"sender": other, "receiver": HUB, "read": other % 2 == 0,
                                     "message": f"Hello from {other}.", "created_at": ts(t)})

    return {
        "generator": "bench/gen_dataset.py",
        "pm": {"thread_user": 2, "messages": a.pm_messages if a.pm_threads > 0 else 0},
        "args": {k: v for k, v in sorted(vars(a).items()) if k != "out"},
        "counts": counts,
        "lines": sum(counts.values()),
        "password": PASSWORD,
        "hub": {"id": HUB, "followings": a.hub_followings, "mutual": a.hub_mutual},
        "courses": {
            "max_id": a.courses,
            "privacy_rule": "id % 10: 0-5 open, 6-7 private, 8 secret, 9 draft",
            "by_privacy": {k or "draft": v for k, v in visible.items()},
            "visible_to_all": visible["open"] + visible["private"],
        },
        "hub_deleted_posts": [1, a.hub_deleted_posts],
        "groups": {"count": a.groups, "hub_group": 1 if a.groups else None,
                   "hub_group_posts": a.group_posts, "hub_group_members": a.hub_group_members},
        "events": {"count": a.events, "topics": 97},
    }


def main():
    a = parse_args()
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        meta = generate(a, f)
    with open(a.out + ".meta.json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, a.out)
    print(f"gen_dataset: {meta['lines']} lines -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
