//! Continuous replication (SPEC §9): crash trials and shutdown time under Litestream.

use std::time::{Duration, Instant};

use crate::fixture::{Site, Writers, create};
use crate::{alive, hearth_ok, signal};

/// One trial: concurrent writers for about `run`, then `kill -9` of Litestream and
/// hearth together; restore and check. Returns (writes acknowledged, how many of them
/// were acknowledged more than 1 s before the kill, restored rows among all acked).
async fn trial(n: usize, run: Duration) -> (usize, usize, usize, Duration) {
    let site = Site::new();
    let mut server = site.under("", "primary");
    let url = server.url();
    site.first_snapshot(&server).await;
    let writers = Writers::start(&url, &site.token, 4, &format!("t{n}-"));
    tokio::time::sleep(run).await;
    // both at once: the process group holds Litestream and the hearth it runs
    let killed_at = Instant::now();
    server.kill9();
    // what Litestream complained about, for a failure's message
    let complaints: String = server
        .log()
        .lines()
        .filter(|l| l.contains("level=ERROR") || l.contains("level=WARN"))
        .take(10)
        .map(|l| format!("\n  {l}"))
        .collect();
    let acked = writers.stop().await.acked;
    let names = site.restored_names(&format!("trial {n}{complaints}"));
    let old: Vec<&(String, Instant)> = acked
        .iter()
        .filter(|(_, at)| killed_at.duration_since(*at) > Duration::from_secs(1))
        .collect();
    let missing: Vec<&String> =
        old.iter().filter(|(n, _)| !names.contains(n)).map(|(n, _)| n).collect();
    if !missing.is_empty() {
        let kept_dir = site.dir.keep();
        panic!(
            "trial {n}: {} of {} writes acknowledged more than 1 s before the kill are lost: {:?} (files kept in {}){complaints}",
            missing.len(),
            old.len(),
            &missing[..missing.len().min(5)],
            kept_dir.display()
        );
    }
    assert!(old.len() > 10, "trial {n}: too few writes to judge ({})", old.len());
    let kept = acked.iter().filter(|(n, _)| names.contains(n)).count();
    // the oldest acknowledged write that was lost: how much a crash costs
    let window = acked
        .iter()
        .filter(|(n, _)| !names.contains(n))
        .map(|(_, at)| killed_at.duration_since(*at))
        .max()
        .unwrap_or_default();
    (acked.len(), old.len(), kept, window)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_trials() {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let trials: usize =
        std::env::var("HEARTH_LITESTREAM_TRIALS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let (mut acked, mut old, mut kept) = (0, 0, 0);
    let mut windows = Vec::new();
    for n in 0..trials {
        // the kill lands at a different moment of Litestream's cycle each time
        let run = Duration::from_millis(1800 + 37 * (n as u64 % 10));
        let (a, o, k, w) = trial(n, run).await;
        windows.push(w.as_secs_f64() * 1000.0);
        acked += a;
        old += o;
        kept += k;
    }
    windows.sort_by(f64::total_cmp);
    // the line scripts/litestream-trials reads for every kind (a trial that lost an
    // older write or failed its check has panicked above)
    crate::trials::Figures {
        trials,
        acked,
        lost: acked - kept,
        oldest_loss: Duration::from_secs_f64(windows.last().copied().unwrap_or_default() / 1000.0),
        ..Default::default()
    }
    .print("steady");
    eprintln!(
        "litestream crash trials: {trials} passed; {acked} writes acknowledged, {old} of them more than 1 s before a kill (all restored), {} of the last second lost; oldest lost write acknowledged before the kill: median {:.0} ms, max {:.0} ms",
        acked - kept,
        crate::percentile(&windows, 50.0),
        windows.last().copied().unwrap_or_default()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_under_litestream_is_fast() {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let site = Site::new();
    let mut server = site.under("", "primary");
    let url = server.url();
    let client = reqwest::Client::new();
    for i in 0..20 {
        create(&client, &url, &site.token, &format!("c{i}")).await;
    }
    // Litestream has taken its read lock on the WAL by now
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = server.child_pid();
    let start = Instant::now();
    signal("-TERM", &pid.to_string());
    while alive(pid) {
        assert!(start.elapsed() < Duration::from_secs(10), "hearth did not stop within 10 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let took = start.elapsed();
    eprintln!("shutdown under litestream: {:.1} ms", took.as_secs_f64() * 1000.0);
    // the checkpoint on close used to wait its whole 5 s busy timeout here
    assert!(took < Duration::from_secs(1), "shutdown took {took:?}:\n{}", server.log());
    let _ = server.child.wait();
    // what the primary wrote is all in the replica
    assert_eq!(site.restored_names("after the shutdown").len(), 20);
    // and hearth's own file works with Litestream's tables in it
    assert!(hearth_ok(&site.db, &["check"], None).contains("ok"));
}
