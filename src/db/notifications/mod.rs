//! Notifications (SPEC §10): written here, in the transaction of the event that causes
//! them, and taken out when the cause is undone. Never to the actor, never to a deleted
//! user or to one who hides the actor. `user.unseen_notifications` counts a user's new
//! ones (`schema.sql`'s triggers keep it; `hearth check` recounts it).
//!
//! Each recipient of a write is also remembered for the live socket ([`take_pushed`]):
//! the writer drains the list after its commit (and drops it on a rollback), so a push
//! never announces what was not committed.

pub mod list;
pub mod written;

use std::cell::RefCell;

use rusqlite::{Connection, params};

use crate::clock::Timestamp;
use crate::model::flag::Reason;

/// What a notification says happened (the kit's `SCNotificationTypologyType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// A comment on the recipient's item.
    Comment,
    /// A reply to the recipient's comment.
    NestedComment,
    /// The recipient was mentioned in an item or a comment.
    Mention,
    /// A vote on the recipient's item or comment.
    VoteUp,
    /// The actor follows the recipient.
    UserFollow,
    /// The actor asks the recipient for a connection.
    ConnectionRequest,
    /// The actor accepted the recipient's connection request.
    ConnectionAccept,
    /// A moderator deleted the recipient's contribution for a reason.
    DeletedFor(Reason),
    /// A moderator took back the deletion of the recipient's contribution.
    UndeletedFor,
    /// A moderator collapsed the recipient's contribution for a reason.
    CollapsedFor(Reason),
    /// A private message to the recipient (`notification.message_id`).
    PrivateMessage,
    /// A group's admin invited the recipient.
    GroupInvite,
    /// The actor asks to join a private group the recipient administers.
    GroupRequest,
    /// The actor, invited, joined a group the recipient administers.
    GroupAccept,
    /// A group's admin accepted the recipient's request: the recipient is a member.
    GroupAdded,
    /// An event's admin invited the recipient.
    EventInvite,
    /// The actor asks to join a private event the recipient administers.
    EventRequest,
    /// The actor, invited, joined an event the recipient administers.
    EventAccept,
    /// An event's admin accepted the recipient's request: the recipient is a member.
    EventAdded,
    /// A course's manager invited the recipient.
    CourseInvite,
    /// The actor asks to join a private course the recipient manages.
    CourseRequest,
    /// The actor, invited, joined a course the recipient manages.
    CourseAccept,
    /// A course's manager accepted the recipient's request: the recipient is a member.
    CourseAdded,
    /// The actor made the recipient a manager of a course.
    CourseManager,
    /// The actor commented on a lesson of a course the recipient manages.
    LessonComment,
}

