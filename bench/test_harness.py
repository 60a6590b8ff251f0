#!/usr/bin/env python3
"""Tests of the harness's own arithmetic (no server, no wrk): presets, the mixed
records, the metrics histograms, pair.py's alternation and ratios, sockets.py's WebSocket
handshake and frames. Run:
python3 -m unittest bench/test_harness.py (scripts/test does)"""

import json
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_dataset  # noqa: E402
import harness  # noqa: E402
import metrics  # noqa: E402
import mixed  # noqa: E402
import pair  # noqa: E402
import sockets  # noqa: E402


def args(*argv):
    with mock.patch.object(sys, "argv", ["harness.py", *argv]):
        return harness.parse_args()


class Presets(unittest.TestCase):
    def test_1x_is_the_generators_defaults(self):
        a = args()
        self.assertEqual(a.preset, "1x")
        self.assertTrue(all(getattr(a, "gen_" + f) is None for f in harness.GEN_FLAGS))

    def test_10x_multiplies_the_volumes_and_keeps_the_shape(self):
        a = args("--preset", "10x")
        self.assertEqual((a.gen_users, a.gen_courses, a.gen_discussions, a.gen_posts,
                          a.gen_statuses, a.gen_comments),
                         (200_000, 1_000_000, 40_000, 40_000, 20_000, 100_000))
        # what group_feed, event_search and pm_thread read grows tenfold too
        self.assertEqual((a.gen_groups, a.gen_group_posts, a.gen_events, a.gen_pm_threads,
                          a.gen_pm_messages), (1_000, 20_000, 20_000, 1_000, 20_000))
        self.assertIsNone(a.gen_hub_group_members)
        # follows per user, the hub's lists and posts and the categories: the generator's
        self.assertIsNone(a.gen_follows_per_user)
        self.assertIsNone(a.gen_hub_followings)
        self.assertIsNone(a.gen_categories)

    def test_a_size_flag_overrides_the_preset(self):
        a = args("--preset", "10x", "--courses", "5")
        self.assertEqual(a.gen_courses, 5)
        self.assertEqual(a.gen_users, 200_000)

    def test_bad_combinations_are_refused(self):
        for argv in (["--preset", "100x"], ["--dataset", "x.ndjson", "--users", "5"],
                     ["--settle", "-1"], ["--scenarios", "nope"]):
            with self.subTest(argv=argv), mock.patch("sys.stderr"):
                with self.assertRaises(SystemExit):
                    args(*argv)

    def test_mixed_runs_last(self):
        self.assertEqual(args("--scenarios", "mixed,healthz").scenarios, ["healthz", "mixed"])

    def test_pinning_and_wrk_threads_default_to_one_core_each(self):
        a = args()
        self.assertEqual((a.server_cpus, a.wrk_cpus, a.threads), ("0", "1", 1))
        a = args("--server-cpus", "0-7", "--wrk-cpus", "8-15", "--threads", "8", "--connections", "256")
        self.assertEqual((a.server_cpus, a.wrk_cpus, a.threads, a.connections), ("0-7", "8-15", 8, 256))
        with mock.patch("sys.stderr"), self.assertRaises(SystemExit):
            args("--threads", "0")

    def test_mixed_keeps_a_thread_per_connection(self):
        self.assertEqual(harness.wrk_threads("course_get", 64), 1)
        self.assertEqual(harness.wrk_threads("course_get", 256, 8), 8)
        self.assertEqual(harness.wrk_threads("course_get", 4, 8), 4)
        self.assertEqual(harness.wrk_threads("mixed", 256, 8), 256)


