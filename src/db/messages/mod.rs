//! Private messages (SPEC §10): threads between two users, their messages, each side's
//! snippet (`pm_member`: its newest visible message and its unread count, kept here in
//! the message's own transaction and recounted by `hearth check`), and who may write to
//! whom. Files are in [`files`].
//!
//! A message is visible to its sender unless the sender hid it, to its receiver unless
//! the receiver hid it ("delete for me"); one its sender took back ("delete for
//! everyone") is gone for both when it was younger than a minute, else it stays, for
//! both, as a deleted message without its text or file.

pub mod files;
pub mod group;

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::message::{Message, Snippet, WITHDRAW_WITHOUT_TRACE_US};
use crate::model::rich_text::Rendered;
use crate::model::user::User;

/// Whether private messages are on (`addons.private_messages_enabled`).
pub fn enabled(conn: &Connection) -> rusqlite::Result<bool> {
    super::preferences::get_bool(conn, "addons", "private_messages_enabled", false)
}

/// Why `from` may not write to `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// `to` is `from`.
    Yourself,
    /// `to` is not a live user.
    Unknown,
    /// One of them hides the other (SPEC §8): neither may write to the other.
    Hidden,
}

/// Whether `from` may write to `to`: one rule for sending and for `can_send_pm_to`.
pub fn may_write(conn: &Connection, from: i64, to: i64) -> rusqlite::Result<Result<(), Refused>> {
    if from == to {
        return Ok(Err(Refused::Yourself));
    }
    let live =
        conn.prepare_cached("SELECT 1 FROM user WHERE id = ?1 AND deleted = 0")?.exists([to])?;
    if !live {
        return Ok(Err(Refused::Unknown));
    }
    if super::hides::is_hiding(conn, from, to)? || super::hides::is_hiding(conn, to, from)? {
        return Ok(Err(Refused::Hidden));
    }
    Ok(Ok(()))
}

/// The thread between `a` and `b`, if they have one.
pub fn thread_between(conn: &Connection, a: i64, b: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT id FROM pm_thread WHERE low_id = ?1 AND high_id = ?2")?
        .query_row([a.min(b), a.max(b)], |r| r.get(0))
        .optional()
}

/// The other member of thread `thread` for `user` (`None`: not `user`'s thread).
pub fn other_member(conn: &Connection, user: i64, thread: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT other_id FROM pm_member WHERE user_id = ?1 AND thread_id = ?2")?
        .query_row([user, thread], |r| r.get(0))
        .optional()
}

/// The thread between `a` and `b`, made with its two members when new.
fn ensure_thread(conn: &Connection, a: i64, b: i64, now: Timestamp) -> rusqlite::Result<i64> {
    if let Some(id) = thread_between(conn, a, b)? {
        return Ok(id);
    }
    conn.prepare_cached("INSERT INTO pm_thread (low_id, high_id, created_at) VALUES (?1, ?2, ?3)")?
        .execute(params![a.min(b), a.max(b), now])?;
    let id = conn.last_insert_rowid();
    let mut member = conn.prepare_cached(
        "INSERT INTO pm_member (thread_id, user_id, other_id) VALUES (?1, ?2, ?3)",
    )?;
    member.execute([id, a, b])?;
    member.execute([id, b, a])?;
    Ok(id)
}

/// Writes a message from `from` to `to` (who may receive it: [`may_write`]) with its
/// rendered text and its file (owned by `from`, whole, unused: [`files::usable`]), moves
/// both snippets to it, counts it unread for `to` and notifies `to`; answers its id.
pub fn send(
    conn: &Connection,
    from: i64,
    to: i64,
    text: &str,
    rendered: &Rendered,
    file: Option<&str>,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    let id = write(conn, from, to, text, rendered, file, now, false)?;
    super::notifications::notify_message(conn, to, from, id, now)?;
    Ok(id)
}

