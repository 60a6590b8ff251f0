//! A group's thread (SPEC §10, the kit's `?group=` threads): the messages of a group's
//! members to one another, `private_message` rows with `group_id` set.
//!
//! A message costs O(1) rows whatever the group's size: the row, and its thread's head
//! (`pm_group_thread`: newest message, how many). What each member has read, deleted
//! for themselves ("delete the thread for me") and hidden one by one are marks of their
//! own (`pm_group_member`, made the first time they need one; `pm_group_hidden`), so a
//! member who never opens the thread costs nothing. The counts follow from them:
//! a member sees `messages - cleared - hidden` messages (the thread read's count) and
//! has unread the messages of others past their read mark (counted from the index,
//! O(unread)). Live delivery pushes each message to the open sockets of the members
//! (no notification row: [`send`]).
//!
//! Who: the group's members (creator, managers, joined) of a live group; a member who
//! leaves loses the thread, and finds it again, with their marks, on rejoining.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::db::groups;
use crate::model::message::{Message, Snippet, WITHDRAW_WITHOUT_TRACE_US, group_thread_id};
use crate::model::rich_text::Rendered;

/// Why a caller may not use a group's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// No such live group that the caller may see (404, as the group's detail).
    Unknown,
    /// The caller sees the group and is not a member of it (403).
    NotMember,
}

/// Whether `user` may read and write group `group`'s thread: a live group they are a
/// member of (the rule of a group's items: [`groups::is_member`]).
pub fn access(conn: &Connection, group: i64, user: i64) -> rusqlite::Result<Result<(), Refused>> {
    Ok(match groups::seen(conn, group, Some(user))? {
        None => Err(Refused::Unknown),
        Some((g, _)) if g.deleted => Err(Refused::Unknown),
        Some((_, status)) if !groups::is_member(status) => Err(Refused::NotMember),
        Some(_) => Ok(()),
    })
}

/// The group of message `id`, when it is a group thread's.
pub fn group_of(conn: &Connection, id: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT group_id FROM private_message WHERE id = ?1")?
        .query_row([id], |r| r.get::<_, Option<i64>>(0))
        .optional()
        .map(Option::flatten)
}

/// A member's marks in a group's thread (all zero before their first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Marks {
    pub read_id: i64,
    pub cleared_id: i64,
    pub cleared: i64,
    pub hidden: i64,
}

/// `user`'s marks in `group`'s thread; the read mark is at least the thread's read floor
/// (what an import wrote as read).
pub fn marks(conn: &Connection, group: i64, user: i64) -> rusqlite::Result<Marks> {
    let mut m = conn
        .prepare_cached(
            "SELECT read_id, cleared_id, cleared, hidden FROM pm_group_member
             WHERE user_id = ?1 AND group_id = ?2",
        )?
        .query_row([user, group], |r| {
            Ok(Marks {
                read_id: r.get(0)?,
                cleared_id: r.get(1)?,
                cleared: r.get(2)?,
                hidden: r.get(3)?,
            })
        })
        .optional()?
        .unwrap_or_default();
    let floor: Option<i64> = conn
        .prepare_cached("SELECT read_floor FROM pm_group_thread WHERE group_id = ?1")?
        .query_row([group], |r| r.get(0))
        .optional()?;
    m.read_id = m.read_id.max(floor.unwrap_or(0));
    Ok(m)
}

/// `user`'s marks row in `group`'s thread, made when new.
fn ensure_marks(conn: &Connection, group: i64, user: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO pm_group_member (group_id, user_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
    )?
    .execute([group, user])?;
    Ok(())
}