class Dataset(unittest.TestCase):
    def test_every_tenth_live_post_has_a_poll_and_the_hub_answered_every_other(self):
        import io
        a = gen_dataset.parse_args(["--out", "-", "--users", "300", "--courses", "5",
                                    "--discussions", "5", "--posts", "200", "--hub-deleted-posts", "50",
                                    "--statuses", "5", "--comments", "10", "--groups", "0",
                                    "--events", "0", "--pm-threads", "0"])
        out = io.StringIO()
        gen_dataset.generate(a, out)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        polled = [r["id"] for r in lines if r["record"] == "post" and "poll" in r]
        self.assertEqual(polled, list(range(60, 201, 10)), "live posts only")
        choices = {c["id"]: r["id"] for r in lines if r["record"] == "post" and "poll" in r
                   for c in r["poll"]["choices"]}
        votes = [(r["user"], choices[r["choice"]]) for r in lines if r["record"] == "poll_vote"]
        self.assertEqual(len(votes), len(set(votes)), "one vote a member a poll")
        self.assertEqual(sorted(p for u, p in votes if u == 1), [p for p in polled if p % 20 == 0])
        kinds = [r["record"] for r in lines]
        self.assertLess(max(i for i, k in enumerate(kinds) if k == "post"), kinds.index("poll_vote"))

    def test_groups_and_events_arrive_as_the_scenarios_read_them(self):
        import io
        a = gen_dataset.parse_args(["--out", "-", "--users", "300", "--courses", "5",
                                    "--discussions", "5", "--posts", "20", "--hub-deleted-posts", "5",
                                    "--statuses", "5", "--comments", "10", "--groups", "6",
                                    "--group-posts", "30", "--hub-group-members", "10",
                                    "--events", "100", "--pm-threads", "3", "--pm-messages", "5"])
        out = io.StringIO()
        meta = gen_dataset.generate(a, out)
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        kinds = [r["record"] for r in lines]
        group_posts = [r for r in lines if r["record"] == "post" and r.get("group") == 1]
        self.assertEqual(len(group_posts), 30)
        self.assertEqual([r["id"] for r in group_posts], list(range(21, 51)))
        self.assertTrue(all(1 <= r["author"] <= 10 for r in group_posts), "by its members")
        hub_group = next(r for r in lines if r["record"] == "group" and r["id"] == 1)
        self.assertEqual((hub_group["created_by"], hub_group["privacy"]), (2, "public"))
        self.assertIn({"record": "group_member", "group": 1, "user": 1, "join_status": "joined"}, lines)
        # a group comes before the posts made in it
        self.assertLess(kinds.index("group"), kinds.index("post"))
        self.assertEqual(meta["counts"]["event"], 100)
        self.assertEqual(meta["groups"]["hub_group_posts"], 30)
        prefs = {(r["section"], r["name"]) for r in lines if r["record"] == "preference"}
        self.assertLessEqual({("configurations", "groups_enabled"), ("configurations", "events_enabled"),
                              ("addons", "private_messages_enabled")}, prefs)
        # no member twice in an event, never its creator
        seen = set()
        creators = {r["id"]: r["created_by"] for r in lines if r["record"] == "event"}
        for r in lines:
            if r["record"] == "event_member":
                self.assertNotIn((r["event"], r["user"]), seen)
                self.assertNotEqual(creators[r["event"]], r["user"])
                seen.add((r["event"], r["user"]))


class MixedUsers(unittest.TestCase):
    def test_distinct_and_never_the_hub_or_staff(self):
        for users, conns in ((20_000, 64), (67, 64), (200_000, 8)):
            got = mixed.mixed_users(users, conns)
            self.assertEqual(len(got), conns)
            self.assertEqual(len(set(got)), conns)
            self.assertTrue(all(3 <= u <= users for u in got))

    def test_fewer_users_than_connections_share(self):
        with mock.patch.object(mixed, "log"):
            got = mixed.mixed_users(5, 8)
        self.assertEqual(sorted(set(got)), [3, 4, 5])

    def test_the_data_must_have_every_kind(self):
        meta = {"counts": {"user": 10, "category": 2, "discussion": 1, "post": 5, "status": 1},
                "hub_deleted_posts": [1, 5]}
        with self.assertRaises(SystemExit):  # every post is the hub's deleted one
            mixed.check_mixed_data(meta)
        meta["counts"]["post"] = 6
        mixed.check_mixed_data(meta)


