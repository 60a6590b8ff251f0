//! How far Litestream has copied the WAL, read from files (SPEC §9, issue 28): the
//! database's `-wal` (how far hearth has committed) and the newest of Litestream's
//! local LTX files (how far Litestream has copied).
//!
//! Litestream 0.5 writes each batch of WAL frames it reads into an LTX file under
//! `.<db>-litestream/ltx/0/` before it uploads it; the file's 100-byte header names
//! the WAL it read (the two salts of the WAL's header) and the byte range of the frames
//! it copied (`WALOffset`, `WALSize`). hearth scans the WAL's frame headers for the end
//! of its last committed transaction. Both are positions in the same file, so the
//! comparison is exact: no clocks, no guessing from modification times. The formats:
//! SQLite's "WAL file format" (sqlite.org/fileformat2.html §4.1) and the LTX header
//! (github.com/superfly/ltx, `Header`: big-endian, magic `LTX1`).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// A place in the WAL: its generation (the salts SQLite writes in the WAL's header and
/// every frame, new each time the WAL restarts from its beginning) and a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalPoint {
    /// The WAL header's first salt: SQLite adds one to it at every restart.
    pub salt1: u32,
    /// The second salt: random at every restart.
    pub salt2: u32,
    /// A byte offset in that WAL.
    pub end: u64,
}

/// Size of the WAL's header.
const WAL_HEADER: u64 = 32;
/// Size of a frame's header.
const FRAME_HEADER: u64 = 24;
/// Size of an LTX file's header.
const LTX_HEADER: usize = 100;

fn be32(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_be_bytes(x)
}

fn be64(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(x)
}

/// A place in the WAL as this process has seen it: the generation counted from the
/// first look (SQLite picks the salts of a new WAL at random when a process first
/// writes it, so they cannot be ordered; hearth orders them as it sees them change)
/// and a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// Which WAL, in the order this process saw them.
    pub generation: u64,
    /// A byte offset in it.
    pub end: u64,
}

/// How many past WAL generations are remembered to place Litestream's copy in.
const GENERATIONS: usize = 64;

/// Whether Litestream, having copied up to `copied`, holds every commit up to `wal`.
pub fn covered(copied: Option<Position>, wal: Position) -> bool {
    if wal.end <= WAL_HEADER {
        return true;
    }
    let Some(c) = copied else {
        return false;
    };
    // a later generation: Litestream read past this one's end (the WAL restarts only
    // once its frames are checkpointed, which Litestream does after copying them)
    c.generation > wal.generation || (c.generation == wal.generation && c.end >= wal.end)
}

/// The newest LTX file in `dir` (Litestream's local `.<db>-litestream/ltx/0`, or a
/// file replica's `ltx/0`, which holds byte copies of them): where it ends in the WAL.
/// `None` when there is none (Litestream has not read the database yet) or the newest
/// cannot be read (it is being written: the next look sees it).
pub fn copied(dir: &Path) -> Option<WalPoint> {
    upto(dir, u64::MAX)
}

/// [`copied`] among the LTX files in `dir` that end at transaction `txid` or before:
/// where the WAL is copied up to when a replica holds `txid`.
pub fn upto(dir: &Path, txid: u64) -> Option<WalPoint> {
    let newest = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name();
            let name = name.to_str()?;
            // MINTXID-MAXTXID.ltx, both 16 hex digits
            let (_, max) = name.strip_suffix(".ltx")?.split_once('-')?;
            Some((u64::from_str_radix(max, 16).ok()?, e.path()))
        })
        .filter(|(max, _)| *max <= txid)
        .max_by_key(|(txid, _)| *txid)?;
    let mut h = [0u8; LTX_HEADER];
    File::open(&newest.1).and_then(|f| f.read_exact_at(&mut h, 0)).ok()?;
    if &h[0..4] != b"LTX1" {
        return None;
    }
    let (offset, size) = (be64(&h, 48), be64(&h, 56));
    Some(WalPoint { salt1: be32(&h, 64), salt2: be32(&h, 68), end: offset.saturating_add(size) })
}

/// The end of the last committed transaction in a WAL, found by reading frame headers
/// from where the previous look stopped.
#[derive(Debug, Default)]
pub struct WalTail {
    salts: Option<(u32, u32)>,
    /// The generation of `salts`.
    generation: u64,
    /// The generations seen, newest last.
    seen: std::collections::VecDeque<((u32, u32), u64)>,
    page_size: u64,
    /// The next frame to read.
    scan: u64,
    /// The end of the last commit frame found.
    end: u64,
}