/// A group thread's head: its newest message (id, time) and how many it has.
fn head(conn: &Connection, group: i64) -> rusqlite::Result<Option<(Option<i64>, i64)>> {
    conn.prepare_cached("SELECT last_id, messages FROM pm_group_thread WHERE group_id = ?1")?
        .query_row([group], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
}

/// Writes a message from `from` (a member: [`access`]) in `group`'s thread with its
/// rendered text and file ([`super::files::usable`]), moves the head to it, and pushes
/// it to the members' open sockets; answers its id. No notification row is written:
/// a group's thread is a conversation its members open, and one row per member per
/// message would make a flood from one member cost O(members) rows a message. The
/// unread counts come from each member's read mark instead.
pub fn send(
    conn: &Connection,
    group: i64,
    from: i64,
    text: &str,
    rendered: &Rendered,
    file: Option<&str>,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    let id = write(conn, group, from, text, rendered, file, now, false)?;
    let members: Vec<i64> = conn
        .prepare_cached(
            "SELECT user_id FROM group_member INDEXED BY group_member_status
             WHERE group_id = ?1 AND join_status IN ('creator', 'manager', 'joined')
               AND user_id <> ?2",
        )?
        .query_map([group, from], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for m in members {
        crate::db::notifications::push_group_message(m, id);
    }
    Ok(id)
}

/// Writes a message in `group`'s thread and moves its head (with `read`, its read floor
/// too: read for every member); pushes nothing (the import's writer; [`send`] for the
/// API's).
#[expect(clippy::too_many_arguments, reason = "a message's fields, each its own column")]
pub fn write(
    conn: &Connection,
    group: i64,
    from: i64,
    text: &str,
    rendered: &Rendered,
    file: Option<&str>,
    at: Timestamp,
    read: bool,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO private_message
           (group_id, sender_id, text, html, summary, file_uuid, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![group, from, text, rendered.html, rendered.summary, file, at])?;
    let id = conn.last_insert_rowid();
    conn.prepare_cached(
        "INSERT INTO pm_group_thread (group_id, last_id, last_at, messages, read_floor)
         VALUES (?1, ?2, ?3, 1, CASE WHEN ?4 THEN ?2 ELSE 0 END)
         ON CONFLICT (group_id) DO UPDATE SET last_id = excluded.last_id,
           last_at = excluded.last_at, messages = messages + 1,
           read_floor = CASE WHEN ?4 THEN excluded.last_id ELSE read_floor END",
    )?
    .execute(params![group, id, at, read])?;
    // the sender has read everything up to what they wrote
    ensure_marks(conn, group, from)?;
    conn.prepare_cached(
        "UPDATE pm_group_member SET read_id = ?3 WHERE user_id = ?1 AND group_id = ?2",
    )?
    .execute(params![from, group, id])?;
    Ok(id)
}

/// The condition that message `m` of group `?2` is one member `?1` sees, whose
/// cleared mark is `?3`.
const VISIBLE: &str =
    "m.group_id = ?2 AND m.id > ?3 AND NOT EXISTS (SELECT 1 FROM pm_group_hidden h
    WHERE h.user_id = ?1 AND h.group_id = ?2 AND h.message_id = m.id)";

/// The columns of a group message row.
const COLUMNS: &str = "m.id, m.sender_id, m.html, m.created_at, m.withdrawn, m.file_uuid";

/// A group message row.
type Row = (i64, i64, String, Timestamp, bool, Option<String>);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
}

/// Rows of `group`'s thread made messages as `viewer` (whose marks are `marks`) reads
/// them: a message of a member the viewer hides (SPEC §8) shows as a deleted one.
fn messages(
    conn: &Connection,
    viewer: i64,
    group: i64,
    marks: Marks,
    rows: Vec<Row>,
) -> rusqlite::Result<Vec<Message>> {
    let Some(seen) = groups::seen_by(conn, group, Some(viewer))? else { return Ok(Vec::new()) };
    let mut users = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(rows.len());
    for (id, sender, html, created_at, withdrawn, file) in rows {
        if let std::collections::hash_map::Entry::Vacant(e) = users.entry(sender)
            && let Some(user) = crate::db::users::get(conn, sender)?
        {
            let hidden = sender != viewer && crate::db::hides::is_hiding(conn, viewer, sender)?;
            e.insert((user, hidden));
        }
        let Some((user, hidden)) = users.get(&sender) else { continue };
        let file = match file {
            Some(uuid) if !hidden => super::files::get(conn, &uuid)?,
            _ => None,
        };
        out.push(Message {
            id,
            thread_id: group_thread_id(group),
            sender: user.clone(),
            receiver: None,
            group: Some(seen.clone()),
            html: if *hidden { String::new() } else { html },
            created_at,
            is_read: sender == viewer || id <= marks.read_id.max(marks.cleared_id),
            withdrawn: withdrawn || *hidden,
            file,
        });
    }
    Ok(out)
}

