//! What `init` puts in a new database: a JWT secret, the six default reactions and
//! every dynamic preference of `preferences.tsv` with its type and default.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::db::DbError;
use crate::model::preference::PrefKind;

/// The dynamic preferences (section, name, type, default), from SPEC's `preferences.tsv`.
pub const PREFERENCES_TSV: &str = include_str!("preferences.tsv");

/// The default reactions, ids 1 to 6 in this order (SPEC §5).
pub const REACTIONS: [(&str, i64); 6] =
    [("like", 1), ("love", 1), ("haha", 1), ("wow", 0), ("sad", -1), ("angry", -1)];

/// Bytes of randomness in a JWT shared secret.
pub const JWT_SECRET_BYTES: usize = 48;

/// Parsed rows of [`PREFERENCES_TSV`]: (section, name, kind, default JSON value).
pub fn default_preferences() -> Vec<(&'static str, &'static str, PrefKind, serde_json::Value)> {
    PREFERENCES_TSV
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut f = line.splitn(4, '\t');
            let (section, name, kind) = (f.next()?, f.next()?, f.next()?);
            let default = f.next().unwrap_or("");
            let kind = PrefKind::parse(kind)?;
            let value = kind.parse_text(default).ok()?;
            Some((section, name, kind, value))
        })
        .collect()
}

/// Seeds a freshly created database.
pub fn seed(conn: &Connection, now: Timestamp) -> Result<(), DbError> {
    crate::db::jwt::insert_secret(conn, &crate::token::random_string(JWT_SECRET_BYTES), now, None)?;
    for (id, (label, sentiment)) in (1i64..).zip(REACTIONS.iter()) {
        crate::db::reactions::insert(
            conn,
            &crate::model::reaction::Reaction {
                id,
                label: (*label).to_owned(),
                sentiment: *sentiment,
                image: Some(format!("/static/reactions/{label}.svg")),
                active: true,
            },
        )?;
    }
    let mut stmt = conn
        .prepare("INSERT INTO preference (section, name, kind, value) VALUES (?1, ?2, ?3, ?4)")?;
    for (section, name, kind, value) in default_preferences() {
        stmt.execute(params![section, name, kind.as_str(), value.to_string()])?;
    }
    crate::db::custom_menus::seed(conn, now)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tsv_row_parses() {
        let rows = PREFERENCES_TSV.lines().skip(1).filter(|l| !l.is_empty()).count();
        assert_eq!(default_preferences().len(), rows);
        assert!(rows >= 100);
        let ca = default_preferences()
            .into_iter()
            .find(|(s, n, ..)| *s == "configurations" && *n == "content_availability");
        assert_eq!(ca.map(|r| r.3), Some(serde_json::Value::Bool(true)));
    }
}
