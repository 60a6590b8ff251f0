//! A member's switches on one item, each a table of `(user_id, contribution_pk,
//! created_at)` rows (schema version 12): following it ([`super::item_follows`]) and
//! stopping its notifications ([`super::notification_offs`]). One row is the switch on.

use rusqlite::{Connection, params};

use crate::clock::Timestamp;

/// Which switch.
#[derive(Debug, Clone, Copy)]
pub enum Switch {
    Follow,
    NotificationsOff,
}

impl Switch {
    /// Its statements: whether it is on, off, on.
    fn sql(self) -> [&'static str; 3] {
        match self {
            Switch::Follow => [
                "SELECT 1 FROM contribution_follow WHERE user_id = ?1 AND contribution_pk = ?2",
                "DELETE FROM contribution_follow WHERE user_id = ?1 AND contribution_pk = ?2",
                "INSERT INTO contribution_follow (user_id, contribution_pk, created_at) VALUES (?1, ?2, ?3)",
            ],
            Switch::NotificationsOff => [
                "SELECT 1 FROM contribution_notification_off WHERE user_id = ?1 AND contribution_pk = ?2",
                "DELETE FROM contribution_notification_off WHERE user_id = ?1 AND contribution_pk = ?2",
                "INSERT INTO contribution_notification_off (user_id, contribution_pk, created_at) VALUES (?1, ?2, ?3)",
            ],
        }
    }
}

/// Whether `user`'s switch is on for item `pk`.
pub fn is_on(conn: &Connection, switch: Switch, user: i64, pk: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(switch.sql()[0])?.exists(params![user, pk])
}

/// Turns `user`'s switch on item `pk` on, or off when it is on; whether it is on after.
pub fn toggle(
    conn: &Connection,
    switch: Switch,
    user: i64,
    pk: i64,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    let [_, off, on] = switch.sql();
    if conn.prepare_cached(off)?.execute(params![user, pk])? > 0 {
        return Ok(false);
    }
    conn.prepare_cached(on)?.execute(params![user, pk, now])?;
    Ok(true)
}
