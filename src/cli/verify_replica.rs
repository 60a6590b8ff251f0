//! `hearth verify-replica`: a restore drill (SPEC §9, issue 28).
//!
//! Litestream's replica is only as good as a restore from it. This restores the latest
//! state of the replica of `--db` with the `litestream` binary into a private temporary
//! directory, runs `hearth check`'s checks on the copy ([`super::maint::problems`]),
//! and compares the copy's replication position ([`crate::db::position`]) with the
//! live file's:
//! - the live file's position is read, then the command waits `--max-behind`, then it
//!   restores: every write committed before that first read (so at least `--max-behind`
//!   before the restore began) must be in the copy, else the replica is behind;
//! - the copy may not be ahead of the live file read after the restore (that would be
//!   another history: a primary restored from a backup beside its old replica);
//! - optionally, at most `--max-behind-positions` write transactions behind.
//!
//! It exits non-zero with a one-line reason (restore failed, check problems, behind,
//! ahead), prints a short report (or `--json`), and with `--metrics-file` writes the
//! result for the node exporter's textfile collector ([`metrics_text`]), atomically.
//! The live file is only ever opened read-only: a command beside Litestream never
//! checkpoints.

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use clap::Args;

use super::{CliError, CliResult, print_json};
use crate::clock::{Clock, SECOND};
use crate::db::check::Problem;
use crate::db::{check, migrate, position};

/// Litestream's own default configuration file.
pub const DEFAULT_CONFIG: &str = "/etc/litestream.yml";

/// Options of `verify-replica`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Litestream's configuration, where the replica of --db is found (default
    /// /etc/litestream.yml).
    #[arg(long, value_name = "PATH", conflicts_with = "replica")]
    pub config: Option<PathBuf>,
    /// Restore from this replica URL instead (`s3://bucket/hearth`,
    /// `file:///mnt/replica`).
    #[arg(long, value_name = "URL")]
    pub replica: Option<String>,
    /// The litestream binary.
    #[arg(long, value_name = "PATH", default_value = "litestream")]
    pub litestream_bin: PathBuf,
    /// Every write committed this long before the restore began must be in it: the
    /// live file's position is read, the command waits this long, then restores
    /// (`10s`, `500ms`, or seconds).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::replica::parse_duration)]
    pub max_behind: Duration,
    /// Also fail when the restored copy is more than N write transactions behind the
    /// live file as it was after the restore.
    #[arg(long, value_name = "N")]
    pub max_behind_positions: Option<u64>,
    /// Where to restore (a private directory is made in it and removed after; it needs
    /// room for a copy of the database). Default: the system's temporary directory.
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
    /// How long the restore may take before it is stopped and counted as failed.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::replica::parse_duration)]
    pub restore_timeout: Duration,
    /// Machine-readable output: one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Write the result in Prometheus text format to this file (for the node
    /// exporter's textfile collector), replacing it atomically.
    #[arg(long, value_name = "PATH")]
    pub metrics_file: Option<PathBuf>,
}

/// What one drill found.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Report {
    /// Whether every check passed.
    pub ok: bool,
    /// The one-line reason when not.
    pub reason: Option<String>,
    /// How long the restore took.
    pub restore_seconds: Option<f64>,
    /// The size of the restored file.
    pub restored_bytes: Option<u64>,
    /// The restored copy's schema version.
    pub schema_version: Option<i64>,
    /// What `hearth check` found wrong in the copy.
    pub problems: Vec<Problem>,
    /// The copy's replication position.
    pub replica_position: Option<i64>,
    /// The live file's position `max_behind_seconds` before the restore began.
    pub live_position_before: Option<i64>,
    /// The live file's position after the restore.
    pub live_position_after: Option<i64>,
    /// `live_position_after - replica_position`.
    pub behind_positions: Option<i64>,
    /// `--max-behind`.
    pub max_behind_seconds: f64,
}

impl Report {
    fn fail(mut self, reason: String) -> Report {
        self.ok = false;
        self.reason = Some(reason);
        self
    }
}

/// Runs `hearth verify-replica`.
pub fn run(db: &Path, args: &VerifyArgs, clock: &Clock) -> CliResult {
    let report = drill(db, args);
    if let Some(file) = &args.metrics_file {
        let previous = fs::read_to_string(file).ok().and_then(|t| last_success(&t));
        let text = metrics_text(&report, clock.now() as f64 / SECOND as f64, previous);
        write_atomically(file, &text).map_err(|e| {
            CliError(format!("cannot write the metrics file {}: {e}", file.display()))
        })?;
    }
    if args.json {
        print_json(&serde_json::to_value(&report).map_err(|e| CliError(e.to_string()))?);
    } else if report.ok {
        println!(
            "ok: replica restored in {:.1} s ({} bytes), hearth check passed, position {} (the live file: {} {:.1} s before the restore, {} after)",
            report.restore_seconds.unwrap_or_default(),
            report.restored_bytes.unwrap_or_default(),
            report.replica_position.unwrap_or_default(),
            report.live_position_before.unwrap_or_default(),
            report.max_behind_seconds,
            report.live_position_after.unwrap_or_default()
        );
    } else {
        for p in &report.problems {
            println!("problem: {}", p.problem);
        }
    }
    match report.reason {
        Some(reason) if !report.ok => Err(CliError(reason)),
        _ => Ok(()),
    }
}