impl WalTail {
    /// Reads the frames appended to the WAL at `path` since the last call: where its
    /// committed transactions end now (`None`: no WAL, or an empty one).
    pub fn advance(&mut self, path: &Path) -> std::io::Result<Option<Position>> {
        let f = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut h = [0u8; WAL_HEADER as usize];
        if f.read_exact_at(&mut h, 0).is_err() {
            return Ok(None);
        }
        if !matches!(be32(&h, 0), 0x377f_0682 | 0x377f_0683) {
            return Ok(None);
        }
        let salts = (be32(&h, 16), be32(&h, 20));
        if self.salts != Some(salts) {
            // a new generation: read it from its first frame
            self.generation += 1;
            if self.seen.len() >= GENERATIONS {
                self.seen.pop_front();
            }
            self.seen.push_back((salts, self.generation));
            self.salts = Some(salts);
            self.page_size = u64::from(be32(&h, 8));
            self.scan = WAL_HEADER;
            self.end = WAL_HEADER;
        }
        let mut frame = [0u8; FRAME_HEADER as usize];
        while f.read_exact_at(&mut frame, self.scan).is_ok()
            && (be32(&frame, 8), be32(&frame, 12)) == salts
        {
            self.scan += FRAME_HEADER + self.page_size;
            // a commit frame carries the database's size in pages after the commit
            if be32(&frame, 4) != 0 {
                self.end = self.scan;
            }
        }
        Ok(Some(Position { generation: self.generation, end: self.end }))
    }

    /// Where `p` (read from an LTX header) is among the generations seen; `None` for
    /// a WAL this process has not seen (older than its first look: it covers nothing).
    pub fn place(&self, p: WalPoint) -> Option<Position> {
        let salts = (p.salt1, p.salt2);
        let (_, generation) = self.seen.iter().rev().find(|(s, _)| *s == salts)?;
        Some(Position { generation: *generation, end: p.end })
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    #[test]
    fn the_tail_of_a_real_wal_moves_with_each_commit_and_restarts_with_the_wal() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("w.db");
        let wal = dir.path().join("w.db-wal");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x);",
        )
        .unwrap();
        let mut tail = WalTail::default();
        let a = tail.advance(&wal).unwrap().unwrap();
        assert!(a.end > WAL_HEADER);
        assert_eq!(a.generation, 1);
        assert_eq!(tail.advance(&wal).unwrap(), Some(a), "nothing new");
        c.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let b = tail.advance(&wal).unwrap().unwrap();
        assert_eq!(b.generation, a.generation);
        assert_eq!(b.end, std::fs::metadata(&wal).unwrap().len(), "ends at the last commit");
        assert!(b.end > a.end);
        // an open transaction's frames do not count until it commits
        c.execute_batch("PRAGMA cache_size = 1; BEGIN; INSERT INTO t SELECT zeroblob(5000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT i FROM n);").unwrap();
        let open = tail.advance(&wal).unwrap().unwrap();
        assert_eq!(open.end, b.end, "spilled, uncommitted frames are not commits");
        c.execute_batch("COMMIT").unwrap();
        let d = tail.advance(&wal).unwrap().unwrap();
        assert!(d.end > b.end);
        // a checkpoint, then a write restarts the WAL: a new generation
        c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).unwrap();
        c.execute("INSERT INTO t VALUES (2)", []).unwrap();
        let e = tail.advance(&wal).unwrap().unwrap();
        assert_eq!(e.generation, 2);
        assert!(e.end < d.end, "from the start again");
        assert!(covered(Some(e), d), "a later generation covers an earlier one");
        assert!(!covered(Some(d), e));
        assert!(!covered(None, e));
        assert!(covered(Some(Position { end: e.end + 1, ..e }), e));
        assert!(!covered(Some(Position { end: e.end - 1, ..e }), e));
        assert!(covered(None, Position { generation: 9, end: WAL_HEADER }), "empty");
        // an LTX header is placed by its salts; unknown salts place nowhere
        let mut h = [0u8; 32];
        File::open(&wal).unwrap().read_exact_at(&mut h, 0).unwrap();
        let now = WalPoint { salt1: be32(&h, 16), salt2: be32(&h, 20), end: 77 };
        assert_eq!(tail.place(now), Some(Position { generation: 2, end: 77 }));
        assert_eq!(tail.place(WalPoint { salt1: 1, ..now }), None);
        assert_eq!(WalTail::default().advance(&dir.path().join("none")).unwrap(), None);
    }

    #[test]
    fn the_newest_ltx_header_says_where_litestream_stopped() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(copied(dir.path()), None);
        let ltx = |min: u64, max: u64, off: u64, size: u64, s1: u32| {
            let mut h = vec![0u8; LTX_HEADER + 10];
            h[0..4].copy_from_slice(b"LTX1");
            h[48..56].copy_from_slice(&off.to_be_bytes());
            h[56..64].copy_from_slice(&size.to_be_bytes());
            h[64..68].copy_from_slice(&s1.to_be_bytes());
            h[68..72].copy_from_slice(&7u32.to_be_bytes());
            std::fs::write(dir.path().join(format!("{min:016x}-{max:016x}.ltx")), h).unwrap();
        };
        ltx(1, 1, 32, 4120, 5);
        ltx(2, 0x1f, 4152, 8240, 5);
        ltx(3, 0xa, 99, 1, 4);
        std::fs::write(dir.path().join("0000000000000020-0000000000000020.ltx.tmp"), b"x").unwrap();
        assert_eq!(copied(dir.path()), Some(WalPoint { salt1: 5, salt2: 7, end: 12_392 }));
        assert_eq!(upto(dir.path(), 0x1e), Some(WalPoint { salt1: 4, salt2: 7, end: 100 }));
        assert_eq!(upto(dir.path(), 0x1f), copied(dir.path()));
        assert_eq!(upto(dir.path(), 0), None, "nothing that early");
    }
}