/// Message `id` of `group`'s thread as `viewer` sees it (`None`: not a member, or not
/// a message they see).
pub fn get(
    conn: &Connection,
    viewer: i64,
    group: i64,
    id: i64,
) -> rusqlite::Result<Option<Message>> {
    if access(conn, group, viewer)?.is_err() {
        return Ok(None);
    }
    let marks = marks(conn, group, viewer)?;
    let r = conn
        .prepare_cached(sql!(
            "SELECT {COLUMNS} FROM private_message m WHERE m.id = ?4 AND {VISIBLE}"
        ))?
        .query_row(params![viewer, group, marks.cleared_id, id], row)
        .optional()?;
    Ok(messages(conn, viewer, group, marks, r.into_iter().collect())?.pop())
}

/// How many messages of `group`'s thread `viewer` sees: kept, never counted.
pub fn visible(conn: &Connection, viewer: i64, group: i64) -> rusqlite::Result<i64> {
    let total = head(conn, group)?.map_or(0, |(_, n)| n);
    let m = marks(conn, group, viewer)?;
    Ok((total - m.cleared - m.hidden).max(0))
}

/// One page of `group`'s thread as `viewer` (a member) sees it, oldest first on the
/// page, and how many messages the query matches, as [`super::page`] counts them: a
/// keyset walk of `private_message_group`.
pub fn page(
    conn: &Connection,
    viewer: i64,
    group: i64,
    start: super::From,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Message>)> {
    let marks = marks(conn, group, viewer)?;
    // one lower bound on the id (SQLite walks the index from one), one upper
    let after = |from: i64| marks.cleared_id.max(from.saturating_sub(1));
    let (lower, upper, order) = match start {
        super::From::Newest { before } => (marks.cleared_id, before.unwrap_or(i64::MAX), "DESC"),
        super::From::Oldest { from } => (after(from), i64::MAX, "ASC"),
    };
    let from_on = |from: i64| -> rusqlite::Result<i64> {
        conn.prepare_cached(sql!(
            "SELECT count(*) FROM private_message m INDEXED BY private_message_group
             WHERE {VISIBLE}"
        ))?
        .query_row(params![viewer, group, after(from)], |r| r.get(0))
    };
    let count = match start {
        super::From::Newest { before: None } => visible(conn, viewer, group)?,
        super::From::Newest { before: Some(b) } => {
            (visible(conn, viewer, group)? - from_on(b)?).max(0)
        }
        super::From::Oldest { from } => from_on(from)?,
    };
    let rows: Vec<Row> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM private_message m INDEXED BY private_message_group
             WHERE {VISIBLE} AND m.id < ?4 ORDER BY m.id {order} LIMIT ?5 OFFSET ?6"
        ))?
        .query_map(params![viewer, group, lower, upper, limit, offset], row)?
        .collect::<Result<_, _>>()?;
    let mut out = messages(conn, viewer, group, marks, rows)?;
    if order == "DESC" {
        out.reverse();
    }
    Ok((count, out))
}

/// The most unread messages counted in a group's thread: a member who never opened a
/// large group's thread would otherwise cost a count of all of it on every snippet list.
pub const UNREAD_MAX: i64 = 999;

