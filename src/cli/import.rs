//! `hearth import FILE`: stream an NDJSON export into the database in batched
//! transactions. A bad line stops the import with its line number; the batch it was in
//! is rolled back, so the database is as it was before that batch.
//!
//! Two threads share the work: one reads and parses lines (JSON) and hands them over
//! in chunks through a bounded channel, the other checks and writes them. On this
//! 2-core machine that takes the parsing off the writer's path.

use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::Path;
use std::sync::mpsc::{SyncSender, sync_channel};

use super::{CliError, CliResult};
use crate::clock::{Clock, Timestamp};
use crate::db::Db;
use crate::db::import::Importer;
use crate::model::import::{self, Line};

/// Lines per transaction by default: large enough that per-batch work (counter
/// updates, commits) costs little, small enough that a bad line loses little work.
pub const BATCH_LINES: u64 = 500_000;

/// Parsed lines per message from the reading thread.
const CHUNK_LINES: usize = 4096;

/// Chunks the reading thread may be ahead by.
const CHUNKS_AHEAD: usize = 8;

/// A line's number and what parsing it gave.
type Parsed = (u64, Result<Line, String>);

struct Failure {
    line: u64,
    reason: String,
}

impl From<(u64, String)> for Failure {
    fn from((line, reason): (u64, String)) -> Self {
        Failure { line, reason }
    }
}

impl From<crate::db::DbError> for Failure {
    fn from(e: crate::db::DbError) -> Self {
        Failure { line: 0, reason: e.to_string() }
    }
}

impl crate::db::Fault for Failure {
    /// The import reports every failure itself; nothing watches its writer's health.
    fn is_storage_fault(&self) -> bool {
        false
    }
}

/// Runs the import.
pub fn run(db: &Db, file: &Path, batch_lines: u64, clock: &Clock) -> CliResult {
    let (reader, size): (Box<dyn Read + Send>, Option<u64>) = if file.as_os_str() == "-" {
        (Box::new(std::io::stdin()), None)
    } else {
        let f = std::fs::File::open(file)
            .map_err(|e| CliError(format!("cannot read {}: {e}", file.display())))?;
        let size = f.metadata().ok().map(|m| m.len());
        (Box::new(f), size)
    };
    let bar = progress_bar(size);
    let started = crate::clock::instant();
    let replicated = db.is_replicated();
    let mut importer = db.with_writer(|c| {
        crate::db::import::begin(c, replicated)?;
        Importer::new(c)
    })?;

    let (send, receive) = sync_channel(CHUNKS_AHEAD);
    let reader_bar = bar.clone();
    let parser = std::thread::Builder::new()
        .name("import-parse".into())
        .spawn(move || read_and_parse(BufReader::with_capacity(1 << 20, reader), reader_bar, &send))
        .map_err(|e| CliError(format!("cannot start the parsing thread: {e}")))?;
    let mut lines = receive.iter().flatten();
    let outcome = load(db, &mut importer, &mut lines, batch_lines, clock.now());
    drop(lines);
    drop(receive);
    // the parser ends on its own once the channel is closed
    let _ = parser.join();
    let finished = db.with_writer(|c| crate::db::import::finish(c, replicated));

    let committed = match outcome {
        Ok(n) => n,
        Err((f, committed)) => {
            if let Some(b) = &bar {
                b.abandon();
            }
            let kept = if committed == 1 {
                "; line 1 was imported, the batch after it was rolled back".to_owned()
            } else if committed > 0 {
                format!("; lines 1-{committed} were imported, the batch after them was rolled back")
            } else {
                "; nothing was imported".to_owned()
            };
            let at = if f.line == 0 { String::new() } else { format!("line {}: ", f.line) };
            return Err(CliError(format!("{at}{}{kept}", f.reason)));
        }
    };
    finished?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let secs = started.elapsed().as_secs_f64();
    #[expect(clippy::cast_precision_loss, reason = "a rate for humans")]
    let rate = committed as f64 / secs.max(1e-9);
    println!(
        "imported {} in {secs:.1} s ({rate:.0} lines/s)",
        super::plural(committed, "line", "lines")
    );
    Ok(())
}

/// Writes `lines` in batches; answers the number of the last line written, or the
/// failure and the last line of the last batch committed before it.
fn load(
    db: &Db,
    importer: &mut Importer,
    lines: &mut impl Iterator<Item = Parsed>,
    batch_lines: u64,
    now: Timestamp,
) -> Result<u64, (Failure, u64)> {
    let mut committed = 0;
    loop {
        let mut last = committed;
        let outcome = db.write_blocking(|tx| -> Result<bool, Failure> {
            importer.begin_batch(tx).map_err(crate::db::DbError::from)?;
            let mut n = 0;
            while n < batch_lines {
                let Some((line_no, parsed)) = lines.next() else {
                    importer.flush(tx)?;
                    return Ok(true);
                };
                let parsed = parsed.map_err(|reason| Failure { line: line_no, reason })?;
                importer
                    .apply(tx, line_no, parsed, now)
                    .map_err(|reason| Failure { line: line_no, reason })?;
                last = line_no;
                n += 1;
            }
            importer.flush(tx)?;
            Ok(false)
        });
        match outcome {
            Ok(done) => {
                committed = last;
                if done {
                    return Ok(committed);
                }
            }
            Err(f) => return Err((f, committed)),
        }
    }
}

/// The longest line: a record whose text is the most the API takes
/// ([`crate::model::contribution::TEXT_MAX`]) with every character JSON-escaped (`\uXXXX`,
/// 6 bytes each), and room for its other fields.
pub const LINE_MAX: u64 = 6 * crate::model::contribution::TEXT_MAX as u64 + (64 << 10);

/// The reading thread: numbers and parses the lines of `reader` (skipping blank ones)
/// and sends them in chunks; stops after the first line that cannot be read or parsed,
/// or when the receiver has gone.
fn read_and_parse(
    mut reader: impl BufRead,
    bar: Option<indicatif::ProgressBar>,
    out: &SyncSender<Vec<Parsed>>,
) {
    let mut line_no: u64 = 0;
    let mut buf = String::with_capacity(4096);
    let mut chunk = Vec::with_capacity(CHUNK_LINES);
    loop {
        buf.clear();
        // never more than a line may hold: a 100 MB line is refused after LINE_MAX bytes,
        // not read into memory
        let read = match (&mut reader).take(LINE_MAX + 1).read_line(&mut buf) {
            Ok(0) => break,
            Ok(n) if n as u64 > LINE_MAX => {
                chunk.push((line_no + 1, Err(format!("the line is longer than {LINE_MAX} bytes"))));
                break;
            }
            Ok(n) => n,
            Err(e) => {
                chunk.push((line_no + 1, Err(e.to_string())));
                break;
            }
        };
        line_no += 1;
        if let Some(b) = &bar {
            b.inc(read as u64);
        }
        let text = buf.trim();
        if text.is_empty() {
            continue;
        }
        let parsed = import::parse(text);
        let failed = parsed.is_err();
        chunk.push((line_no, parsed));
        if failed {
            break;
        }
        if chunk.len() == CHUNK_LINES
            && out.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_LINES))).is_err()
        {
            return;
        }
    }
    // a closed channel means the writer stopped first; it has its own error
    let _ = out.send(chunk);
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
