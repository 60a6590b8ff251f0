//! Dynamic preferences.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::model::preference::{Pref, PrefKind};

/// Column list matching [`from_row`].
pub const COLUMNS: &str = "id, section, name, kind, value";

/// Maps a row selected with [`COLUMNS`].
pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Pref> {
    let (kind, value): (String, String) = (r.get(3)?, r.get(4)?);
    Ok(from_columns!(r => Pref { id, section, name;
        kind: PrefKind::parse(&kind).unwrap_or(PrefKind::String),
        value: serde_json::from_str(&value).unwrap_or(Value::Null),
    }))
}

/// All preferences, optionally of one section, by id.
pub fn list(conn: &Connection, section: Option<&str>) -> rusqlite::Result<Vec<Pref>> {
    let mut stmt = conn.prepare_cached(sql!(
        "SELECT {COLUMNS} FROM preference WHERE ?1 IS NULL OR section = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([section], from_row)?;
    rows.collect()
}

/// One preference by section and name.
pub fn get(conn: &Connection, section: &str, name: &str) -> rusqlite::Result<Option<Pref>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM preference WHERE section = ?1 AND name = ?2"))?
        .query_row([section, name], from_row)
        .optional()
}

/// A boolean preference, or `default` when missing or not a boolean.
pub fn get_bool(
    conn: &Connection,
    section: &str,
    name: &str,
    default: bool,
) -> rusqlite::Result<bool> {
    Ok(get(conn, section, name)?.and_then(|p| p.value.as_bool()).unwrap_or(default))
}

/// Boolean preferences read together: each `(section, name, default)` its value, or
/// the default when missing or not a boolean, as [`get_bool`] reads one. One statement
/// of one index lookup per preference, its text made once (`static` at the caller):
/// what `GET /user/me/` reads for its `permission` (a statement costs about a
/// microsecond before it reads anything; `json_each` over the keys cost ten).
#[derive(Debug)]
pub struct Bools<const N: usize> {
    wanted: [(&'static str, &'static str, bool); N],
    sql: std::sync::OnceLock<String>,
}

impl<const N: usize> Bools<N> {
    pub const fn new(wanted: [(&'static str, &'static str, bool); N]) -> Self {
        Bools { wanted, sql: std::sync::OnceLock::new() }
    }

    /// The values now.
    pub fn read(&self, conn: &Connection) -> rusqlite::Result<[bool; N]> {
        let sql = self.sql.get_or_init(|| {
            let quote = |s: &str| s.replace('\'', "''");
            let each = self.wanted.iter().map(|(section, name, _)| {
                let (section, name) = (quote(section), quote(name));
                format!(
                    "(SELECT value FROM preference WHERE section = '{section}' AND name = '{name}')"
                )
            });
            format!("SELECT {}", each.collect::<Vec<_>>().join(", "))
        });
        conn.prepare_cached(sql)?.query_row([], |r| {
            let mut out = self.wanted.map(|(_, _, default)| default);
            for (i, slot) in out.iter_mut().enumerate() {
                match r.get_ref(i)?.as_str_or_null()? {
                    Some("true") => *slot = true,
                    Some("false") => *slot = false,
                    _ => {}
                }
            }
            Ok(out)
        })
    }
}

/// The values a [`Bools`] read last, with the preferences' version they were read at
/// (`preference_version`, bumped by triggers on every change, whoever makes it): a
/// server's own, kept in its state.
#[derive(Default)]
pub struct Latest<const N: usize>(arc_swap::ArcSwapOption<(i64, [bool; N])>);

impl<const N: usize> Bools<N> {
    /// The values now: `latest`'s while the preferences' version is the one they were
    /// read at (one lookup of the version row instead of `N`), else read and kept. The
    /// version and the values come from the caller's one read transaction, so a value
    /// kept is always the one of its version.
    pub fn read_latest(
        &self,
        conn: &Connection,
        latest: &Latest<N>,
    ) -> rusqlite::Result<[bool; N]> {
        let version: i64 = conn
            .prepare_cached("SELECT n FROM preference_version WHERE one = 1")?
            .query_row([], |r| r.get(0))?;
        if let Some(kept) = &*latest.0.load()
            && kept.0 == version
        {
            return Ok(kept.1);
        }
        let values = self.read(conn)?;
        latest.0.store(Some(std::sync::Arc::new((version, values))));
        Ok(values)
    }
}

/// Stores a value (already checked against the preference's type).
pub fn set(conn: &Connection, id: i64, value: &Value) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE preference SET value = ?2 WHERE id = ?1")?
        .execute(params![id, value.to_string()])?;
    Ok(())
}

/// A column preferences can be ordered by (`ordering`'s allow-list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderKey {
    /// `id`
    Id,
    /// `section`
    Section,
    /// `name`
    Name,
}

impl OrderKey {
    /// One `ordering` entry: `id`, `section` or `name`, optionally prefixed `-`
    /// (descending). `None` for anything else.
    pub fn parse(s: &str) -> Option<(OrderKey, bool)> {
        let (desc, field) = match s.strip_prefix('-') {
            Some(f) => (true, f),
            None => (false, s),
        };
        let key = match field {
            "id" => OrderKey::Id,
            "section" => OrderKey::Section,
            "name" => OrderKey::Name,
            _ => return None,
        };
        Some((key, desc))
    }
}