impl Type {
    /// Its name in the table and in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            Type::Comment => "comment",
            Type::NestedComment => "nested_comment",
            Type::Mention => "mention",
            Type::VoteUp => "vote_up",
            Type::UserFollow => "user_follow",
            Type::ConnectionRequest => "connection_request",
            Type::ConnectionAccept => "connection_accept",
            Type::DeletedFor(r) => match r {
                Reason::Spam => "deleted_for_advertising",
                Reason::Aggressive => "deleted_for_aggressive",
                Reason::Vulgar => "deleted_for_vulgar",
                Reason::Poor => "deleted_for_poor",
                Reason::Offtopic => "deleted_for_offtopic",
            },
            Type::UndeletedFor => "undeleted_for",
            Type::PrivateMessage => "private_message",
            Type::GroupInvite => "user_invited_to_join_group",
            Type::GroupRequest => "user_requested_to_join_group",
            Type::GroupAccept => "user_accepted_to_join_group",
            Type::GroupAdded => "user_added_to_group",
            Type::EventInvite => "user_invited_to_join_event",
            Type::EventRequest => "user_requested_to_join_event",
            Type::EventAccept => "user_accepted_to_join_event",
            Type::EventAdded => "user_added_to_event",
            Type::CourseInvite => "user_invited_to_join_course",
            Type::CourseRequest => "user_requested_to_join_course",
            Type::CourseAccept => "user_accepted_to_join_course",
            Type::CourseAdded => "user_added_to_course",
            Type::CourseManager => "manager_added_to_course",
            Type::LessonComment => "user_commented_a_course_lesson",
            Type::CollapsedFor(r) => match r {
                Reason::Spam => "collapsed_for_advertising",
                Reason::Aggressive => "collapsed_for_aggressive",
                Reason::Vulgar => "collapsed_for_vulgar",
                Reason::Poor => "collapsed_for_poor",
                Reason::Offtopic => "collapsed_for_offtopic",
            },
        }
    }

    /// Every type.
    pub fn all() -> impl Iterator<Item = Type> {
        [
            Type::Comment,
            Type::NestedComment,
            Type::Mention,
            Type::VoteUp,
            Type::UserFollow,
            Type::ConnectionRequest,
            Type::ConnectionAccept,
            Type::UndeletedFor,
            Type::PrivateMessage,
            Type::GroupInvite,
            Type::GroupRequest,
            Type::GroupAccept,
            Type::GroupAdded,
            Type::EventInvite,
            Type::EventRequest,
            Type::EventAccept,
            Type::EventAdded,
            Type::CourseInvite,
            Type::CourseRequest,
            Type::CourseAccept,
            Type::CourseAdded,
            Type::CourseManager,
            Type::LessonComment,
        ]
        .into_iter()
        .chain(Reason::ALL.into_iter().map(Type::DeletedFor))
        .chain(Reason::ALL.into_iter().map(Type::CollapsedFor))
    }

    /// The type named `s`.
    pub fn parse(s: &str) -> Option<Type> {
        Type::all().find(|t| t.as_str() == s)
    }
}

/// One push for the live socket: a recipient and what it was notified of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pushed {
    pub user_id: i64,
    pub kind: Type,
    /// The notification's id, or a group thread's message's ([`Pushed::group_message`]).
    pub id: i64,
    /// A group thread's message, pushed without a notification row
    /// ([`push_group_message`]).
    pub group_message: bool,
}

thread_local! {
    /// The recipients of the running write transaction (the writer's thread).
    static PUSHED: RefCell<Vec<Pushed>> = const { RefCell::new(Vec::new()) };
}

/// The pushes of the transaction that just ended on this thread (empty them: call
/// after a commit to send them, after a rollback to drop them).
pub fn take_pushed() -> Vec<Pushed> {
    PUSHED.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// What one notification says: `actor` did `kind` to `user`'s `item_pk` (or its
/// comment `comment_pk`). What a cause writes and what undoing it takes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cause {
    pub user: i64,
    pub actor: i64,
    pub kind: Type,
    pub item_pk: Option<i64>,
    pub comment_pk: Option<i64>,
}

/// Notifies the cause's user, unless it is the actor itself, a deleted user, one who
/// hides the actor, one who may not see the item (made in a private group, or
/// addressed to tags it does not hold: [`crate::db::spaces::item_shown`]), or one who
/// stopped the item's notifications ([`crate::db::notification_offs`]).
pub fn notify(conn: &Connection, c: Cause, now: Timestamp) -> rusqlite::Result<()> {
    if let Some(item) = c.item_pk
        && (!crate::db::spaces::shows_item(conn, item, Some(c.user))?
            || crate::db::notification_offs::is_off(conn, c.user, item)?)
    {
        return Ok(());
    }
    insert(conn, c, Subject::None, now)
}

/// Pushes group thread message `message` to `user`'s open sockets once the running
/// write commits; writes no row (db::messages::group says why).
pub fn push_group_message(user: i64, message: i64) {
    PUSHED.with(|p| {
        p.borrow_mut().push(Pushed {
            user_id: user,
            kind: Type::PrivateMessage,
            id: message,
            group_message: true,
        })
    });
}

/// Notifies `user` of private message `message` from `actor` (as [`notify`]).
pub fn notify_message(
    conn: &Connection,
    user: i64,
    actor: i64,
    message: i64,
    now: Timestamp,
) -> rusqlite::Result<()> {
    let c = Cause { user, actor, kind: Type::PrivateMessage, item_pk: None, comment_pk: None };
    insert(conn, c, Subject::Message(message), now)
}