class MixedReport(unittest.TestCase):
    def write(self, d, name, text):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)

    def test_kinds_groups_and_tokens(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "kinds", "me 90 read\nfollow 5 write\nrefresh 5 write\n")
            self.write(d, "thread-1.log",
                       "token A\ntoken B\n"
                       "me 200 900\nme 200 20000\nfollow 204 15000\n"
                       "used A\nrefresh 200 3000\ntoken C\n"
                       "used B\n")  # B in flight when wrk stopped: lost
            self.write(d, "thread-2.log",
                       "token D\nme 200 500\nfollow 400 700\nskipped refresh\nme 200 800\n")
            report, left = mixed.mixed_report(d)
        self.assertEqual(sorted(left), ["C", "D"])
        k = report["kinds"]
        self.assertEqual(k["me"]["n"], 4)
        self.assertEqual(k["me"]["over_10ms"], 1)
        self.assertEqual(k["me"]["p50_us"], 800)   # nearest rank of 500, 800, 900, 20000
        self.assertEqual(k["me"]["p99_us"], 20000)
        self.assertEqual(k["follow"]["non2xx"], 1)
        self.assertEqual(k["follow"]["status"], {"204": 1, "400": 1})
        self.assertTrue(k["follow"]["write"])
        w, r = report["groups"]["writes"], report["groups"]["reads"]
        self.assertEqual((w["n"], w["over_10ms"], w["max_us"]), (3, 1, 15000))
        self.assertEqual((r["n"], r["non2xx"]), (4, 0))
        self.assertEqual(report["refresh_skipped"], 1)

    def test_an_empty_kind_reports_zeros(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "kinds", "me 100 read\npost 0 write\n")
            self.write(d, "thread-1.log", "me 200 5\n")
            report, left = mixed.mixed_report(d)
        self.assertEqual(report["groups"]["writes"]["n"], 0)
        self.assertEqual(report["kinds"]["post"]["p99_us"], 0)
        self.assertEqual(left, [])

    def test_summary_pools_the_runs(self):
        def run(n_w, over_w, p99):
            e = {"n": n_w, "p50_us": 1000, "p99_us": p99, "max_us": p99, "over_10ms": over_w,
                 "non2xx": 0, "status": {}}
            return {"mixed": {"kinds": {"vote": dict(e, write=True, weight=6)},
                              "groups": {"reads": dict(e), "writes": dict(e)},
                              "refresh_skipped": 0},
                    "db_waits": {"hearth_db_write_wait_seconds":
                                 {"waits": n_w, "over": over_w, "bound_s": 0.01}}}
        m = mixed.summarize_mixed([run(100, 10, 2000), run(300, 10, 4000)])
        self.assertAlmostEqual(m["write_share_over_10ms"], 20 / 400)
        self.assertEqual(m["writes"]["p99_ms"], 3.0)  # median of the runs' p99s
        self.assertAlmostEqual(m["writer_waits"]["share_over_10ms"], 20 / 400)


EXPOSITION = """# HELP hearth_db_write_wait_seconds Wait for the writer connection.
# TYPE hearth_db_write_wait_seconds histogram
hearth_db_write_wait_seconds_bucket{le="0.001"} 50
hearth_db_write_wait_seconds_bucket{le="0.01"} 90
hearth_db_write_wait_seconds_bucket{le="0.1"} 99
hearth_db_write_wait_seconds_bucket{le="+Inf"} 100
hearth_db_write_wait_seconds_sum 1.5
hearth_db_write_wait_seconds_count 100
hearth_http_request_duration_seconds_bucket{route="/x",method="GET",le="0.01"} 7
"""


