//! SPEC §7 "Metrics": `serve --metrics-listen` scraped and read with a Prometheus
//! text-format parser (prometheus-parse). Every metric the SPEC lists is there, route
//! labels are templates (200 ids make one series), and the listener is not the
//! public one.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use openmetrics_parser::{MetricNumber, PrometheusValue};
use reqwest::StatusCode;

use crate::Env;
use crate::logs::{Logged, browser, import_users};

/// One series as read from the page.
#[derive(Debug)]
struct Sample {
    metric: String,
    labels: HashMap<String, String>,
    value: Value,
}

#[derive(Debug)]
enum Value {
    Number(f64),
    /// `(upper bound, cumulative count)`, in order.
    Histogram(Vec<(f64, f64)>),
}

fn number(n: &MetricNumber) -> f64 {
    n.as_f64()
}

/// Scrapes `/metrics` and parses it as the Prometheus text format (the whole page
/// must parse).
async fn scrape(addr: &str) -> Vec<Sample> {
    let r = reqwest::get(format!("http://{addr}/metrics")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "text/plain; version=0.0.4; charset=utf-8");
    let text = r.text().await.unwrap();
    let page = openmetrics_parser::prometheus::parse_prometheus(&text)
        .unwrap_or_else(|e| panic!("not the Prometheus text format: {e:?}\n{text}"));
    let mut out = Vec::new();
    for family in page.families.values() {
        for s in family.iter_samples() {
            let labels =
                s.get_labelset().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let value = match &s.value {
                PrometheusValue::Counter(c) => Value::Number(number(&c.value)),
                PrometheusValue::Gauge(n) | PrometheusValue::Unknown(n) => Value::Number(number(n)),
                PrometheusValue::Histogram(h) => Value::Histogram(
                    h.buckets.iter().map(|b| (b.upper_bound, number(&b.count))).collect(),
                ),
                PrometheusValue::Summary(_) => panic!("{} is a summary", family.family_name),
            };
            out.push(Sample { metric: family.family_name.clone(), labels, value });
        }
    }
    out
}

fn series<'a>(all: &'a [Sample], name: &str) -> Vec<&'a Sample> {
    all.iter().filter(|s| s.metric == name).collect()
}

/// The value of the one series of `name` whose labels include `labels` (a
/// histogram's: its count).
fn value(all: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    let found: Vec<&Sample> = series(all, name)
        .into_iter()
        .filter(|s| labels.iter().all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v)))
        .collect();
    assert_eq!(found.len(), 1, "{name} {labels:?}: {found:?}");
    match &found[0].value {
        Value::Number(v) => *v,
        Value::Histogram(b) => b.last().unwrap().1,
    }
}