/// Notifies `user` that `actor` did `kind` about `group` (an invitation, a request, an
/// acceptance), with [`notify`]'s rules; the recipient sees the group (it is invited
/// to it, a member, or administers it).
pub fn notify_group(
    conn: &Connection,
    user: i64,
    actor: i64,
    kind: Type,
    group: i64,
    now: Timestamp,
) -> rusqlite::Result<()> {
    let c = Cause { user, actor, kind, item_pk: None, comment_pk: None };
    insert(conn, c, Subject::Group(group), now)
}

/// [`notify_group`] for an event: `actor` did `kind` about `event`.
pub fn notify_event(
    conn: &Connection,
    user: i64,
    actor: i64,
    kind: Type,
    event: i64,
    now: Timestamp,
) -> rusqlite::Result<()> {
    let c = Cause { user, actor, kind, item_pk: None, comment_pk: None };
    insert(conn, c, Subject::Event(event), now)
}

/// [`forget_group`] for an event.
pub fn forget_event(
    conn: &Connection,
    event: i64,
    kind: Type,
    recipient: Option<i64>,
    actor: Option<i64>,
) -> rusqlite::Result<()> {
    forget_about(conn, forget_sql!("event_id"), event, kind, (recipient, actor))
}

/// Notifies `user` that `actor` did `kind` about `course` (an invitation, a request,
/// an acceptance, a role; with `comment`, a comment on one of its lessons), with
/// [`notify`]'s rules.
pub fn notify_course(
    conn: &Connection,
    user: i64,
    actor: i64,
    kind: Type,
    (course, comment): (i64, Option<i64>),
    now: Timestamp,
) -> rusqlite::Result<()> {
    let c = Cause { user, actor, kind, item_pk: None, comment_pk: None };
    insert(conn, c, Subject::Course(course, comment), now)
}

/// [`forget_group`] for a course.
pub fn forget_course(
    conn: &Connection,
    course: i64,
    kind: Type,
    recipient: Option<i64>,
    actor: Option<i64>,
) -> rusqlite::Result<()> {
    forget_about(conn, forget_sql!("course_id"), course, kind, (recipient, actor))
}

/// The statement that takes out the notifications of a kind about one group, event or
/// course (`column` names it): to a recipient, by an actor, or both.
macro_rules! forget_sql {
    ($column:literal) => {
        concat!(
            "DELETE FROM notification WHERE ",
            $column,
            " = ?1 AND type = ?2
             AND (?3 IS NULL OR user_id = ?3) AND (?4 IS NULL OR actor_id = ?4)"
        )
    };
}
use forget_sql;

/// Runs a [`forget_sql`] statement for `id`.
fn forget_about(
    conn: &Connection,
    sql: &'static str,
    id: i64,
    kind: Type,
    (recipient, actor): (Option<i64>, Option<i64>),
) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute(params![id, kind.as_str(), recipient, actor])?;
    Ok(())
}

/// Takes out what `user` was told of course `course` as its manager (requests,
/// invitations accepted, lesson comments, and being made a manager): they no longer
/// manage it.
pub fn forget_managed(conn: &Connection, course: i64, user: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM notification WHERE course_id = ?1 AND user_id = ?2
         AND type IN ('user_requested_to_join_course', 'user_accepted_to_join_course',
                      'user_commented_a_course_lesson', 'manager_added_to_course')",
    )?
    .execute([course, user])?;
    Ok(())
}

/// What a notification is about besides an item: a group, an event, a private message,
/// or a course (and a comment on one of its lessons).
#[derive(Debug, Clone, Copy)]
enum Subject {
    None,
    Group(i64),
    Event(i64),
    Message(i64),
    Course(i64, Option<i64>),
}

/// Takes out the notifications of `kind` about `group` to `recipient` or by `actor`
/// (whichever are given: at least one, so that an index finds them): an invitation
/// answered or withdrawn, a request answered or taken back.
pub fn forget_group(
    conn: &Connection,
    group: i64,
    kind: Type,
    recipient: Option<i64>,
    actor: Option<i64>,
) -> rusqlite::Result<()> {
    forget_about(conn, forget_sql!("group_id"), group, kind, (recipient, actor))
}