class Histograms(unittest.TestCase):
    def test_parse_and_difference(self):
        names = ["hearth_db_write_wait_seconds", "hearth_db_read_wait_seconds"]
        before = metrics.parse_histograms(EXPOSITION, names)
        after = metrics.parse_histograms(
            EXPOSITION.replace('le="0.01"} 90', 'le="0.01"} 130')
                      .replace('le="0.1"} 99', 'le="0.1"} 149')
                      .replace('le="+Inf"} 100', 'le="+Inf"} 160')
                      .replace("_count 100", "_count 160")
                      .replace("_sum 1.5", "_sum 2.5"), names)
        self.assertEqual(before["hearth_db_write_wait_seconds"]["buckets"][0.01], 90)
        self.assertEqual(before["hearth_db_read_wait_seconds"]["count"], 0)  # absent: zero
        w = metrics.waits_over(before, after, "hearth_db_write_wait_seconds", 0.01)
        # 60 new waits, 40 of them within 10 ms
        self.assertEqual((w["waits"], w["over"], w["bound_s"]), (60, 20, 0.01))
        self.assertAlmostEqual(w["share_over"], 20 / 60)
        self.assertAlmostEqual(w["sum_s"], 1.0)

    def test_labels_are_summed_and_the_bound_never_exceeds_the_limit(self):
        text = ('h_bucket{route="a",le="0.005"} 3\nh_bucket{route="b",le="0.005"} 4\n'
                'h_bucket{route="a",le="0.05"} 5\nh_bucket{route="b",le="0.05"} 6\nh_count 11\n')
        after = metrics.parse_histograms(text, ["h"])
        w = metrics.waits_over({"h": {"buckets": {}, "count": 0.0, "sum": 0.0}}, after, "h", 0.01)
        self.assertEqual((w["waits"], w["over"], w["bound_s"]), (11, 4, 0.005))

    def test_no_metrics_no_numbers(self):
        self.assertIsNone(metrics.waits_over(None, None, "h", 0.01))


def slice_(side, rnd, requests, seconds, cpu_s, p99=1.0):
    return {"side": side, "round": rnd, "requests": requests, "seconds": seconds,
            "rps": requests / seconds, "cpu_s": cpu_s, "cpu_us_per_req": cpu_s * 1e6 / requests,
            "p99_ms": p99}