/// The drill itself: every failure ends up as the report's reason.
fn drill(db: &Path, args: &VerifyArgs) -> Report {
    let report =
        Report { ok: true, max_behind_seconds: args.max_behind.as_secs_f64(), ..Report::default() };
    let live = match fs::canonicalize(db) {
        Ok(p) => p,
        Err(e) => return report.fail(format!("no live database at {}: {e}", db.display())),
    };
    let before = match position::of_file(&live) {
        Ok(p) => p,
        Err(e) => return report.fail(format!("cannot read the live database: {e}")),
    };
    let mut report = Report { live_position_before: Some(before), ..report };
    // everything committed before `before` was read must be in the replica by now
    std::thread::sleep(args.max_behind);
    let base = args.tmp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let work = match TempDir::new(&base) {
        Ok(w) => w,
        Err(e) => {
            return report
                .fail(format!("cannot make a temporary directory in {}: {e}", base.display()));
        }
    };
    let restored = work.0.join("restored.db");
    let started = crate::clock::instant();
    if let Err(why) = restore(args, &live, &restored, &work.0.join("litestream.log")) {
        return report.fail(format!("restore failed: {why}"));
    }
    report.restore_seconds = Some(started.elapsed().as_secs_f64());
    report.restored_bytes = fs::metadata(&restored).ok().map(|m| m.len());
    let (conn, version) = match check::open_copy(&restored) {
        Ok(c) => c,
        Err(e) => return report.fail(format!("the restored copy cannot be checked: {e}")),
    };
    report.schema_version = Some(version);
    if version != migrate::VERSION {
        return report.fail(format!(
            "the restored copy has schema version {version}, this hearth {}: run verify-replica with the primary's hearth version",
            migrate::VERSION
        ));
    }
    match super::maint::problems(&conn) {
        Ok(p) => report.problems = p,
        Err(e) => return report.fail(format!("hearth check could not run on the copy: {e}")),
    }
    if let Some(first) = report.problems.first() {
        let reason = format!(
            "the restored copy fails hearth check: {}, first: {} (if the live file passes `hearth check`, the replica's chain is damaged: force a snapshot, docs/operations.md)",
            super::plural(
                u64::try_from(report.problems.len()).unwrap_or(u64::MAX),
                "problem",
                "problems"
            ),
            first.problem
        );
        return report.fail(reason);
    }
    let replica = match position::get(&conn) {
        Ok(p) => p,
        Err(e) => return report.fail(format!("cannot read the copy's position: {e}")),
    };
    report.replica_position = Some(replica);
    let after = match position::of_file(&live) {
        Ok(p) => p,
        Err(e) => return report.fail(format!("cannot read the live database: {e}")),
    };
    report.live_position_after = Some(after);
    report.behind_positions = Some(after - replica);
    match judge(before, replica, after, args.max_behind, args.max_behind_positions) {
        Some(reason) => report.fail(reason),
        None => report,
    }
}

/// The verdict on positions: the copy at `replica`, the live file at `before` (read
/// `max_behind` before the restore began) and at `after` (after it). `None`: in bounds.
pub fn judge(
    before: i64,
    replica: i64,
    after: i64,
    max_behind: Duration,
    max_positions: Option<u64>,
) -> Option<String> {
    if replica > after {
        return Some(format!(
            "the replica is ahead of the live file (position {replica} > {after}): it holds another history (a primary restored from a backup beside its old replica?)"
        ));
    }
    if replica < before {
        return Some(format!(
            "the replica is behind: it lacks writes committed more than {:.1} s before the restore began (replica at position {replica}, the live file was at {before} then, {after} now)",
            max_behind.as_secs_f64()
        ));
    }
    let behind = u64::try_from(after - replica).unwrap_or_default();
    match max_positions {
        Some(n) if behind > n => Some(format!(
            "the replica is {behind} write transactions behind the live file (more than --max-behind-positions {n})"
        )),
        _ => None,
    }
}

