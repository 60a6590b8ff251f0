//! Read replicas (SPEC §9), for real: a primary under Litestream, a follower
//! (`litestream restore -f`) keeping one local copy, and two `serve --read-replica`
//! on that copy; then a loop between two misconfigured replicas, and the primary
//! stopped.

use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::Value;

use crate::fixture::{Site, until};
use crate::{Proc, hearth, hearth_ok, litestream, percentile, replicate};

/// The tests of this binary start several servers each: one at a time on a small
/// machine, so that timings mean something.
pub static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn replica(
    dir: &std::path::Path,
    copy: &std::path::Path,
    listen: &str,
    primary: &str,
    name: &str,
) -> Proc {
    let mut cmd = Command::new(hearth());
    cmd.arg("--db").arg(copy).args([
        "serve",
        "--listen",
        listen,
        "--read-replica",
        "--primary-url",
        primary,
    ]);
    Proc::start(cmd, &dir.join(format!("{name}.log")))
}

fn role(r: &reqwest::Response) -> String {
    r.headers().get("x-hearth-role").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned()
}

async fn get(c: &Client, url: &str, token: &str, id: &str) -> reqwest::Response {
    c.get(url).bearer_auth(token).header("x-request-id", id).send().await.unwrap()
}

async fn new_course(
    c: &Client,
    base: &str,
    token: &str,
    name: &str,
    id: &str,
) -> reqwest::Response {
    c.post(format!("{base}/api/v2/course/"))
        .bearer_auth(token)
        .header("x-request-id", id)
        .json(&serde_json::json!({"name": name, "description": "d", "type": "self-paced"}))
        .send()
        .await
        .unwrap()
}

