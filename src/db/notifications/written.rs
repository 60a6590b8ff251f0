//! The notifications a new contribution causes (SPEC §10): a comment notifies its item's
//! author and followers, a reply the author of the comment it answers (and the item's,
//! when another), and every user its text mentions. `notify` leaves out those who may
//! not see the item or stopped its notifications.

use rusqlite::Connection;

use super::{Cause, Type, mentioned, notify as one};
use crate::clock::Timestamp;

/// A contribution just written.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    pub pk: i64,
    pub author: i64,
    pub at: Timestamp,
    /// A comment's item.
    pub target: Option<i64>,
    /// A reply's comment.
    pub parent: Option<i64>,
}

/// Notifies whom contribution `w` (its rendered text `html`) concerns.
pub fn notify(conn: &Connection, w: Written, html: &str) -> rusqlite::Result<()> {
    let author_of = |pk: i64| -> rusqlite::Result<i64> {
        conn.prepare_cached("SELECT author_id FROM contribution WHERE pk = ?1")?
            .query_row([pk], |r| r.get(0))
    };
    let (item, comment) = match w.target {
        Some(item) => (item, Some(w.pk)),
        None => (w.pk, None),
    };
    let to = |user: i64, kind: Type| Cause {
        user,
        actor: w.author,
        kind,
        item_pk: Some(item),
        comment_pk: comment,
    };
    if let Some(item) = w.target {
        let item_author = author_of(item)?;
        let mut told = vec![item_author];
        match w.parent {
            Some(parent) => {
                let parent_author = author_of(parent)?;
                one(conn, to(parent_author, Type::NestedComment), w.at)?;
                if item_author != parent_author {
                    one(conn, to(item_author, Type::Comment), w.at)?;
                }
                told.push(parent_author);
            }
            None => one(conn, to(item_author, Type::Comment), w.at)?,
        }
        // the item's followers, each once: one row each (the write quota bounds how
        // many comments a member writes; docs/decisions.md)
        for user in crate::db::item_follows::followers(conn, item)? {
            if !told.contains(&user) {
                one(conn, to(user, Type::Comment), w.at)?;
            }
        }
    }
    for user in mentioned(html) {
        one(conn, to(user, Type::Mention), w.at)?;
    }
    Ok(())
}
