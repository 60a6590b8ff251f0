//! The items a member stopped hearing about (`contribution_notification_off`, schema
//! version 12; the kit's "Stop notifications for this contribution"): no notification
//! about such an item reaches them (comments, replies, votes, mentions), until they
//! turn it back on. Forgotten with the account.

use rusqlite::Connection;

use super::item_switches::{self, Switch};
use crate::clock::Timestamp;

/// Whether `user` stopped the notifications about item `pk`.
pub fn is_off(conn: &Connection, user: i64, pk: i64) -> rusqlite::Result<bool> {
    item_switches::is_on(conn, Switch::NotificationsOff, user, pk)
}

/// Turns `user`'s notifications about item `pk` off, or back on when they are off;
/// whether they are off afterwards.
pub fn toggle(conn: &Connection, user: i64, pk: i64, now: Timestamp) -> rusqlite::Result<bool> {
    item_switches::toggle(conn, Switch::NotificationsOff, user, pk, now)
}
