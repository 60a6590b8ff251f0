//! Editing what a member wrote (`PUT /api/v2/{type}/{id}/`): the text and its rendered
//! forms, a discussion's title, a status's action, an item's categories and addressing,
//! in one write. The search index follows the new text, and users the new text mentions
//! for the first time are notified, as a new item's are; everything else (its place,
//! votes, comments, activity order) stays.

use rusqlite::{Connection, params};

use super::notifications::{Cause, Type, mentioned, notify};
use crate::clock::Timestamp;
use crate::model::rich_text;

/// The new content of an item or a comment.
#[derive(Debug, Clone)]
pub struct Edit {
    /// Discussions: the title.
    pub title: Option<String>,
    /// Statuses: the action.
    pub action: Option<String>,
    /// The text, as sent (rendered here).
    pub text: String,
    /// Top-level items: the categories, replacing the old ones.
    pub categories: Vec<i64>,
    /// Discussions and posts: the tags it is addressed to, replacing the old ones.
    pub addressing: Vec<i64>,
}

/// Writes `edit` over contribution `pk` (a live one, written by `author`) at `now`.
pub fn edit(
    conn: &Connection,
    pk: i64,
    author: i64,
    edit: &Edit,
    now: Timestamp,
) -> rusqlite::Result<()> {
    let (old_html, target): (String, Option<i64>) = conn
        .prepare_cached("SELECT html, target_pk FROM contribution WHERE pk = ?1")?
        .query_row([pk], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let r = rich_text::render(&edit.text);
    conn.prepare_cached(
        "UPDATE contribution SET title = ?2, action = ?3, text = ?4, html = ?5, summary = ?6,
                                 summary_html = ?7, summary_truncated = ?8, last_edited_at = ?9
         WHERE pk = ?1",
    )?
    .execute(params![
        pk,
        edit.title,
        edit.action,
        edit.text,
        r.html,
        r.summary,
        r.stored_summary_html(),
        r.summary_truncated,
        now
    ])?;
    if target.is_none() {
        conn.prepare_cached("DELETE FROM contribution_category WHERE contribution_pk = ?1")?
            .execute([pk])?;
        super::contributions::link_categories(conn, pk, &edit.categories)?;
        conn.prepare_cached("DELETE FROM contribution_addressing WHERE contribution_pk = ?1")?
            .execute([pk])?;
        super::tags::address(conn, pk, &edit.addressing)?;
        super::search::index::add(conn, pk, edit.title.as_deref(), &edit.text)?;
    }
    // after the addressing: a mention reaches only those who may see the item
    let before = mentioned(&old_html);
    let (item, comment) = match target {
        Some(item) => (item, Some(pk)),
        None => (pk, None),
    };
    for user in mentioned(&r.html).into_iter().filter(|u| !before.contains(u)) {
        let cause = Cause {
            user,
            actor: author,
            kind: Type::Mention,
            item_pk: Some(item),
            comment_pk: comment,
        };
        notify(conn, cause, now)?;
    }
    Ok(())
}
