//! The replica's position from Litestream's control socket (issue 28): the source of
//! the replication bound for replicas hearth cannot read itself (s3 and the others).
//!
//! Litestream 0.5.17 says what its replica holds in one place hearth can ask: the
//! answer of its control socket (`socket: {enabled: true, path: ...}` in
//! litestream.yml) to `POST /sync {"path": DB}`, whose `replicated_txid` is the replica's
//! position — the last level-0 LTX file whose upload has returned (`Replica.Pos()` in
//! its `replica.go`; reset to 0 on an upload error, which only errs on the strict side).
//! Without `"wait": true` the call syncs the WAL into a local LTX file (what Litestream
//! does every `monitor-interval` anyway) and uploads nothing: no extra requests to a
//! bucket. Its metrics endpoint has no replica position (the replica gauges are
//! commented out), and `GET /txid` answers the local position only.
//!
//! The TXID is placed in the WAL by Litestream's local LTX file of that transaction
//! (`.<db>-litestream/ltx/0/`, [`super::wal::upto`]): Litestream deletes a local L0 file
//! only once the replica's copy is compacted and old, and never the newest.
//!
//! The questions are asked by a thread of their own ([`Asker`]), one at a time, so the
//! watch keeps its 100 ms pace however slowly Litestream answers, and a stopped or
//! starved Litestream finds at most one question waiting when it runs again. Until a
//! new answer comes, the last one stands: what the replica held then, it still holds.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// How long one question may wait for its answer before it is asked again on a new
/// connection (a Litestream stopped that long finds one question per this time).
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// How often a failure to ask is logged at WARN (the others at DEBUG).
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The control socket's answers, kept current by a thread of their own until dropped.
#[derive(Debug)]
pub struct Asker {
    /// The last `replicated_txid` answered (0: none yet, as Litestream says when it
    /// does not know).
    latest: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Asker {
    /// Starts asking the control socket `socket` about the database `db`, a question
    /// every `every` after the last answer.
    pub fn start(socket: PathBuf, db: PathBuf, every: Duration) -> std::io::Result<Asker> {
        let latest = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (l, s) = (Arc::clone(&latest), Arc::clone(&stop));
        std::thread::Builder::new().name("litestream-socket".to_owned()).spawn(move || {
            let mut warned: Option<std::time::Instant> = None;
            while !s.load(Ordering::Acquire) {
                match replicated_txid(&socket, &db) {
                    // as answered: lower after an upload error (Litestream forgets
                    // its position), which only errs on the strict side
                    Ok(txid) => l.store(txid, Ordering::Release),
                    Err(e) => {
                        let now = crate::clock::instant();
                        if warned.is_none_or(|t| now.saturating_duration_since(t) > WARN_EVERY) {
                            warned = Some(now);
                            tracing::warn!(error = %e, "cannot ask Litestream's control socket where the replica is: counted as no progress");
                        } else {
                            tracing::debug!(error = %e, "cannot ask Litestream's control socket");
                        }
                    }
                }
                std::thread::sleep(every);
            }
        })?;
        Ok(Asker { latest, stop })
    }

    /// The replica's position as last answered (0: not known).
    pub fn latest(&self) -> u64 {
        self.latest.load(Ordering::Acquire)
    }
}

impl Drop for Asker {
    fn drop(&mut self) {
        // the thread ends after its question in flight, if any
        self.stop.store(true, Ordering::Release);
    }
}
/// The most of an answer read.
const MAX_ANSWER: u64 = 64 * 1024;

/// Asks the Litestream control socket at `socket` for the replicated TXID of the
/// database at `db` (its absolute path, as in litestream.yml). The error says why in
/// words fit for a log line.
pub fn replicated_txid(socket: &Path, db: &Path) -> Result<u64, String> {
    let db = std::path::absolute(db).map_err(|e| format!("the database's path: {e}"))?;
    let body = serde_json::json!({ "path": db }).to_string();
    let mut s = UnixStream::connect(socket)
        .map_err(|e| format!("cannot connect to {}: {e}", socket.display()))?;
    let io = |e: std::io::Error| format!("{}: {e}", socket.display());
    s.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    s.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    // one write: `write!` would send the request in pieces
    let request = format!(
        "POST /sync HTTP/1.1\r\nHost: litestream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).map_err(io)?;
    let mut answer = Vec::new();
    s.take(MAX_ANSWER).read_to_end(&mut answer).map_err(io)?;
    parse(&answer)
}

/// The `replicated_txid` of an HTTP answer to `POST /sync`.
fn parse(answer: &[u8]) -> Result<u64, String> {
    let text = String::from_utf8_lossy(answer);
    let status = text.split_whitespace().nth(1).unwrap_or_default();
    // the JSON object of the body (a chunked body has its sizes around it)
    let json = match (text.find("\r\n\r\n"), text.rfind('}')) {
        (Some(head), Some(end)) => text[head..=end].find('{').map(|i| &text[head + i..=end]),
        _ => None,
    };
    let v: serde_json::Value = json
        .and_then(|j| serde_json::from_str(j).ok())
        .ok_or_else(|| format!("not an answer of Litestream's control socket: {status}"))?;
    if status != "200" {
        let why = v["error"].as_str().unwrap_or("no reason given");
        return Err(format!("Litestream answered {status}: {why}"));
    }
    v["replicated_txid"].as_u64().ok_or_else(|| {
        "no replicated_txid in the answer (Litestream older than 0.5.17?)".to_owned()
    })
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn the_answer_names_the_replicated_txid() {
        let ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 77\r\n\r\n{\"status\":\"synced_local\",\"path\":\"/tmp/t.db\",\"txid\":2,\"replicated_txid\":1}\n";
        assert_eq!(parse(ok), Ok(1));
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4c\r\n{\"status\":\"no_change\",\"path\":\"/tmp/t.db\",\"txid\":2,\"replicated_txid\":2}\n\r\n0\r\n\r\n";
        assert_eq!(parse(chunked), Ok(2));
        let missing = b"HTTP/1.1 404 Not Found\r\n\r\n{\"error\":\"database not found\"}\n";
        assert_eq!(parse(missing), Err("Litestream answered 404: database not found".to_owned()));
        assert!(parse(b"HTTP/1.1 200 OK\r\n\r\n{\"txid\":2}").is_err());
        assert!(parse(b"").is_err());
    }

    #[test]
    fn the_asker_keeps_the_last_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("litestream.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        // a Litestream that answers 7, then 9, then hangs up on every question
        std::thread::spawn(move || {
            for (i, conn) in listener.incoming().enumerate() {
                let Ok(mut c) = conn else { return };
                // the whole request, however it arrives
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !String::from_utf8_lossy(&request).contains("}") {
                    match c.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                assert!(String::from_utf8_lossy(&request).starts_with("POST /sync HTTP/1.1"));
                if i < 2 {
                    let body = format!("{{\"replicated_txid\":{}}}", 7 + 2 * i);
                    let _ = write!(
                        c,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                }
            }
        });
        let asker =
            Asker::start(path, PathBuf::from("/tmp/t.db"), Duration::from_millis(5)).unwrap();
        let start = crate::clock::instant();
        while asker.latest() != 9 {
            assert!(start.elapsed() < Duration::from_secs(5), "{}", asker.latest());
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(asker.latest(), 9, "failed questions leave the last answer");
    }

    #[test]
    fn no_socket_is_an_error_that_names_it() {
        let dir = std::env::temp_dir().join("hearth-no-such-dir/litestream.sock");
        let e = replicated_txid(&dir, Path::new("/tmp/t.db")).unwrap_err();
        assert!(e.contains("cannot connect to") && e.contains("litestream.sock"), "{e}");
    }
}