/// Writes a message (read by its receiver already, or not) in the thread of `from` and
/// `to`, made when new, and moves both snippets to it; notifies no one (the import's writer; [`send`] for the API's).
#[expect(clippy::too_many_arguments, reason = "a message's fields, each its own column")]
pub fn write(
    conn: &Connection,
    from: i64,
    to: i64,
    text: &str,
    rendered: &Rendered,
    file: Option<&str>,
    at: Timestamp,
    read: bool,
) -> rusqlite::Result<i64> {
    let thread = ensure_thread(conn, from, to, at)?;
    conn.prepare_cached(
        "INSERT INTO private_message
           (thread_id, sender_id, receiver_id, text, html, summary, file_uuid, created_at, is_read)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        thread,
        from,
        to,
        text,
        rendered.html,
        rendered.summary,
        file,
        at,
        read
    ])?;
    let id = conn.last_insert_rowid();
    // a thread is in the order of its ids (an import's lines come in their order)
    conn.prepare_cached(
        "UPDATE pm_member SET last_id = ?2, last_at = ?3, unread = unread + (user_id = ?4 AND NOT ?5)
         WHERE thread_id = ?1",
    )?
    .execute(params![thread, id, at, to, read])?;
    conn.prepare_cached("UPDATE pm_member SET visible = visible + 1 WHERE thread_id = ?1")?
        .execute([thread])?;
    Ok(id)
}

/// The columns of a message row, read by [`message_row`].
const MESSAGE_COLUMNS: &str = "m.id, m.thread_id, m.sender_id, m.receiver_id, m.html,
    m.created_at, m.is_read, m.withdrawn, m.file_uuid";

/// A message row before its users are read (a group message's thread and receiver are
/// NULL: [`group`] reads those).
type Row = (i64, Option<i64>, i64, Option<i64>, String, Timestamp, bool, bool, Option<String>);

fn message_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
        r.get(8)?,
    ))
}

/// Pair rows made messages, each user read once.
fn messages(conn: &Connection, rows: Vec<Row>) -> rusqlite::Result<Vec<Message>> {
    let mut users: HashMap<i64, User> = HashMap::new();
    let mut out = Vec::with_capacity(rows.len());
    for (id, thread_id, sender, receiver, html, created_at, is_read, withdrawn, file) in rows {
        let (Some(thread_id), Some(receiver)) = (thread_id, receiver) else { continue };
        for u in [sender, receiver] {
            if let std::collections::hash_map::Entry::Vacant(e) = users.entry(u)
                && let Some(user) = super::users::get(conn, u)?
            {
                e.insert(user);
            }
        }
        let (Some(sender), Some(receiver)) = (users.get(&sender), users.get(&receiver)) else {
            continue;
        };
        let file = match file {
            Some(uuid) => files::get(conn, &uuid)?,
            None => None,
        };
        out.push(Message {
            id,
            thread_id,
            sender: sender.clone(),
            receiver: Some(receiver.clone()),
            group: None,
            html,
            created_at,
            is_read,
            withdrawn,
            file,
        });
    }
    Ok(out)
}

/// The condition of a message `m` visible to `?1`.
const VISIBLE: &str = "((m.sender_id = ?1 AND m.sender_hidden = 0)
    OR (m.receiver_id = ?1 AND m.receiver_hidden = 0))";

/// Message `id` as `viewer` sees it (`None`: not one of `viewer`'s, or hidden for them;
/// a group message: not in a group thread the viewer is a member of, [`group::get`]).
pub fn get(conn: &Connection, viewer: i64, id: i64) -> rusqlite::Result<Option<Message>> {
    if let Some(g) = group::group_of(conn, id)? {
        return group::get(conn, viewer, g, id);
    }
    let row = conn
        .prepare_cached(sql!(
            "SELECT {MESSAGE_COLUMNS} FROM private_message m WHERE m.id = ?2 AND {VISIBLE}"
        ))?
        .query_row([viewer, id], message_row)
        .optional()?;
    Ok(messages(conn, row.into_iter().collect())?.pop())
}

/// Where a thread page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    /// The newest messages (older ones on the next pages), or those before a message.
    Newest { before: Option<i64> },
    /// The messages from this one on, oldest first.
    Oldest { from: i64 },
}