/// What the preference lists filter and order on.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Case-insensitive substring of `section` or `name`.
    pub search: Option<String>,
    /// Exact section.
    pub section: Option<String>,
    /// Only these `(section, name)` pairs.
    pub keys: Option<Vec<(String, String)>>,
    /// Ordering keys, each with `true` for descending; `id` breaks the remaining ties.
    pub ordering: Vec<(OrderKey, bool)>,
}

/// One page of the matching preferences, and how many match. The preference table is
/// a fixed list of a few hundred rows, so it is filtered and ordered here (no user
/// text ever reaches SQL).
pub fn search(
    conn: &Connection,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Pref>)> {
    let needle = f.search.as_deref().map(str::to_lowercase);
    // with `keys`, only those rows are read (the unique (section, name) index); else
    // the whole table, which is a few hundred rows at most
    let candidates = match &f.keys {
        Some(keys) => {
            let mut found = Vec::with_capacity(keys.len());
            for (s, n) in keys {
                if let Some(p) = get(conn, s, n)?
                    && !found.iter().any(|q: &Pref| q.id == p.id)
                    && f.section.as_deref().is_none_or(|sec| sec == p.section)
                {
                    found.push(p);
                }
            }
            found
        }
        None => list(conn, f.section.as_deref())?,
    };
    let mut rows: Vec<Pref> = candidates
        .into_iter()
        .filter(|p| {
            needle.as_deref().is_none_or(|n| {
                p.section.to_lowercase().contains(n) || p.name.to_lowercase().contains(n)
            })
        })
        .filter(|p| {
            f.keys.as_ref().is_none_or(|ks| ks.iter().any(|(s, n)| *s == p.section && *n == p.name))
        })
        .collect();
    rows.sort_by(|a, b| {
        f.ordering
            .iter()
            .map(|&(key, desc)| {
                let o = match key {
                    OrderKey::Id => a.id.cmp(&b.id),
                    OrderKey::Section => a.section.cmp(&b.section),
                    OrderKey::Name => a.name.cmp(&b.name),
                };
                if desc { o.reverse() } else { o }
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.id.cmp(&b.id))
    });
    Ok(crate::model::listing::page(rows, limit, offset))
}

/// One preference by id.
pub fn by_id(conn: &Connection, id: i64) -> rusqlite::Result<Option<Pref>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM preference WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    /// Each value as `get_bool` reads it: the stored boolean, else the default (a
    /// missing preference, or one that holds something else), in the order asked.
    #[test]
    fn bools_read_each_as_get_bool_does() {
        let c = crate::db::migrate::test_db();
        c.execute_batch(
            "INSERT INTO preference (section, name, kind, value) VALUES
               ('s', 'on', 'boolean', 'true'), ('s', 'off', 'boolean', 'false'),
               ('t', 'on', 'boolean', 'false'), ('s', 'text', 'string', '\"true\"'),
               ('s', 'it''s', 'boolean', 'true');",
        )
        .unwrap();
        let wanted = [
            ("s", "on", false),
            ("s", "off", true),
            ("t", "on", true),
            ("s", "text", false),
            ("s", "missing", true),
            ("s", "it's", false),
        ];
        let bools = Bools::new(wanted);
        let got = bools.read(&c).unwrap();
        assert_eq!(got, [true, false, false, false, true, true]);
        for ((section, name, default), b) in wanted.into_iter().zip(got) {
            assert_eq!(get_bool(&c, section, name, default).unwrap(), b, "{section}.{name}");
        }
    }

    /// Kept values serve while the preferences' version stays; any change to a
    /// preference (an insert, an update, a delete, by any writer) bumps it, and the next
    /// read sees the change.
    #[test]
    fn kept_values_serve_until_any_preference_changes() {
        let c = crate::db::migrate::test_db();
        static TWO: Bools<2> = Bools::new([("x", "a", false), ("x", "b", true)]);
        let latest = Latest::default();
        let version = |c: &Connection| -> i64 {
            c.query_row("SELECT n FROM preference_version", [], |r| r.get(0)).unwrap()
        };
        assert_eq!(TWO.read_latest(&c, &latest).unwrap(), [false, true]);
        // every kind of change bumps the version, and the next read sees it
        for (sql, want) in [
            (
                "INSERT INTO preference (section, name, kind, value) VALUES ('x', 'a', 'boolean', 'true')",
                [true, true],
            ),
            (
                "UPDATE preference SET value = 'false' WHERE section = 'x' AND name = 'a'",
                [false, true],
            ),
            ("DELETE FROM preference WHERE section = 'x'", [false, true]),
            (
                "INSERT INTO preference (section, name, kind, value) VALUES ('x', 'b', 'boolean', 'false')",
                [false, false],
            ),
        ] {
            let v = version(&c);
            c.execute_batch(sql).unwrap();
            assert_eq!(version(&c), v + 1, "{sql}");
            assert_eq!(TWO.read_latest(&c, &latest).unwrap(), want, "{sql}");
        }
        // while the version stays, the kept values serve (a change made behind it, the
        // version put back by hand, is not seen: what is kept is what is served)
        let v = version(&c);
        c.execute_batch("UPDATE preference SET value = 'true' WHERE section = 'x'").unwrap();
        c.execute("UPDATE preference_version SET n = ?1", [v]).unwrap();
        assert_eq!(TWO.read_latest(&c, &latest).unwrap(), [false, false]);
        assert_eq!(TWO.read(&c).unwrap(), [false, true]);
    }
}