/// Requests per second of `GET url` with `token`, 8 at a time for `d`.
async fn rate(c: &Client, url: &str, token: &str, d: Duration) -> f64 {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (c, url, token) = (c.clone(), url.to_owned(), token.to_owned());
        tasks.push(tokio::spawn(async move {
            let mut n = 0u32;
            while start.elapsed() < d {
                let r = c.get(&url).bearer_auth(&token).send().await.unwrap();
                assert_eq!(r.status(), 200);
                let _ = r.bytes().await;
                n += 1;
            }
            n
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    f64::from(total) / start.elapsed().as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn primary_follower_and_two_replicas() {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let site = Site::with_db("primary.db");
    let (d, db, jwt) = (site.d(), site.db.clone(), site.token.clone());
    let (rep, cfg) = (site.replica.clone(), site.cfg.clone());
    let app: Value = serde_json::from_str(&hearth_ok(
        &db,
        &["app", "create", "--name", "Replicated", "--grant", "password", "--json"],
        None,
    ))
    .unwrap();
    let client_id = app["client_id"].as_str().unwrap().to_owned();
    let mut primary = replicate(d, &db, &cfg, "--trust-proxy", "primary");
    let purl = primary.url();
    let c = Client::new();
    // Litestream's first snapshot, then the follower, then the replicas on its copy
    let r = new_course(&c, &purl, &jwt, "first", "setup-1").await;
    assert_eq!(r.status(), 201);
    assert_eq!(role(&r), "primary");
    assert!(r.headers().contains_key("x-hearth-position"));
    until("first snapshot", Duration::from_secs(10), async || rep.join("ltx").exists()).await;
    let copy = d.join("copy.db");
    let _follower = follower(d, &copy, &rep, 0);
    let r1 = replica(d, &copy, "127.0.0.1:0", &purl, "replica1");
    let r2 = replica(d, &copy, "127.0.0.1:0", &purl, "replica2");
    let (u1, u2) = (r1.url(), r2.url());
    for u in [&u1, &u2] {
        until("replica ready", Duration::from_secs(10), async || {
            c.get(format!("{u}/readyz")).send().await.is_ok_and(|r| r.status() == 200)
        })
        .await;
    }

    // reads are served from the copy, with the role header
    let me = get(&c, &format!("{u1}/api/v2/user/me/"), &jwt, "local-read-me").await;
    assert_eq!(me.status(), 200);
    assert_eq!(role(&me), "replica");
    let r = c.get(format!("{u2}/api/v2/nowhere/")).send().await.unwrap();
    assert_eq!((r.status(), role(&r).as_str()), (StatusCode::NOT_FOUND, "replica"));

    // a write through a replica is the primary's, answered as it is, with its position;
    // the same token's next read on that replica sees it at once (read-your-writes)
    let w = new_course(&c, &u1, &jwt, "through-replica", "fwd-write-1").await;
    assert_eq!(w.status(), 201);
    assert_eq!(role(&w), "primary");
    let course: Value = w.json().await.unwrap();
    let id = course["id"].as_i64().unwrap();
    let r = get(&c, &format!("{u1}/api/v2/course/{id}/"), &jwt, "ryw-read").await;
    assert_eq!(r.status(), 200, "read-your-writes");
    // the other replica has it within a second, from its copy
    let seen = until("write visible on the other replica", Duration::from_secs(1), async || {
        get(&c, &format!("{u2}/api/v2/course/{id}/"), &jwt, "local-read-poll").await.status() == 200
    })
    .await;
    eprintln!("a write through replica 1 was on replica 2 after {} ms", seen.as_millis());
    // bad input is the primary's answer too, and nothing changes
    let bad = c
        .post(format!("{u2}/api/v2/course/"))
        .bearer_auth(&jwt)
        .json(&serde_json::json!({"name": ""}))
        .send()
        .await
        .unwrap();
    assert_eq!((bad.status(), role(&bad).as_str()), (StatusCode::BAD_REQUEST, "primary"));

    // OAuth through a replica; the opaque token it issued works on the other replica
    // at once (unknown there yet: asked of the primary, never 401)
    let t = c
        .post(format!("{u2}/oauth/token/"))
        .header("x-request-id", "fwd-oauth")
        .form(&[
            ("grant_type", "password"),
            ("client_id", &client_id),
            ("username", "alice"),
            ("password", "alice-password-1"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!((t.status(), role(&t).as_str()), (StatusCode::OK, "primary"));
    let tok: Value = t.json().await.unwrap();
    let opaque = tok["access_token"].as_str().unwrap().to_owned();
    let r = get(&c, &format!("{u1}/api/v2/user/me/"), &opaque, "fresh-token").await;
    assert_eq!(r.status(), 200, "a token issued a moment ago on the primary");
    // a token nobody knows is 401 wherever it is asked
    let r = get(&c, &format!("{u1}/api/v2/user/me/"), "no-such-token", "bad-token").await;
    assert_eq!(r.status(), 401);

    // lag: writes on the primary, each polled on replica 1 until it is there
    // HEARTH_LITESTREAM_MEASURE=1: the numbers of docs/operations.md (1000 writes,
    // longer throughput runs); by default a short run that checks the same things
    let measure = std::env::var_os("HEARTH_LITESTREAM_MEASURE").is_some();
    let mut lags = Vec::new();
    for i in 0..if measure { 1000 } else { 40 } {
        let w = new_course(&c, &purl, &jwt, &format!("lag-{i}"), "direct-write").await;
        let at = Instant::now();
        let id = w.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
        let url = format!("{u1}/api/v2/course/{id}/");
        until("write visible on a replica", Duration::from_secs(1), async || {
            get(&c, &url, &jwt, "local-read-lag").await.status() == 200
        })
        .await;
        lags.push(at.elapsed().as_secs_f64() * 1000.0);
    }
    lags.sort_by(f64::total_cmp);
    eprintln!(
        "replication lag (write acknowledged on the primary -> readable on a replica), {} writes: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        lags.len(),
        percentile(&lags, 50.0),
        percentile(&lags, 99.0),
        lags[lags.len() - 1]
    );

    // a JWT revoked on the primary is refused by a replica within the lag
    let jwt2 = hearth_ok(&db, &["jwt", "mint", "--user-id", "1"], None).trim().to_owned();
    assert_eq!(get(&c, &format!("{u2}/api/v2/user/me/"), &jwt2, "jwt2").await.status(), 200);
    let rv = c
        .post(format!("{purl}/oauth/revoke_token/"))
        .form(&[("token", jwt2.as_str()), ("client_id", &client_id)])
        .send()
        .await
        .unwrap();
    assert_eq!(rv.status(), 200);
    let refused =
        until("revocation reaches the replica", Duration::from_millis(1500), async || {
            get(&c, &format!("{u2}/api/v2/user/me/"), &jwt2, "revoked").await.status() == 401
        })
        .await;
    eprintln!(
        "a JWT revoked on the primary was refused by a replica after {} ms",
        refused.as_millis()
    );

    // reads were served by the replicas: the primary's log has none of them
    let plog = primary.log();
    for local in ["local-read-", "revoked"] {
        assert!(!plog.contains(&format!("id=\"{local}")), "the primary served {local}");
    }
    for fwd in ["fwd-write-1", "fwd-oauth", "fresh-token"] {
        assert!(plog.contains(&format!("id=\"{fwd}\"")), "the primary did not serve {fwd}");
    }

    // throughput of reads: the replica serves them from its copy, like the primary
    let (short, rounds) =
        if measure { (Duration::from_secs(2), 3) } else { (Duration::from_millis(300), 1) };
    let (mut me_p, mut me_r, mut course_p, mut course_r) = (0.0, 0.0, 0.0, 0.0);
    for _ in 0..rounds {
        // alternating, so that neither side always runs on a warmer machine
        me_p += rate(&c, &format!("{purl}/api/v2/user/me/"), &jwt, short).await / f64::from(rounds);
        me_r += rate(&c, &format!("{u1}/api/v2/user/me/"), &jwt, short).await / f64::from(rounds);
        course_r +=
            rate(&c, &format!("{u1}/api/v2/course/{id}/"), &jwt, short).await / f64::from(rounds);
        course_p +=
            rate(&c, &format!("{purl}/api/v2/course/{id}/"), &jwt, short).await / f64::from(rounds);
    }
    let mut direct = Vec::new();
    let mut forwarded = Vec::new();
    for i in 0..if measure { 200 } else { 20 } {
        // alternating, as above; each a course created, timed in milliseconds
        for (base, name, times) in
            [(&purl, format!("d{i}"), &mut direct), (&u2, format!("f{i}"), &mut forwarded)]
        {
            let s = Instant::now();
            assert_eq!(new_course(&c, base, &jwt, &name, "w").await.status(), 201, "{base}");
            times.push(s.elapsed().as_secs_f64() * 1000.0);
        }
    }
    direct.sort_by(f64::total_cmp);
    forwarded.sort_by(f64::total_cmp);
    eprintln!(
        "debug build, 8 clients: me_jwt {me_p:.0} req/s primary, {me_r:.0} replica; course_get {course_p:.0} primary, {course_r:.0} replica; course create p50 {:.1} ms direct, {:.1} ms through a replica",
        percentile(&direct, 50.0),
        percentile(&forwarded, 50.0)
    );

    // two replicas that each take the other for the primary: an error at once
    let free = || std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let (a, b) = (free(), free());
    let ra = replica(d, &copy, &a.to_string(), &format!("http://{b}"), "loop-a");
    let rb = replica(d, &copy, &b.to_string(), &format!("http://{a}"), "loop-b");
    let (ua, _ub) = (ra.url(), rb.url());
    let start = Instant::now();
    let r = new_course(&c, &ua, &jwt, "looping", "loop").await;
    assert_eq!(r.status(), StatusCode::LOOP_DETECTED);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["errors"][0]["code"], "loop_detected");
    assert!(start.elapsed() < Duration::from_secs(2), "a loop ends at once");
    drop((ra, rb));

    // the primary stops: replicas keep serving reads, answer writes 503, /readyz 503
    primary.kill9();
    let r = get(&c, &format!("{u1}/api/v2/course/{id}/"), &jwt, "after-stop").await;
    assert_eq!(r.status(), 200);
    let w = new_course(&c, &u2, &jwt, "no-primary", "no-primary").await;
    assert_eq!(w.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(w.headers().contains_key("retry-after"));
    assert_eq!(role(&w), "replica");
    let body: Value = w.json().await.unwrap();
    assert_eq!(body["errors"][0]["code"], "service_unavailable");
    for u in [&u1, &u2] {
        until("/readyz 503 without the primary", Duration::from_secs(3), async || {
            c.get(format!("{u}/readyz")).send().await.is_ok_and(|r| r.status() == 503)
        })
        .await;
    }
    assert_eq!(
        get(&c, &format!("{u2}/api/v2/user/me/"), &jwt, "after-stop").await.status(),
        200,
        "reads go on"
    );
    drop((r1, r2));
}

/// A follower restarted as its unit does: the old copy deleted, a fresh restore.
fn follower(d: &std::path::Path, copy: &std::path::Path, rep: &std::path::Path, n: u32) -> Proc {
    let _ = std::fs::remove_file(copy);
    let _ = std::fs::remove_file(copy.with_extension("db-txid"));
    let mut follow = Command::new(litestream());
    follow
        .args(["restore", "-f", "-follow-interval", "100ms", "-o"])
        .arg(copy)
        .arg(format!("file://{}", rep.display()));
    Proc::start(follow, &d.join(format!("follower-{n}.log")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_killed_under_writes_never_makes_a_replica_answer_500_or_stale_data() {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let site = Site::with_db("primary.db");
    let (d, db, jwt) = (site.d(), site.db.clone(), site.token.clone());
    let (rep, cfg) = (site.replica.clone(), site.cfg.clone());
    let primary = replicate(d, &db, &cfg, "", "primary");
    let purl = primary.url();
    let c = Client::new();
    assert_eq!(new_course(&c, &purl, &jwt, "first", "setup").await.status(), 201);
    until("first snapshot", Duration::from_secs(10), async || rep.join("ltx").exists()).await;
    let copy = d.join("copy.db");
    let mut follow = follower(d, &copy, &rep, 0);
    let r = replica(d, &copy, "127.0.0.1:0", &purl, "replica");
    let u = r.url();

    // the primary writes; a reader on the replica asks for courses the primary
    // acknowledged, and remembers which ones it has seen
    let created: std::sync::Arc<std::sync::Mutex<Vec<i64>>> = std::sync::Arc::default();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (c, purl, jwt, created, stop) =
            (c.clone(), purl.clone(), jwt.clone(), created.clone(), stop.clone());
        tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::Acquire) {
                i += 1;
                let w = new_course(&c, &purl, &jwt, &format!("c{i}"), "w").await;
                if w.status() == 201 {
                    let id = w.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
                    created.lock().unwrap().push(id);
                }
            }
        })
    };
    let reader = {
        let (c, u, jwt, created, stop) =
            (c.clone(), u.clone(), jwt.clone(), created.clone(), stop.clone());
        tokio::spawn(async move {
            let mut seen = std::collections::HashSet::new();
            let (mut served, mut unavailable) = (0u32, 0u32);
            let mut k = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Acquire) {
                k += 1;
                let id = {
                    let ids = created.lock().unwrap();
                    if ids.is_empty() {
                        None
                    } else {
                        // the newest half: what a lagging or older copy lacks
                        Some(ids[ids.len() / 2 + k % (ids.len() - ids.len() / 2)])
                    }
                };
                let Some(id) = id else {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let r = get(&c, &format!("{u}/api/v2/course/{id}/"), &jwt, "read").await;
                match r.status().as_u16() {
                    200 => {
                        seen.insert(id);
                        served += 1;
                    }
                    404 => {
                        assert!(!seen.contains(&id), "course {id} was served, then 404: stale data")
                    }
                    503 => {
                        let b: Value = r.json().await.unwrap();
                        assert_eq!(b["errors"][0]["code"], "service_unavailable", "{b}");
                        unavailable += 1;
                    }
                    s => panic!("a replica read answered {s}"),
                }
            }
            (served, unavailable)
        })
    };

    // the follower killed three times at different moments of its cycle, and
    // restarted as its unit does (the copy deleted first)
    for n in 1..=3u32 {
        tokio::time::sleep(Duration::from_millis(400 + 170 * u64::from(n))).await;
        follow.kill9();
        // the replica reads what it has: the copy as the follower left it
        tokio::time::sleep(Duration::from_millis(200)).await;
        follow = follower(d, &copy, &rep, n);
        until("the replica serves the new copy", Duration::from_secs(15), async || {
            c.get(format!("{u}/api/v2/user/me/"))
                .bearer_auth(&jwt)
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
        })
        .await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, std::sync::atomic::Ordering::Release);
    writer.await.unwrap();
    let (served, unavailable) = reader.await.unwrap();
    assert!(served > 20, "reads were served ({served})");
    until("replica ready at the end", Duration::from_secs(10), async || {
        c.get(format!("{u}/readyz")).send().await.is_ok_and(|r| r.status() == 200)
    })
    .await;
    let log = r.log();
    assert!(!log.contains("status=500"), "no 500 from the replica:\n{log}");
    eprintln!(
        "follower killed 3 times under writes: {served} reads served, {unavailable} answered 503, none 500 or stale"
    );
    drop((r, follow, primary));
}