/// One page of thread `thread` as `viewer` sees it, oldest first on the page, and how
/// many messages the query matches. A keyset walk of `private_message_thread`; the
/// count is the viewer's kept one (`pm_member.visible`) for the newest page, that less
/// the messages from `before` on (what the reader walked back past) for an older one,
/// and the index range from `from` on for a forward page.
pub fn page(
    conn: &Connection,
    viewer: i64,
    thread: i64,
    start: From,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Message>)> {
    let (bound, order, key) = match start {
        From::Newest { before } => ("m.id < ?3", "DESC", before.unwrap_or(i64::MAX)),
        From::Oldest { from } => ("m.id >= ?3", "ASC", from),
    };
    let filter = format!("m.thread_id = ?2 AND {VISIBLE} AND {bound}");
    let range = |bound: &str, key: i64| -> rusqlite::Result<i64> {
        conn.prepare_cached(&format!(
            "SELECT count(*) FROM private_message m INDEXED BY private_message_thread
             WHERE m.thread_id = ?2 AND {VISIBLE} AND {bound}"
        ))?
        .query_row(params![viewer, thread, key], |r| r.get(0))
    };
    let kept = || -> rusqlite::Result<i64> {
        conn.prepare_cached("SELECT visible FROM pm_member WHERE user_id = ?1 AND thread_id = ?2")?
            .query_row([viewer, thread], |r| r.get(0))
            .optional()
            .map(Option::unwrap_or_default)
    };
    let count = match start {
        From::Newest { before: None } => kept()?,
        From::Newest { before: Some(b) } => (kept()? - range("m.id >= ?3", b)?).max(0),
        From::Oldest { from } => range("m.id >= ?3", from)?,
    };
    let rows: Vec<Row> = conn
        .prepare_cached(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM private_message m INDEXED BY private_message_thread
             WHERE {filter} ORDER BY m.id {order} LIMIT ?4 OFFSET ?5"
        ))?
        .query_map(params![viewer, thread, key, limit, offset], message_row)?
        .collect::<Result<_, _>>()?;
    let mut out = messages(conn, rows)?;
    if order == "DESC" {
        out.reverse();
    }
    Ok((count, out))
}

/// `user`'s unread messages in `thread`.
pub fn unread(conn: &Connection, user: i64, thread: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT unread FROM pm_member WHERE user_id = ?1 AND thread_id = ?2")?
        .query_row([user, thread], |r| r.get(0))
        .optional()
        .map(Option::unwrap_or_default)
}

/// Marks what `user` received in `thread` read, with its notifications; how many
/// messages were unread.
pub fn mark_read(conn: &Connection, user: i64, thread: i64) -> rusqlite::Result<usize> {
    let n = conn
        .prepare_cached(
            "UPDATE private_message SET is_read = 1
             WHERE thread_id = ?1 AND receiver_id = ?2 AND is_read = 0",
        )?
        .execute([thread, user])?;
    if n > 0 {
        conn.prepare_cached(
            "UPDATE notification SET is_new = 0 WHERE user_id = ?2 AND is_new = 1
               AND message_id IN (SELECT id FROM private_message WHERE thread_id = ?1)",
        )?
        .execute([thread, user])?;
        conn.prepare_cached(
            "UPDATE pm_member SET unread = 0 WHERE thread_id = ?1 AND user_id = ?2",
        )?
        .execute([thread, user])?;
    }
    Ok(n)
}

/// One page of `user`'s snippets, the most recent thread first, and how many threads
/// it has: a keyset walk of `pm_member_recent`, merged, `with_groups`, with the user's
/// group threads ([`group::snippets`]: O(the user's groups); the pair threads are then
/// read from the first, `offset + limit` of them).
pub fn snippets(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
    with_groups: bool,
) -> rusqlite::Result<(i64, Vec<Snippet>)> {
    let groups = if with_groups { group::snippets(conn, user)? } else { Vec::new() };
    if groups.is_empty() {
        return pair_snippets(conn, user, limit, offset);
    }
    let (count, mut all) = pair_snippets(conn, user, offset.saturating_add(limit), 0)?;
    let count = count + i64::try_from(groups.len()).unwrap_or(i64::MAX);
    all.extend(groups);
    all.sort_by_key(|s| std::cmp::Reverse((s.last.created_at, s.thread_id)));
    let skip = usize::try_from(offset).unwrap_or(usize::MAX);
    let take = usize::try_from(limit).unwrap_or(usize::MAX);
    Ok((count, all.into_iter().skip(skip).take(take).collect()))
}