#[tokio::test]
async fn every_metric_of_the_spec_with_route_templates_as_labels() {
    let e = Env::new();
    e.init();
    import_users(&e, &[(1, "alice", "alice-pw-1"), (2, "bob", "bob-pw-1")]);
    let app = e.json(&["app", "create", "--name", "pw", "--grant", "password", "--json"]);
    let client = app["client_id"].as_str().unwrap().to_owned();
    let s = Logged::start(&e, &["--metrics-listen", "127.0.0.1:0", "--trusted-proxy", "127.0.0.1"]);
    let metrics = s.metrics.clone().unwrap();
    assert_ne!(metrics, s.addr);
    let c = browser();
    let base = s.url();

    // 200 different ids, with query strings: one route series
    for id in 1..=200 {
        let r = c.get(format!("{base}/api/v2/course/{id}/?q={id}")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    // paths no endpoint matches and made-up methods: one label each, whatever was sent
    for id in 1..=20 {
        c.get(format!("{base}/nothing/{id}/")).send().await.unwrap();
        let m = reqwest::Method::from_bytes(format!("X{id}").as_bytes()).unwrap();
        c.request(m, format!("{base}/api/v2/course/")).send().await.unwrap();
    }
    // the password grant: a token, wrong passwords up to the limit, one refused
    let token = format!("{base}/oauth/token/");
    let grant = |user: &'static str, pw: &'static str| {
        let (c, token, client) = (c.clone(), token.clone(), client.clone());
        async move {
            c.post(&token)
                .header("x-forwarded-for", "203.0.113.9")
                .form(&[
                    ("grant_type", "password"),
                    ("client_id", client.as_str()),
                    ("username", user),
                    ("password", pw),
                ])
                .send()
                .await
                .unwrap()
        }
    };
    let r = grant("alice", "alice-pw-1").await;
    assert_eq!(r.status(), StatusCode::OK);
    let body: serde_json::Value = r.json().await.unwrap();
    let refresh = body["refresh_token"].as_str().unwrap().to_owned();
    let r = c
        .post(&token)
        .form(&[
            ("grant_type", "refresh_token"),
            ("client_id", client.as_str()),
            ("refresh_token", refresh.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    for _ in 0..10 {
        assert_eq!(grant("bob", "wrong").await.status(), StatusCode::BAD_REQUEST);
    }
    assert_eq!(grant("bob", "bob-pw-1").await.status(), StatusCode::TOO_MANY_REQUESTS);
    // a keep-alive connection held open while scraping
    let mut held = TcpStream::connect(&s.addr).unwrap();
    write!(held, "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut buf = [0u8; 512];
    let _ = held.read(&mut buf).unwrap();

    let all = scrape(&metrics).await;
    let requests = series(&all, "hearth_http_requests_total");
    let course: Vec<_> = requests
        .iter()
        .filter(|s| s.labels.get("route").map(String::as_str) == Some("/api/v2/course/{id}/"))
        .collect();
    assert_eq!(course.len(), 1, "200 ids, one series: {course:?}");
    assert_eq!(
        value(
            &all,
            "hearth_http_requests_total",
            &[("route", "/api/v2/course/{id}/"), ("method", "GET"), ("status", "404")]
        ),
        200.0
    );
    assert_eq!(
        value(
            &all,
            "hearth_http_request_duration_seconds",
            &[("route", "/api/v2/course/{id}/"), ("method", "GET")]
        ),
        200.0
    );
    assert_eq!(
        value(
            &all,
            "hearth_http_requests_total",
            &[("route", "unmatched"), ("method", "GET"), ("status", "404")]
        ),
        20.0
    );
    assert_eq!(
        value(&all, "hearth_http_requests_total", &[("route", "unmatched"), ("method", "other")]),
        20.0,
        "twenty made-up methods, one label"
    );
    // no label anywhere carries a raw path, an id or a query string
    for s in &all {
        for (k, v) in &s.labels {
            assert!(!v.contains('?'), "{k}={v}");
            if k == "route" {
                assert!(
                    v == "unmatched" || !v.split('/').any(|seg| seg.parse::<i64>().is_ok()),
                    "{v}"
                );
            }
        }
    }
    let routes: std::collections::BTreeSet<&String> =
        requests.iter().filter_map(|s| s.labels.get("route")).collect();
    // one series per template the test called, however many ids and paths it sent
    let expected = ["/api/v2/course/{id}/", "/livez", "/oauth/token/", "unmatched"];
    assert_eq!(routes.iter().map(|r| r.as_str()).collect::<Vec<_>>(), expected, "{routes:?}");

    assert_eq!(value(&all, "hearth_password_checks_total", &[("result", "ok")]), 1.0);
    assert_eq!(value(&all, "hearth_password_checks_total", &[("result", "wrong")]), 10.0);
    assert_eq!(value(&all, "hearth_throttled_total", &[]), 1.0);
    assert_eq!(value(&all, "hearth_tokens_issued_total", &[("grant", "password")]), 1.0);
    assert_eq!(value(&all, "hearth_tokens_issued_total", &[("grant", "refresh_token")]), 1.0);
    assert_eq!(value(&all, "hearth_security_events_total", &[("event", "login_failed")]), 10.0);
    assert!(value(&all, "hearth_db_read_wait_seconds", &[]) >= 200.0);
    assert!(value(&all, "hearth_db_write_wait_seconds", &[]) >= 2.0);
    let size = std::fs::metadata(e.db()).unwrap().len();
    assert!(value(&all, "hearth_db_size_bytes", &[]) >= 4096.0);
    assert!(value(&all, "hearth_db_size_bytes", &[]) <= size as f64 * 2.0);
    assert!(value(&all, "hearth_db_wal_bytes", &[]) > 0.0, "writes went to the WAL");
    assert_eq!(value(&all, "hearth_body_memory_bytes", &[]), 0.0, "no request holds a body");
    assert_eq!(value(&all, "hearth_body_memory_limit_bytes", &[]), 256.0 * 1024.0 * 1024.0);
    assert!(value(&all, "hearth_http_connections_open", &[]) >= 1.0);
    assert_eq!(value(&all, "hearth_log_lines_dropped_total", &[]), 0.0);
    assert!(value(&all, "process_resident_memory_bytes", &[]) > 1e6);
    assert!(value(&all, "process_open_fds", &[]) >= 5.0);
    assert!(value(&all, "process_start_time_seconds", &[]) > 1.7e9);
    assert!(value(&all, "process_cpu_seconds_total", &[]) >= 0.0);
    // histograms have their buckets, in order, ending in +Inf
    for name in [
        "hearth_http_request_duration_seconds",
        "hearth_db_read_wait_seconds",
        "hearth_db_write_wait_seconds",
    ] {
        assert!(!series(&all, name).is_empty(), "{name}");
        for s in series(&all, name) {
            let Value::Histogram(b) = &s.value else { panic!("{name} is not a histogram") };
            assert!(b.len() >= 10 && b.last().unwrap().0.is_infinite(), "{b:?}");
            assert!(b.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1), "{b:?}");
        }
    }

    // Prometheus's own linter (Debian's `prometheus` package; scripts/test installs it)
    let text =
        reqwest::get(format!("http://{metrics}/metrics")).await.unwrap().text().await.unwrap();
    if crate::run::needs_for(
        Some("the promtool step"),
        "promtool",
        crate::run::on_path("promtool"),
        PROMTOOL_FIX,
    ) {
        assert_eq!(promtool_check(&text), "", "promtool check metrics");
    }

    // the connection closes: the gauge comes down
    let before = value(&all, "hearth_http_connections_open", &[]);
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = value(&scrape(&metrics).await, "hearth_http_connections_open", &[]);
        if now < before {
            break;
        }
        assert!(Instant::now() < deadline, "still {now} open connections");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // /metrics is not on the public listener, and the metrics listener serves nothing else
    let r = c.get(format!("{base}/metrics")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = reqwest::get(format!("http://{metrics}/api/v2/course/")).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = c.post(format!("http://{metrics}/metrics")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
    s.stop();
}

#[test]
fn metrics_listen_refuses_the_public_address_and_bad_values() {
    let e = Env::new();
    e.init();
    let line =
        e.fails(&["serve", "--listen", "127.0.0.1:18931", "--metrics-listen", "127.0.0.1:18931"]);
    assert!(line.contains("--metrics-listen") && line.contains("public"), "{line}");
    let line =
        e.fails(&["serve", "--listen", "0.0.0.0:18932", "--metrics-listen", "127.0.0.1:18932"]);
    assert!(line.contains("public"), "{line}");
    let line = e.fails(&["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "nowhere"]);
    assert!(line.contains("--metrics-listen"), "{line}");
    let line = e.fails(&["serve", "--listen", "127.0.0.1:0", "--log-format", "xml"]);
    assert!(line.contains("xml"), "{line}");
}

async fn releases(metrics: &str) -> f64 {
    value(&scrape(metrics).await, "hearth_memory_releases_total", &[])
}

async fn wait_for_releases(metrics: &str, want: f64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = releases(metrics).await;
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "releases {got}, want {want}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Issue 17: once a load is over, `serve` empties its caches and gives memory back,
/// once per quiet spell, and never while idle from the start or while requests come.
#[tokio::test]
async fn memory_is_given_back_once_per_quiet_spell_after_a_load() {
    let e = Env::new();
    e.init();
    let s =
        Logged::start(&e, &["--metrics-listen", "127.0.0.1:0", "--release-memory-after", "300ms"]);
    let metrics = s.metrics.clone().unwrap();
    // idle from the start (scrapes of the metrics listener are not requests)
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(releases(&metrics).await, 0.0);
    let c = browser();
    let load = || async {
        for _ in 0..3 {
            for path in ["/livez", "/healthz", "/api/v2/user/1/", "/api/v2/course/"] {
                c.get(format!("{}{path}", s.url())).send().await.unwrap();
            }
            // requests 100 ms apart keep one spell going: no release in between
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    load().await;
    wait_for_releases(&metrics, 1.0).await;
    // quiet: still one
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(releases(&metrics).await, 1.0);
    // the server reads as before (closed readers reopen), and the next spell counts
    let r = c.get(format!("{}/healthz", s.url())).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    load().await;
    wait_for_releases(&metrics, 2.0).await;
    s.stop();
}

/// The one-line fix when promtool is missing.
const PROMTOOL_FIX: &str = "apt-get install prometheus";

/// What `promtool check metrics` says of a page (empty when it is clean). Its caller
/// checks first that promtool is here (`crate::run::needs_for`: scripts/test fails
/// without it, a plain `cargo test` skips the step with a SKIPPED line).
fn promtool_check(page: &str) -> String {
    use std::process::{Command, Stdio};
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("promtool does not run ({e}); fix: {PROMTOOL_FIX}"));
    child.stdin.take().unwrap().write_all(page.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    said.trim().to_owned()
}
