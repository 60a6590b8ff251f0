//! Writers for the people records of SPEC §10 (issues 32 and 33): `connection`,
//! `connection_request`, `flag`, `legal_page`, `legal_ack` and `private_message`. `schema.sql`'s triggers keep the users' connection counters, as
//! for the API. A deleted user has no connections and no requests (deleting one ends
//! them), so a line naming one is refused, as is a pair named twice.

use rusqlite::{Connection, params};

use super::{Known, LineError, content, sql_err};
use crate::clock::Timestamp;
use crate::model::flag::Reason;
use crate::model::import::{
    ConnectionLine, ConnectionRequestLine, FlagLine, ItemFollowLine, LegalAckLine, LegalPageLine,
    PrivateMessageLine,
};

/// Checks the two users of a connection or request line: both exist, live, distinct.
fn pair(
    known: &Known,
    (a, a_role): (i64, &str),
    (b, b_role): (i64, &str),
) -> Result<(), LineError> {
    known.user(a, a_role)?;
    known.user(b, b_role)?;
    if a == b {
        return Err(format!("{a_role} and {b_role} are the same user"));
    }
    for (id, role) in [(a, a_role), (b, b_role)] {
        if known.deleted_users.contains(&id) {
            return Err(format!("{role} {id} is deleted: a deleted user has no connections"));
        }
    }
    Ok(())
}

/// A connection line: both sides are written.
pub(super) fn connection(
    conn: &Connection,
    known: &Known,
    c: ConnectionLine,
    now: Timestamp,
) -> Result<(), LineError> {
    pair(known, (c.user, "user"), (c.other, "other"))?;
    let at = c.created_at.unwrap_or(now);
    let mut insert = conn
        .prepare_cached(
            "INSERT INTO connection (user_id, other_id, created_at) VALUES (?1, ?2, ?3)",
        )
        .map_err(|e| sql_err("connection", &e))?;
    for (a, b) in [(c.user, c.other), (c.other, c.user)] {
        insert.execute(params![a, b, at]).map_err(|e| {
            if crate::db::is_unique_violation(&e) {
                format!("users {} and {} are already connected", c.user, c.other)
            } else {
                sql_err("connection", &e)
            }
        })?;
    }
    Ok(())
}

/// A connection request line: one request per direction, none between connected users.
pub(super) fn connection_request(
    conn: &Connection,
    known: &Known,
    r: ConnectionRequestLine,
    now: Timestamp,
) -> Result<(), LineError> {
    pair(known, (r.from_user, "from_user"), (r.to_user, "to_user"))?;
    if crate::db::connections::is_connected(conn, r.from_user, r.to_user)
        .map_err(|e| sql_err("connection_request", &e))?
    {
        return Err(format!("users {} and {} are connected already", r.from_user, r.to_user));
    }
    conn.prepare_cached(
        "INSERT INTO connection_request (from_user, to_user, created_at, rejected_at, viewed_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .and_then(|mut s| {
        s.execute(params![
            r.from_user,
            r.to_user,
            r.created_at.unwrap_or(now),
            r.rejected_at,
            r.viewed_at
        ])
    })
    .map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("user {} already asked user {}", r.from_user, r.to_user)
        } else {
            sql_err("connection_request", &e)
        }
    })?;
    Ok(())
}

/// A flag line: the member and the contribution exist (a deleted contribution's flags
/// are history), the reason is 0–4, one flag per member and contribution; the
/// contribution enters the staff queue.
pub(super) fn flag(
    conn: &Connection,
    known: &Known,
    f: FlagLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let (kind, id) = f.target()?;
    known.user(f.user, "user")?;
    let reason = Reason::from_number(f.flag_type)
        .ok_or_else(|| format!("flag_type {} is not 0 to 4", f.flag_type))?;
    let pk =
        content::pk_of(conn, kind, id)?.ok_or_else(|| format!("{kind} {id} does not exist"))?;
    if crate::db::moderation::flag_of(conn, pk, f.user).map_err(|e| sql_err("flag", &e))?.is_some()
    {
        return Err(format!("user {} already flagged {kind} {id}", f.user));
    }
    crate::db::moderation::toggle_flag(conn, pk, f.user, reason, f.created_at.unwrap_or(now))
        .map_err(|e| sql_err("flag", &e))?;
    Ok(())
}

/// A member following an item, as `POST /{type}/{id}/follow/` makes it (once).
pub(super) fn item_follow(
    conn: &Connection,
    known: &Known,
    f: ItemFollowLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let (kind, id) = f.target()?;
    known.user(f.user, "user")?;
    let pk =
        content::pk_of(conn, kind, id)?.ok_or_else(|| format!("{kind} {id} does not exist"))?;
    let sql = |e: rusqlite::Error| sql_err("item_follow", &e);
    if crate::db::item_follows::follows(conn, f.user, pk).map_err(sql)? {
        return Err(format!("user {} already follows {kind} {id}", f.user));
    }
    crate::db::item_follows::toggle(conn, f.user, pk, f.created_at.unwrap_or(now)).map_err(sql)?;
    Ok(())
}

