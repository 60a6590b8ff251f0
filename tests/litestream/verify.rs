//! `hearth verify-replica` (SPEC §9, issue 28): the restore drill against the real
//! Litestream, passing on a sound replica and failing, with one line saying why, on a
//! replica that is behind, one that cannot be restored, and one whose copy fails
//! `hearth check`; the textfile-collector file follows each run.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use crate::fixture::{Site, create};
use crate::{config, fresh_db, signal};

/// `hearth --db DB verify-replica ARGS --litestream-bin LITESTREAM`.
fn verify(db: &Path, args: &[&str]) -> Output {
    std::process::Command::new(crate::hearth())
        .arg("--db")
        .arg(db)
        .arg("verify-replica")
        .args(args)
        .arg("--litestream-bin")
        .arg(crate::litestream())
        .env_remove("HEARTH_DB")
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The value of a gauge in a textfile-collector file.
fn gauge(file: &Path, name: &str) -> f64 {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in:\n{text}"))
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_replica_passes_on_a_sound_replica_and_says_why_it_fails() {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let site = Site::new();
    let (d, db, token) = (site.d(), &site.db, &site.token);
    let cfg_s = site.cfg.to_str().unwrap();
    let prom = d.join("verify.prom");
    let prom_s = prom.to_str().unwrap();
    // no lag limit: writes go on while Litestream is stopped below, as they would with
    // a Litestream that copies the WAL but cannot upload it
    let mut server = site.under("--replication-lag-limit 0", "primary");
    let url = server.url();
    let c = reqwest::Client::new();
    site.first_snapshot(&server).await;
    for i in 0..20 {
        create(&c, &url, token, &format!("c{i}")).await;
    }

    // sound: restored, checked, not behind what the live file had 1 s before
    let out =
        verify(db, &["--config", cfg_s, "--max-behind", "1s", "--json", "--metrics-file", prom_s]);
    assert!(out.status.success(), "{}\n{}", stderr(&out), server.log());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert!(report["replica_position"].as_i64().unwrap() >= 20, "{report}");
    assert_eq!(report["problems"], serde_json::json!([]));
    assert_eq!(gauge(&prom, "hearth_verify_replica_ok"), 1.0);
    let success = gauge(&prom, "hearth_verify_replica_last_success_timestamp_seconds");
    assert!(success > 1.7e9, "{success}");
    let text = verify(db, &["--config", cfg_s, "--max-behind", "200ms"]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(String::from_utf8_lossy(&text.stdout).starts_with("ok: replica restored"));

    // Litestream stopped while writes go on: the replica is behind
    let litestream = server.child.id();
    signal("-STOP", &litestream.to_string());
    for i in 0..10 {
        create(&c, &url, token, &format!("unreplicated{i}")).await;
    }
    let out = verify(db, &["--config", cfg_s, "--max-behind", "300ms", "--metrics-file", prom_s]);
    signal("-CONT", &litestream.to_string());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: the replica is behind"), "{err}");
    assert_eq!(gauge(&prom, "hearth_verify_replica_ok"), 0.0);
    assert_eq!(gauge(&prom, "hearth_verify_replica_last_success_timestamp_seconds"), success);
    assert!(gauge(&prom, "hearth_verify_replica_behind_positions") >= 10.0);

    // no replica there: the restore fails
    let none = format!("file://{}", d.join("no-replica").display());
    let out = verify(db, &["--replica", &none, "--max-behind", "0", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: restore failed: litestream exit status: 1"),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert!(report["reason"].as_str().unwrap().contains("no matching backup files"), "{report}");
    server.kill9();

    // a replica of a file that fails hearth check: so does the restored copy
    let bad = d.join("bad");
    std::fs::create_dir(&bad).unwrap();
    let bad_db = bad.join("hearth.db");
    fresh_db(&bad_db);
    rusqlite::Connection::open(&bad_db)
        .unwrap()
        .execute("UPDATE user SET followers_counter = 7 WHERE id = 1", [])
        .unwrap();
    let bad_cfg = config(&bad, &bad_db, &bad.join("replica"));
    let once = std::process::Command::new(crate::litestream())
        .args(["replicate", "-once", "-config"])
        .arg(&bad_cfg)
        .output()
        .unwrap();
    assert!(once.status.success(), "{}", String::from_utf8_lossy(&once.stderr));
    let out = verify(&bad_db, &["--config", bad_cfg.to_str().unwrap(), "--max-behind", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("error: the restored copy fails hearth check: 1 problem,"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("followers_counter"));
    // and nothing is left in the temporary directory it used
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = verify(
        &bad_db,
        &[
            "--config",
            bad_cfg.to_str().unwrap(),
            "--max-behind",
            "0",
            "--tmp-dir",
            tmp.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "the restore is removed");
}

/// packaging/litestream.yml, its paths pointed at a temporary directory, is one this
/// Litestream accepts, and it takes a full snapshot hourly (a damaged incremental
/// chain lasts at most that long; docs/operations.md, "Verifying the replica").
#[test]
fn the_packaged_litestream_config_is_accepted_and_snapshots_hourly() {
    if !crate::present() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("packaging/litestream.yml")).unwrap();
    assert!(text.contains("\nsnapshot:\n  interval: 1h\n"), "{text}");
    // the control socket the packaged unit names for the replication bound
    let socket = "/var/lib/hearth/litestream.sock";
    assert!(text.contains(&format!("\nsocket:\n  enabled: true\n  path: {socket}\n")), "{text}");
    let unit = std::fs::read_to_string(root.join("packaging/hearth-litestream.service")).unwrap();
    assert!(unit.contains(&format!("HEARTH_LITESTREAM_REPLICA=socket:{socket}\n")), "{unit}");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hearth.db");
    fresh_db(&db);
    let cfg = dir.path().join("litestream.yml");
    std::fs::write(
        &cfg,
        text.replace("/var/lib/hearth/hearth.db", db.to_str().unwrap())
            .replace("/var/backups/hearth/litestream", dir.path().join("replica").to_str().unwrap())
            .replace(socket, dir.path().join("litestream.sock").to_str().unwrap()),
    )
    .unwrap();
    let once = std::process::Command::new(crate::litestream())
        .args(["replicate", "-once", "-config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(once.status.success(), "{}", String::from_utf8_lossy(&once.stderr));
    let out = verify(&db, &["--config", cfg.to_str().unwrap(), "--max-behind", "0"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// The replica's disk full, then freed: Litestream retries the uploads that failed and
/// the replica catches up with no restart — the drill fails while it is full and
/// passes again once it has caught up, and a restore then holds every write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_whose_disk_was_full_catches_up_once_freed() {
    let Some(_serial) = crate::fixture::begin().await else {
        return;
    };
    let site = Site::new();
    let (db, replica, token) = (&site.db, &site.replica, &site.token);
    let _tmpfs = crate::trials::Tmpfs::mount(replica, "4m");
    let cfg_s = site.cfg.to_str().unwrap();
    let mut server = site.under("", "primary");
    let url = server.url();
    let c = reqwest::Client::new();
    site.first_snapshot(&server).await;
    for i in 0..20 {
        create(&c, &url, token, &format!("before{i}")).await;
    }
    crate::trials::fill(replica, 0);
    // acknowledged: they come within the bound (5 s, the default), which is what
    // hearth allows a replica to lag
    for i in 0..40 {
        create(&c, &url, token, &format!("while-full{i}")).await;
    }
    let out = verify(db, &["--config", cfg_s, "--max-behind", "300ms"]);
    assert!(stderr(&out).starts_with("error: the replica is behind"), "{}", stderr(&out));
    std::fs::remove_file(replica.join("filler")).unwrap();
    let freed = Instant::now();
    loop {
        let out = verify(db, &["--config", cfg_s, "--max-behind", "200ms"]);
        if out.status.success() {
            break;
        }
        assert!(
            freed.elapsed() < Duration::from_secs(30),
            "the replica did not catch up: {}\n{}",
            stderr(&out),
            server.log()
        );
    }
    let caught_up = freed.elapsed();
    assert!(server.log().contains("no space left on device"), "{}", server.log());
    server.kill9();
    let restored = crate::restore(site.d(), "after the disk was freed");
    let n: i64 = rusqlite::Connection::open(&restored)
        .unwrap()
        .query_row("SELECT count(*) FROM course", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 60, "every write, also those acknowledged while the disk was full");
    eprintln!("replica disk freed: the drill passed again {} ms later", caught_up.as_millis());
}