fn insert(conn: &Connection, c: Cause, about: Subject, now: Timestamp) -> rusqlite::Result<()> {
    if c.user == c.actor {
        return Ok(());
    }
    let (group, event, message, course, lesson_comment) = match about {
        Subject::None => (None, None, None, None, None),
        Subject::Group(g) => (Some(g), None, None, None, None),
        Subject::Event(e) => (None, Some(e), None, None, None),
        Subject::Message(m) => (None, None, Some(m), None, None),
        Subject::Course(co, comment) => (None, None, None, Some(co), comment),
    };
    let wanted = conn
        .prepare_cached(
            "SELECT 1 FROM user u WHERE u.id = ?1 AND u.deleted = 0
             AND NOT EXISTS (SELECT 1 FROM user_hide h WHERE h.user_id = ?1 AND h.hidden_id = ?2)",
        )?
        .exists([c.user, c.actor])?;
    if !wanted {
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT INTO notification (user_id, type, actor_id, item_pk, comment_pk, created_at,
                                   group_id, event_id, message_id, course_id, lesson_comment_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        c.user,
        c.kind.as_str(),
        c.actor,
        c.item_pk,
        c.comment_pk,
        now,
        group,
        event,
        message,
        course,
        lesson_comment
    ])?;
    let id = conn.last_insert_rowid();
    PUSHED.with(|p| {
        p.borrow_mut().push(Pushed { user_id: c.user, kind: c.kind, id, group_message: false })
    });
    Ok(())
}

/// Takes out the notifications about contribution `pk` (a deleted item or comment: its
/// comments', votes' and mentions' notifications go with it).
pub fn forget_contribution(conn: &Connection, pk: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM notification WHERE comment_pk = ?1")?.execute([pk])?;
    conn.prepare_cached("DELETE FROM notification WHERE item_pk = ?1 AND comment_pk IS NULL")?
        .execute([pk])?;
    Ok(())
}

/// Takes out what a cause wrote (an unvote, an unfollow).
pub fn forget(conn: &Connection, c: Cause) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "DELETE FROM notification WHERE actor_id = ?1 AND type = ?2 AND user_id = ?3
         AND item_pk IS ?4 AND comment_pk IS ?5",
    )?
    .execute(params![c.actor, c.kind.as_str(), c.user, c.item_pk, c.comment_pk])?;
    Ok(())
}

/// The ids of the users a text mentions: the kit's `<mention id="N">` elements, as the
/// sanitizer keeps them (SPEC §5), each once, at most [`MENTIONS_MAX`].
pub fn mentioned(html: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for part in html.split("<mention").skip(1) {
        let Some(rest) = part.split_once("id=\"").map(|(_, r)| r) else { continue };
        let tag_end = part.find('>').unwrap_or(part.len());
        if part.len() - rest.len() > tag_end {
            continue; // the id belongs to a later element
        }
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(id) = digits.parse::<i64>()
            && !out.contains(&id)
        {
            out.push(id);
        }
        if out.len() == MENTIONS_MAX {
            break;
        }
    }
    out
}

/// The most users one text notifies by mentioning them.
pub const MENTIONS_MAX: usize = 20;

/// Marks every notification of `user` seen; how many were new.
pub fn mark_all_seen(conn: &Connection, user: i64) -> rusqlite::Result<usize> {
    conn.prepare_cached("UPDATE notification SET is_new = 0 WHERE user_id = ?1 AND is_new = 1")?
        .execute([user])
}

/// `user`'s unseen notifications (its kept counter).
pub fn unseen(conn: &Connection, user: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT unseen_notifications FROM user WHERE id = ?1")?
        .query_row([user], |r| r.get(0))
}

#[cfg(test)]
mod tests {
    use super::mentioned;

    #[test]
    fn mentions_are_the_kits_elements_each_once() {
        let html = r#"<p>hi <mention id="5" class="x">@bar</mention> and <mention id="7">@b</mention> <mention id="5">@bar</mention></p>"#;
        assert_eq!(mentioned(html), vec![5, 7]);
        assert_eq!(mentioned("<p>mention id=\"3\"</p>"), Vec::<i64>::new());
        assert_eq!(mentioned("<mention>x</mention><b id=\"4\">"), Vec::<i64>::new());
    }
}