/// `user`'s unread messages in `group`'s thread, up to [`UNREAD_MAX`]: the others' live
/// messages past their read mark that they see, but those of members they hide.
/// O(unread), from the index (its one lower bound: the later of the two marks).
pub fn unread(conn: &Connection, user: i64, group: i64) -> rusqlite::Result<i64> {
    let m = marks(conn, group, user)?;
    conn.prepare_cached(sql!(
        "SELECT count(*) FROM (SELECT 1 FROM private_message m INDEXED BY private_message_group
         WHERE {VISIBLE} AND m.sender_id <> ?1 AND m.withdrawn = 0
           AND NOT EXISTS (SELECT 1 FROM user_hide u WHERE u.user_id = ?1 AND u.hidden_id = m.sender_id)
         LIMIT ?4)"
    ))?
    .query_row(params![user, group, m.cleared_id.max(m.read_id), UNREAD_MAX], |r| r.get(0))
}

/// Marks `group`'s thread read for `user` up to its newest message; whether anything
/// was unread.
pub fn mark_read(conn: &Connection, user: i64, group: i64) -> rusqlite::Result<bool> {
    let Some((Some(last), _)) = head(conn, group)? else { return Ok(false) };
    if marks(conn, group, user)?.read_id >= last {
        return Ok(false);
    }
    ensure_marks(conn, group, user)?;
    conn.prepare_cached(
        "UPDATE pm_group_member SET read_id = ?3 WHERE user_id = ?1 AND group_id = ?2",
    )?
    .execute(params![user, group, last])?;
    Ok(true)
}

/// `user` deletes `group`'s thread for themselves: what it holds now is gone for them
/// (their single hides with it), and it leaves their snippets until a new message.
pub fn delete_thread(conn: &Connection, user: i64, group: i64) -> rusqlite::Result<()> {
    let Some((Some(last), total)) = head(conn, group)? else { return Ok(()) };
    ensure_marks(conn, group, user)?;
    conn.prepare_cached("DELETE FROM pm_group_hidden WHERE user_id = ?1 AND group_id = ?2")?
        .execute([user, group])?;
    conn.prepare_cached(
        "UPDATE pm_group_member SET cleared_id = ?3, cleared = ?4, hidden = 0,
           read_id = max(read_id, ?3)
         WHERE user_id = ?1 AND group_id = ?2",
    )?
    .execute(params![user, group, last, total])?;
    Ok(())
}

