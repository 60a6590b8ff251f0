//! Schema version 2 (`migrate`'s first step): reaction labels, category names and
//! category slugs made unique case-insensitively, renaming the duplicates an older file
//! may hold rather than refusing it or dropping a row.

use std::collections::HashSet;

use rusqlite::{Connection, params};

use crate::db::DbError;

/// Version 2: reaction labels, category names and category slugs unique
/// case-insensitively, enforced by unique indexes on lowercased key columns
/// (`label_key`, `name_key`) and on `slug COLLATE NOCASE`.
///
/// A file may already hold duplicates (version 1 compared them case-sensitively). The
/// migration never refuses and never drops a row: the oldest row (lowest id) of each
/// group keeps its text, and each later one is renamed by appending its id —
/// `Like` becomes `Like (7)`, slug `news` becomes `news-7` — choosing a text that no
/// other row uses. Ids stay, so everything that refers to the rows is unchanged. Each
/// rename is logged as a warning, so the operator can choose better names with
/// `hearth reaction set` / `hearth category update`.
pub(super) fn v2_unique_names(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(
        "ALTER TABLE reaction ADD COLUMN label_key TEXT NOT NULL DEFAULT '';
         ALTER TABLE category ADD COLUMN name_key TEXT NOT NULL DEFAULT '';",
    )?;
    for u in &UNIQUE_TEXTS {
        let (open, close) = u.suffix;
        let texts = rows(conn, u.select)?;
        for (id, text, renamed) in
            dedupe(texts, u.key, |s, id, n| suffixed(s, &format!("{open}{id}"), n, close))
        {
            if let Some(old) = &renamed {
                tracing::warn!(table = u.table, id, from = %old, to = %text, "{}", u.warning);
            }
            match u.write {
                Write::Keyed(sql) => conn.execute(sql, params![id, text, (u.key)(&text)])?,
                Write::Renamed(sql) if renamed.is_some() => conn.execute(sql, params![id, text])?,
                Write::Renamed(_) => 0,
            };
        }
    }
    conn.execute_batch(
        "CREATE UNIQUE INDEX reaction_label_key ON reaction (label_key);
         CREATE UNIQUE INDEX category_name_key ON category (name_key);
         CREATE UNIQUE INDEX category_slug_nocase ON category (slug COLLATE NOCASE);",
    )?;
    Ok(())
}

/// How version 2 writes a text back.
enum Write {
    /// Sets the text (`?2`) and its new key column (`?3`) of row `?1`: every row.
    Keyed(&'static str),
    /// Sets the text (`?2`) of row `?1`: renamed rows only.
    Renamed(&'static str),
}

/// A text column that version 2 makes unique case-insensitively.
struct UniqueText {
    table: &'static str,
    /// `id, text` of every row, by id.
    select: &'static str,
    write: Write,
    key: fn(&str) -> String,
    /// What goes around the id in a renamed text.
    suffix: (&'static str, &'static str),
    warning: &'static str,
}

const UNIQUE_TEXTS: [UniqueText; 3] = [
    UniqueText {
        table: "reaction",
        select: "SELECT id, label FROM reaction ORDER BY id",
        write: Write::Keyed("UPDATE reaction SET label = ?2, label_key = ?3 WHERE id = ?1"),
        key: crate::db::reactions::label_key,
        suffix: (" (", ")"),
        warning: "reaction labels are unique case-insensitively now: relabelled a duplicate",
    },
    UniqueText {
        table: "category",
        select: "SELECT id, name FROM category ORDER BY id",
        write: Write::Keyed("UPDATE category SET name = ?2, name_key = ?3 WHERE id = ?1"),
        key: crate::db::categories::name_key,
        suffix: (" (", ")"),
        warning: "category names are unique case-insensitively now: renamed a duplicate",
    },
    UniqueText {
        table: "category",
        select: "SELECT id, slug FROM category ORDER BY id",
        write: Write::Renamed("UPDATE category SET slug = ?2 WHERE id = ?1"),
        key: |s| s.to_ascii_lowercase(), // what `slug COLLATE NOCASE` compares
        suffix: ("-", ""),
        warning: "category slugs are unique case-insensitively now: changed a duplicate",
    },
];

/// `(id, text)` rows of a query.
fn rows(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| r.try_into())?;
    rows.collect()
}

/// `text` + `open` + (for the n-th try after the first, `.n`) + `close`:
/// `Like (7)`, `Like (7.2)`, ...
fn suffixed(text: &str, open: &str, n: u32, close: &str) -> String {
    if n <= 1 { format!("{text}{open}{close}") } else { format!("{text}{open}.{n}{close}") }
}

/// Makes the texts of `rows` (in id order) unique under `key`: the first row of each
/// key keeps its text; each later one gets `rename(text, id, n)` for the first `n`
/// whose key no row has, before or after. Returns `(id, text, Some(old text) if
/// renamed)` for every row.
fn dedupe(
    rows: Vec<(i64, String)>,
    key: impl Fn(&str) -> String,
    rename: impl Fn(&str, i64, u32) -> String,
) -> Vec<(i64, String, Option<String>)> {
    let originals: HashSet<String> = rows.iter().map(|(_, t)| key(t)).collect();
    let mut used: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(rows.len());
    for (id, text) in rows {
        if used.insert(key(&text)) {
            out.push((id, text, None));
            continue;
        }
        let mut n = 1;
        let new = loop {
            let candidate = rename(&text, id, n);
            let k = key(&candidate);
            if !originals.contains(&k) && used.insert(k) {
                break candidate;
            }
            n += 1;
        };
        out.push((id, new, Some(text)));
    }
    out
}
