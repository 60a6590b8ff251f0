//! `hearth import FILE`: stream an NDJSON export into the database in batched
//! transactions. A bad line stops the import with its line number; the batch it was in
//! is rolled back, so the database is as it was before that batch.

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::Path;
use std::time::Instant;

use super::{CliError, CliResult};
use crate::clock::Clock;
use crate::db::Db;
use crate::db::import::Importer;
use crate::model::import;

/// Lines per transaction: large enough that commits cost nothing, small enough that a
/// bad line loses little work.
pub const BATCH_LINES: u64 = 100_000;

struct Failure {
    line: u64,
    reason: String,
}

impl From<crate::db::DbError> for Failure {
    fn from(e: crate::db::DbError) -> Self {
        Failure {
            line: 0,
            reason: e.to_string(),
        }
    }
}

/// Runs the import.
pub fn run(db: &Db, file: &Path, clock: &Clock) -> CliResult {
    let (reader, size): (Box<dyn Read>, Option<u64>) = if file.as_os_str() == "-" {
        (Box::new(std::io::stdin().lock()), None)
    } else {
        let f = std::fs::File::open(file)
            .map_err(|e| CliError(format!("cannot read {}: {e}", file.display())))?;
        let size = f.metadata().ok().map(|m| m.len());
        (Box::new(f), size)
    };
    let bar = progress_bar(size);
    let mut reader = BufReader::with_capacity(1 << 20, reader);
    let started = Instant::now();
    let mut importer = db
        .read_blocking(|c| Importer::new(c).map_err(crate::db::DbError::from))
        .map_err(CliError::from)?;
    let mut line_no: u64 = 0;
    let mut committed: u64 = 0;
    let mut buf = String::with_capacity(4096);
    let now = clock.now();
    loop {
        let outcome = db.write_blocking(|tx| -> Result<bool, Failure> {
            let mut n = 0;
            while n < BATCH_LINES {
                buf.clear();
                let read = reader.read_line(&mut buf).map_err(|e| Failure {
                    line: line_no + 1,
                    reason: e.to_string(),
                })?;
                if read == 0 {
                    importer.flush(tx).map_err(|e| Failure {
                        line: line_no,
                        reason: e.to_string(),
                    })?;
                    return Ok(true);
                }
                line_no += 1;
                if let Some(b) = &bar {
                    b.inc(read as u64);
                }
                let text = buf.trim();
                if text.is_empty() {
                    continue;
                }
                let parsed = import::parse(text).map_err(|reason| Failure {
                    line: line_no,
                    reason,
                })?;
                importer.apply(tx, parsed, now).map_err(|reason| Failure {
                    line: line_no,
                    reason,
                })?;
                n += 1;
            }
            importer.flush(tx).map_err(|e| Failure {
                line: line_no,
                reason: e.to_string(),
            })?;
            Ok(false)
        });
        match outcome {
            Ok(done) => {
                committed = line_no;
                if done {
                    break;
                }
            }
            Err(f) => {
                if let Some(b) = &bar {
                    b.abandon();
                }
                let kept = if committed > 0 {
                    format!(
                        "; lines 1-{committed} were imported, the batch after them was rolled back"
                    )
                } else {
                    "; nothing was imported".to_owned()
                };
                return Err(CliError(format!("line {}: {}{kept}", f.line, f.reason)));
            }
        }
    }
    db.with_writer(|c| c.execute_batch("ANALYZE; PRAGMA wal_checkpoint(TRUNCATE);"))?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let secs = started.elapsed().as_secs_f64();
    #[expect(clippy::cast_precision_loss, reason = "a rate for humans")]
    let rate = committed as f64 / secs.max(1e-9);
    println!("imported {committed} lines in {secs:.1} s ({rate:.0} lines/s)");
    Ok(())
}

fn progress_bar(size: Option<u64>) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = match size {
        Some(n) => indicatif::ProgressBar::new(n).with_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        ),
        None => indicatif::ProgressBar::new_spinner(),
    };
    Some(bar)
}