/// One page of `user`'s pair threads' snippets, as [`snippets`] orders them.
fn pair_snippets(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Snippet>)> {
    let count: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM pm_member INDEXED BY pm_member_recent
             WHERE user_id = ?1 AND last_id IS NOT NULL",
        )?
        .query_row([user], |r| r.get(0))?;
    let rows: Vec<(i64, i64, i64)> = conn
        .prepare_cached(
            "SELECT thread_id, last_id, unread FROM pm_member INDEXED BY pm_member_recent
             WHERE user_id = ?1 AND last_id IS NOT NULL
             ORDER BY last_at DESC, thread_id DESC LIMIT ?2 OFFSET ?3",
        )?
        .query_map(params![user, limit, offset], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (thread_id, last, unread) in rows {
        if let Some(last) = get(conn, user, last)? {
            out.push(Snippet { thread_id, last, unread });
        }
    }
    Ok((count, out))
}

/// `user`'s snippet of `thread` (what a live push carries).
pub fn snippet(conn: &Connection, user: i64, thread: i64) -> rusqlite::Result<Option<Snippet>> {
    let row: Option<(Option<i64>, i64)> = conn
        .prepare_cached(
            "SELECT last_id, unread FROM pm_member WHERE user_id = ?1 AND thread_id = ?2",
        )?
        .query_row([user, thread], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((Some(last), unread)) = row else { return Ok(None) };
    Ok(get(conn, user, last)?.map(|last| Snippet { thread_id: thread, last, unread }))
}

/// `user` deletes message `id`: its sender takes it back for everyone (without a trace
/// when younger than a minute, else as a deleted message), its receiver hides it for
/// themselves. Snippets and unread counts follow; the receiver's notification goes, and
/// a taken-back message's file with its bytes. `false`: not a message `user` sees.
pub fn delete(conn: &Connection, user: i64, id: i64, now: Timestamp) -> rusqlite::Result<bool> {
    if let Some(g) = group::group_of(conn, id)? {
        return group::delete(conn, user, g, id, now);
    }
    let row: Option<(i64, i64, i64, Timestamp, bool, Option<String>)> = conn
        .prepare_cached(sql!(
            "SELECT m.thread_id, m.sender_id, m.receiver_id, m.created_at, m.withdrawn,
                    m.file_uuid
             FROM private_message m WHERE m.id = ?2 AND {VISIBLE}"
        ))?
        .query_row([user, id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
        })
        .optional()?;
    let Some((thread, sender, receiver, at, withdrawn, file)) = row else {
        return Ok(false);
    };
    conn.prepare_cached("DELETE FROM notification WHERE message_id = ?1")?.execute([id])?;
    // who stops seeing it: both sides that saw it, when it goes without a trace; the
    // caller, when they hide it
    let unseen = |side: i64| -> rusqlite::Result<()> {
        conn.prepare_cached(
            "UPDATE pm_member SET visible = visible - 1 WHERE thread_id = ?1 AND user_id = ?2",
        )?
        .execute([thread, side])?;
        Ok(())
    };
    if user == sender && !withdrawn {
        if now - at < WITHDRAW_WITHOUT_TRACE_US {
            let receiver_saw: bool = conn
                .prepare_cached("SELECT receiver_hidden = 0 FROM private_message WHERE id = ?1")?
                .query_row([id], |r| r.get(0))?;
            conn.prepare_cached("DELETE FROM private_message WHERE id = ?1")?.execute([id])?;
            unseen(sender)?;
            if receiver_saw {
                unseen(receiver)?;
            }
        } else {
            conn.prepare_cached(
                "UPDATE private_message SET withdrawn = 1, text = '', html = '', summary = '',
                   file_uuid = NULL WHERE id = ?1",
            )?
            .execute([id])?;
        }
        if let Some(f) = file {
            files::remove(conn, &f)?;
        }
    } else if user == sender {
        conn.prepare_cached("UPDATE private_message SET sender_hidden = 1 WHERE id = ?1")?
            .execute([id])?;
        unseen(sender)?;
    } else {
        conn.prepare_cached("UPDATE private_message SET receiver_hidden = 1 WHERE id = ?1")?
            .execute([id])?;
        unseen(receiver)?;
    }
    refresh(conn, thread, sender)?;
    refresh(conn, thread, receiver)?;
    Ok(true)
}

/// `user` deletes their thread with `other` for themselves: every message of it is
/// hidden for them and the thread leaves their snippets until a new message comes.
pub fn delete_thread(conn: &Connection, user: i64, thread: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE private_message SET sender_hidden = 1 WHERE thread_id = ?1 AND sender_id = ?2",
    )?
    .execute([thread, user])?;
    conn.prepare_cached(
        "UPDATE private_message SET receiver_hidden = 1 WHERE thread_id = ?1 AND receiver_id = ?2",
    )?
    .execute([thread, user])?;
    conn.prepare_cached(
        "DELETE FROM notification WHERE user_id = ?2
           AND message_id IN (SELECT id FROM private_message WHERE thread_id = ?1)",
    )?
    .execute([thread, user])?;
    conn.prepare_cached("UPDATE pm_member SET visible = 0 WHERE thread_id = ?1 AND user_id = ?2")?
        .execute([thread, user])?;
    refresh(conn, thread, user)
}