/// `user` deletes message `id` of `group`'s thread: its sender takes it back for
/// everyone (without a trace when younger than a minute, else as a deleted message),
/// anyone else (or its sender, once taken back) hides it for themselves. `false`: not
/// a message `user` sees (or not a member any more).
pub fn delete(
    conn: &Connection,
    user: i64,
    group: i64,
    id: i64,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    if access(conn, group, user)?.is_err() {
        return Ok(false);
    }
    let marks = marks(conn, group, user)?;
    let r: Option<(i64, Timestamp, bool, Option<String>)> = conn
        .prepare_cached(sql!(
            "SELECT m.sender_id, m.created_at, m.withdrawn, m.file_uuid
             FROM private_message m WHERE m.id = ?4 AND {VISIBLE}"
        ))?
        .query_row(params![user, group, marks.cleared_id, id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let Some((sender, at, withdrawn, file)) = r else { return Ok(false) };
    if user != sender || withdrawn {
        ensure_marks(conn, group, user)?;
        conn.prepare_cached(
            "INSERT INTO pm_group_hidden (user_id, group_id, message_id) VALUES (?1, ?2, ?3)",
        )?
        .execute([user, group, id])?;
        conn.prepare_cached(
            "UPDATE pm_group_member SET hidden = hidden + 1 WHERE user_id = ?1 AND group_id = ?2",
        )?
        .execute([user, group])?;
        return Ok(true);
    }
    if now - at >= WITHDRAW_WITHOUT_TRACE_US {
        conn.prepare_cached(
            "UPDATE private_message SET withdrawn = 1, text = '', html = '', summary = '',
               file_uuid = NULL WHERE id = ?1",
        )?
        .execute([id])?;
    } else {
        // gone: out of every member's counts that held it
        conn.prepare_cached(
            "UPDATE pm_group_member SET hidden = hidden - 1 WHERE group_id = ?2
               AND user_id IN (SELECT user_id FROM pm_group_hidden WHERE message_id = ?1)",
        )?
        .execute([id, group])?;
        conn.prepare_cached("DELETE FROM pm_group_hidden WHERE message_id = ?1")?.execute([id])?;
        conn.prepare_cached(
            "UPDATE pm_group_member SET cleared = cleared - 1 WHERE group_id = ?2 AND cleared_id >= ?1",
        )?
        .execute([id, group])?;
        conn.prepare_cached("DELETE FROM private_message WHERE id = ?1")?.execute([id])?;
        conn.prepare_cached(
            "UPDATE pm_group_thread SET messages = messages - 1,
               last_id = (SELECT max(m.id) FROM private_message m INDEXED BY private_message_group
                          WHERE m.group_id = ?1),
               last_at = (SELECT m.created_at FROM private_message m WHERE m.id =
                          (SELECT max(p.id) FROM private_message p WHERE p.group_id = ?1))
             WHERE group_id = ?1",
        )?
        .execute([group])?;
    }
    if let Some(f) = file {
        super::files::remove(conn, &f)?;
    }
    Ok(true)
}

/// `user`'s snippets of group threads: each group they are a member of whose thread
/// holds a message they see, with its newest such message and their unread count.
/// O(the user's groups), each a step back along the index.
pub fn snippets(conn: &Connection, user: i64) -> rusqlite::Result<Vec<Snippet>> {
    let threads: Vec<i64> = conn
        .prepare_cached(
            "SELECT t.group_id FROM group_member gm
             JOIN pm_group_thread t ON t.group_id = gm.group_id
             JOIN community_group g ON g.id = gm.group_id AND g.deleted = 0
             LEFT JOIN pm_group_member pm ON pm.user_id = gm.user_id AND pm.group_id = gm.group_id
             WHERE gm.user_id = ?1 AND gm.join_status IN ('creator', 'manager', 'joined')
               AND t.last_id > coalesce(pm.cleared_id, 0)",
        )?
        .query_map([user], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(threads.len());
    for group in threads {
        if let Some(s) = snippet(conn, user, group)? {
            out.push(s);
        }
    }
    Ok(out)
}

/// `user`'s snippet of `group`'s thread (what a live push carries).
pub fn snippet(conn: &Connection, user: i64, group: i64) -> rusqlite::Result<Option<Snippet>> {
    let (_, mut rows) = page(conn, user, group, super::From::Newest { before: None }, 1, 0)?;
    let Some(last) = rows.pop() else { return Ok(None) };
    Ok(Some(Snippet {
        thread_id: group_thread_id(group),
        last,
        unread: unread(conn, user, group)?,
    }))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    #[test]
    fn a_group_thread_page_walks_its_index() {
        let conn = crate::db::migrate::test_db();
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT {} FROM private_message m INDEXED BY private_message_group
             WHERE {} AND m.id < 99 ORDER BY m.id DESC LIMIT 20",
            super::COLUMNS,
            super::VISIBLE.replace("?1", "7").replace("?2", "3").replace("?3", "0")
        );
        let mut stmt = conn.prepare(&sql).unwrap();
        let plan: Vec<String> =
            stmt.query_map([], |r| r.get(3)).unwrap().map(Result::unwrap).collect();
        let plan = plan.join("; ");
        assert!(
            plan.contains("USING INDEX private_message_group (group_id=? AND id>? AND id<?)")
                && !plan.contains("TEMP B-TREE"),
            "{plan}"
        );
    }
}