class Pair(unittest.TestCase):
    def test_each_side_goes_first_as_often_as_the_other(self):
        o = pair.order(4)
        self.assertEqual(o, [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")])
        self.assertEqual(sum(p[0] == "a" for p in o), sum(p[0] == "b" for p in o))

    def test_ratios_are_per_round_so_a_drift_cancels(self):
        # the machine halves its speed between round 0 and round 1; B is 10% slower in both
        slices = [slice_("a", 0, 10000, 1, 0.5), slice_("b", 0, 9000, 1, 0.5),
                  slice_("b", 1, 4500, 1, 0.5), slice_("a", 1, 5000, 1, 0.5)]
        r = pair.summarize(slices)
        self.assertAlmostEqual(r["ratio_rps"]["median"], 0.9)
        self.assertAlmostEqual(r["ratio_rps"]["min"], 0.9)
        self.assertAlmostEqual(r["ratio_cpu"]["median"], 0.9)
        # the totals mix both speeds
        self.assertEqual(r["a"]["requests"], 15000)
        self.assertAlmostEqual(r["a"]["rps"], 7500)
        self.assertAlmostEqual(r["a"]["cpu_us_per_req"], 1e6 / 15000)

    def test_a_slice_that_read_no_cpu_tick_gives_no_cpu_ratio(self):
        slices = [slice_("a", 0, 10, 1, 0.01), slice_("b", 0, 10, 1, 0.0)]
        r = pair.summarize(slices)
        self.assertAlmostEqual(r["ratio_rps"]["median"], 1.0)
        self.assertIsNone(r["ratio_cpu"])

    def test_a_round_without_both_sides_or_requests_gives_no_ratio(self):
        slices = [slice_("a", 0, 100, 1, 0.1), slice_("b", 1, 100, 1, 0.1)]
        r = pair.summarize(slices)
        self.assertIsNone(r["ratio_rps"])
        self.assertIsNone(r["ratio_cpu"])

    def test_arguments(self):
        a = pair.parse_args(["--scenario", "course_get", "--b-preset", "10x",
                             "--b-env", "HEARTH_MMAP_SIZE=2047", "--a-env", "HEARTH_RELEASE_MEMORY_AFTER=2s"])
        self.assertEqual((a.a_preset, a.b_preset), ("1x", "10x"))
        self.assertEqual(a.b_env, {"HEARTH_RELEASE_MEMORY_AFTER": "0", "HEARTH_MMAP_SIZE": "2047"})
        self.assertEqual(a.a_env, {"HEARTH_RELEASE_MEMORY_AFTER": "2s"})
        self.assertEqual(pair.connections(a), 64)
        self.assertEqual(pair.connections(pair.parse_args(["--scenario", "token_password"])), 4)
        with mock.patch("sys.stderr"):
            for bad in (["--scenario", "mixed"], ["--scenario", "token_refresh"],
                        ["--scenario", "me_jwt", "--a-env", "NOEQUALS"],
                        ["--scenario", "me_jwt", "--rounds", "0"]):
                with self.assertRaises(SystemExit, msg=bad):
                    pair.parse_args(bad)


class Sockets(unittest.TestCase):
    def test_the_handshake_sends_the_token_as_the_sub_protocol(self):
        req = sockets.handshake_request("127.0.0.1:8000", "/ws/notify?subscribe-user", "tok", "k==")
        self.assertTrue(req.startswith(b"GET /ws/notify?subscribe-user HTTP/1.1\r\n"))
        for h in (b"Upgrade: websocket", b"Sec-WebSocket-Version: 13", b"Sec-WebSocket-Key: k==",
                  b"Sec-WebSocket-Protocol: __tok"):
            self.assertIn(h + b"\r\n", req)
        self.assertTrue(req.endswith(b"\r\n\r\n"))

    def test_the_101_must_accept_the_key_and_echo_the_protocol(self):
        key = "dGhlIHNhbXBsZSBub25jZQ=="  # RFC 6455 1.3's example
        self.assertEqual(sockets.accept_value(key), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        ok = ("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n"
              "sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nsec-websocket-protocol: __tok").encode()
        self.assertIsNone(sockets.check_handshake(ok, key, "tok"))
        self.assertIn("protocol", sockets.check_handshake(ok, key, "other"))
        self.assertIn("Accept", sockets.check_handshake(ok, "a2V5", "tok"))
        self.assertIn("503", sockets.check_handshake(b"HTTP/1.1 503 Service Unavailable", key, "tok"))

    def test_a_client_frame_is_masked(self):
        f = sockets.text_frame(b"heartbeat", b"\x01\x02\x03\x04")
        self.assertEqual(f[:2], bytes([0x81, 0x80 | 9]))
        self.assertEqual(f[2:6], b"\x01\x02\x03\x04")
        self.assertEqual(bytes(b ^ f[2 + i % 4] for i, b in enumerate(f[6:])), b"heartbeat")
        self.assertEqual(sockets.text_frame(b"x" * 300, b"\0\0\0\0")[:4], bytes([0x81, 0xFE, 1, 44]))

    def test_memory_and_p99_ratios(self):
        m = sockets.memory({"VmRSS": 100.0, "RssAnon": 60.0}, {"VmRSS": 150.0, "RssAnon": 105.0}, 10000)
        self.assertEqual((m["delta_mb"], m["per_socket_kb"], m["anon_delta_mb"]), (50.0, 5.12, 45.0))
        slices = [dict(slice_("a", 0, 1000, 1, 0.1), p99_ms=10.0), dict(slice_("b", 0, 990, 1, 0.1), p99_ms=11.0),
                  dict(slice_("b", 1, 500, 1, 0.1), p99_ms=22.0), dict(slice_("a", 1, 500, 1, 0.1), p99_ms=20.0)]
        r = sockets.summarize(slices)
        self.assertAlmostEqual(r["ratio_p99"]["median"], 1.1)
        self.assertAlmostEqual(r["ratio_rps"]["min"], 0.99)
        self.assertNotIn("ratio_reads_p99", r)

    def test_arguments(self):
        a = sockets.parse_args([])
        self.assertEqual((a.sockets, a.scenario, a.heartbeat), (10000, "mixed", 0))
        with mock.patch("sys.stderr"):
            for bad in (["--sockets", "0"], ["--scenario", "token_refresh"], ["--heartbeat", "-1"]):
                with self.assertRaises(SystemExit, msg=bad):
                    sockets.parse_args(bad)


if __name__ == "__main__":
    unittest.main()