/// `litestream restore -o OUT (-config CFG LIVE | URL)`, its output to `log`, within
/// `--restore-timeout`. `Err`: the last line Litestream wrote, or why it did not run.
fn restore(args: &VerifyArgs, live: &Path, out: &Path, log: &Path) -> Result<(), String> {
    let mut cmd = Command::new(&args.litestream_bin);
    cmd.arg("restore").arg("-o").arg(out);
    match &args.replica {
        Some(url) => {
            cmd.arg(url);
        }
        None => {
            let cfg = args.config.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG));
            cmd.arg("-config").arg(cfg).arg(live);
        }
    }
    let file = File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", args.litestream_bin.display()))?;
    let deadline = crate::clock::instant() + args.restore_timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if crate::clock::instant() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "litestream restore did not finish within {:.0} s",
                    args.restore_timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for litestream: {e}")),
        }
    };
    let said = fs::read_to_string(log).unwrap_or_default();
    let last: String =
        said.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(300).collect();
    if !status.success() {
        return Err(format!("litestream {status}: {}", last.trim()));
    }
    if !out.is_file() {
        return Err(format!("litestream wrote no file: {}", last.trim()));
    }
    Ok(())
}

/// A private directory (mode 0700), removed with what is in it when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(base: &Path) -> std::io::Result<TempDir> {
        let mut n = 0u32;
        loop {
            let path = base.join(format!("hearth-verify-{}-{n}", std::process::id()));
            match fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(TempDir(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The gauge that says when the drill last passed.
const LAST_SUCCESS: &str = "hearth_verify_replica_last_success_timestamp_seconds";

/// The time of the last success in a metrics file written before, if any.
pub fn last_success(text: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(LAST_SUCCESS)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .filter(|v: &f64| v.is_finite() && *v > 0.0)
}

/// The metrics file for a drill that ended at `now` (Unix seconds): the last success
/// is `now` when it passed, else the one the file held before (0: never).
pub fn metrics_text(report: &Report, now: f64, previous_success: Option<f64>) -> String {
    let success = if report.ok { Some(now) } else { previous_success };
    let mut out = String::new();
    let mut gauge = |name: &str, help: &str, value: f64| {
        out.push_str(&format!(
            "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {}\n",
            fmt_value(value)
        ));
    };
    gauge(
        "hearth_verify_replica_ok",
        "1 when the last hearth verify-replica passed, 0 when it failed.",
        if report.ok { 1.0 } else { 0.0 },
    );
    gauge(
        LAST_SUCCESS,
        "When hearth verify-replica last passed (Unix time; 0: never).",
        success.unwrap_or(0.0),
    );
    gauge(
        "hearth_verify_replica_last_run_timestamp_seconds",
        "When hearth verify-replica last ran (Unix time).",
        now,
    );
    if let Some(s) = report.restore_seconds {
        gauge(
            "hearth_verify_replica_restore_seconds",
            "How long the last restore of the replica took.",
            s,
        );
    }
    if let Some(b) = report.behind_positions {
        gauge(
            "hearth_verify_replica_behind_positions",
            "Write transactions the restored copy lacked, against the live file after the restore.",
            b as f64,
        );
    }
    out
}

/// A value as Prometheus reads it: whole numbers without a fraction.
fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{v:.3}") }
}

/// Writes `text` to a hidden file beside `path`, syncs it and renames it over `path`:
/// a collector reading the file sees the old one or the new one, never a part.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = File::create(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn positions_are_judged_against_the_live_file_before_and_after() {
        let s = Duration::from_secs(10);
        assert_eq!(judge(10, 10, 12, s, None), None, "holds what was there before the wait");
        assert_eq!(judge(10, 12, 12, s, None), None);
        assert!(judge(10, 9, 12, s, None).unwrap().contains("behind"));
        assert!(judge(10, 13, 12, s, None).unwrap().contains("ahead"));
        assert_eq!(judge(10, 10, 12, s, Some(2)), None);
        assert!(judge(10, 10, 13, s, Some(2)).unwrap().contains("3 write transactions"));
    }

    #[test]
    fn the_metrics_file_keeps_the_last_success_through_failures() {
        let ok = Report { ok: true, restore_seconds: Some(0.5), ..Report::default() };
        let text = metrics_text(&ok, 1_800_000_000.0, Some(5.0));
        assert!(text.contains("hearth_verify_replica_ok 1\n"), "{text}");
        assert_eq!(last_success(&text), Some(1_800_000_000.0));
        assert!(text.contains("hearth_verify_replica_restore_seconds 0.500\n"), "{text}");
        let failed = Report::default().fail("restore failed: x".into());
        let later = metrics_text(&failed, 1_800_003_600.0, last_success(&text));
        assert!(later.contains("hearth_verify_replica_ok 0\n"), "{later}");
        assert_eq!(last_success(&later), Some(1_800_000_000.0));
        assert!(metrics_text(&failed, 1.0, None).contains(&format!("{LAST_SUCCESS} 0\n")));
        // every sample has its HELP and TYPE
        assert_eq!(
            later.matches("# TYPE").count(),
            later.lines().filter(|l| !l.starts_with('#')).count()
        );
    }

    #[test]
    fn the_metrics_file_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("v.prom");
        write_atomically(&f, "a 1\n").unwrap();
        write_atomically(&f, "a 2\n").unwrap();
        assert_eq!(fs::read_to_string(&f).unwrap(), "a 2\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }
}