/// A legal page line: a revision of `tec` or `privacy` with its id, its body through the
/// rich-text sanitizer as staff's are.
pub(super) fn legal_page(
    conn: &Connection,
    p: LegalPageLine,
    now: Timestamp,
) -> Result<(), LineError> {
    use crate::model::legal::{BODY_MAX, POLICIES, TITLE_MAX};
    if !POLICIES.contains(&p.policy.as_str()) {
        return Err(format!("policy {:?} is not tec or privacy", p.policy));
    }
    if p.title.trim().is_empty() || p.title.chars().count() > TITLE_MAX {
        return Err(format!("title must be 1 to {TITLE_MAX} characters"));
    }
    if p.body.len() > BODY_MAX {
        return Err(format!("body is more than {BODY_MAX} bytes"));
    }
    let r = crate::model::rich_text::render(&p.body);
    let created = p.created_at.unwrap_or(now);
    conn.prepare_cached(
        "INSERT INTO legal_page (id, policy, title, body, html_body, html_summary, valid_from, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )
    .and_then(|mut s| {
        s.execute(params![
            p.id,
            p.policy,
            p.title.trim(),
            p.body,
            r.html,
            r.summary_html,
            p.valid_from.unwrap_or(created),
            created
        ])
    })
    .map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("legal page {} already exists", p.id)
        } else {
            sql_err("legal_page", &e)
        }
    })?;
    Ok(())
}

/// A legal ack line: the member and the revision exist, one answer each.
pub(super) fn legal_ack(
    conn: &Connection,
    known: &Known,
    a: LegalAckLine,
) -> Result<(), LineError> {
    known.user(a.user, "user")?;
    let page = crate::db::legal::get(conn, a.page).map_err(|e| sql_err("legal_ack", &e))?;
    if page.is_none() {
        return Err(format!("legal page {} does not exist", a.page));
    }
    if a.accepted_at.is_some() == a.not_accepted_at.is_some() {
        return Err("a legal_ack needs exactly one of accepted_at, not_accepted_at".into());
    }
    conn.prepare_cached(
        "INSERT INTO legal_ack (page_id, user_id, accepted_at, not_accepted_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![a.page, a.user, a.accepted_at, a.not_accepted_at]))
    .map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("user {} already answered legal page {}", a.user, a.page)
        } else {
            sql_err("legal_ack", &e)
        }
    })?;
    Ok(())
}

/// A private message line: two distinct users who exist (a deleted user's messages stay
/// in the other's thread, as after a deletion through the API), or a group's member and
/// the group; a text the API would take; the thread, the snippets and the unread counts
/// follow, and no one is notified.
pub(super) fn private_message(
    conn: &Connection,
    known: &Known,
    m: PrivateMessageLine,
    now: Timestamp,
) -> Result<(), LineError> {
    known.user(m.sender, "sender")?;
    /// Where the line's message goes.
    enum To {
        User(i64),
        Group(i64),
    }
    let to = match (m.receiver, m.group) {
        (Some(r), None) => {
            known.user(r, "receiver")?;
            if m.sender == r {
                return Err("sender and receiver are the same user".to_owned());
            }
            To::User(r)
        }
        (None, Some(g)) => {
            // a member's message in a live group (as the API takes it)
            let status =
                crate::db::members::status(conn, crate::db::members::Roster::Group, g, m.sender)
                    .map_err(|e| sql_err("private_message", &e))?;
            if !crate::db::groups::is_member(status) {
                return Err(format!("the sender is not a member of group {g}"));
            }
            To::Group(g)
        }
        _ => return Err("a message has either a receiver or a group".to_owned()),
    };
    let max = crate::model::message::MESSAGE_MAX;
    if m.message.chars().count() > max {
        return Err(format!("message has more than {max} characters"));
    }
    if crate::model::rich_text::plain(&m.message).trim().is_empty() {
        return Err("message is empty".to_owned());
    }
    let rendered = crate::model::rich_text::render(&m.message);
    let at = m.created_at.unwrap_or(now);
    match to {
        To::User(r) => {
            crate::db::messages::write(conn, m.sender, r, &m.message, &rendered, None, at, m.read)
                .map(drop)
        }
        To::Group(g) => {
            let group_write = crate::db::messages::group::write;
            group_write(conn, g, m.sender, &m.message, &rendered, None, at, m.read).map(drop)
        }
    }
    .map_err(|e| sql_err("private_message", &e))?;
    Ok(())
}