/// Recomputes `user`'s snippet of `thread` (its newest visible message, its unread
/// count) after messages left it: one backwards step of the thread index and one count
/// of what is unread (which only ever holds what came since the last read).
fn refresh(conn: &Connection, thread: i64, user: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(sql!(
        "UPDATE pm_member SET
           last_id = (SELECT m.id FROM private_message m WHERE m.thread_id = ?2 AND {VISIBLE}
                      ORDER BY m.id DESC LIMIT 1),
           last_at = (SELECT m.created_at FROM private_message m
                      WHERE m.thread_id = ?2 AND {VISIBLE} ORDER BY m.id DESC LIMIT 1),
           unread = (SELECT count(*) FROM private_message m WHERE m.thread_id = ?2
                      AND m.receiver_id = ?1 AND m.is_read = 0 AND m.withdrawn = 0
                      AND m.receiver_hidden = 0)
         WHERE user_id = ?1 AND thread_id = ?2"
    ))?
    .execute([user, thread])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    /// The plan of `sql` (every row's detail, joined).
    fn plan(sql: &str) -> String {
        let conn = crate::db::migrate::test_db();
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
    }

    #[test]
    fn a_thread_page_and_the_snippets_are_index_walks() {
        let thread = plan(&format!(
            "SELECT {} FROM private_message m INDEXED BY private_message_thread
             WHERE m.thread_id = 1 AND {} AND m.id < 99 ORDER BY m.id DESC LIMIT 20",
            super::MESSAGE_COLUMNS,
            super::VISIBLE.replace("?1", "7")
        ));
        assert!(
            thread.contains("USING INDEX private_message_thread (thread_id=? AND id<?)")
                && !thread.contains("TEMP B-TREE"),
            "{thread}"
        );
        // the newest page's count is the viewer's kept one: a primary-key read, never
        // the thread's index
        let count = plan("SELECT visible FROM pm_member WHERE user_id = 7 AND thread_id = 1");
        assert!(
            count.contains("SEARCH pm_member USING PRIMARY KEY (user_id=? AND thread_id=?)")
                && !count.contains("private_message"),
            "{count}"
        );
        let snippets = plan(
            "SELECT thread_id, last_id, unread FROM pm_member INDEXED BY pm_member_recent
             WHERE user_id = 7 AND last_id IS NOT NULL
             ORDER BY last_at DESC, thread_id DESC LIMIT 20",
        );
        assert!(
            snippets.contains("USING INDEX pm_member_recent (user_id=?)")
                && !snippets.contains("TEMP B-TREE"),
            "{snippets}"
        );
    }
}
