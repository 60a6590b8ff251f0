//! A user's notifications as the kit's notification pages read them: newest first,
//! each with its actor, item and comment, without those whose actor the user hides or
//! whose actor is deleted. A page is a walk of `notification_user`.

use rusqlite::{Connection, params};

use super::Type;
use crate::clock::Timestamp;
use crate::db::course_view::View as CourseView;
use crate::db::lesson_comments::Authored;
use crate::model::category::Category;
use crate::model::contribution::Contribution;
use crate::model::event::EventSeen;
use crate::model::group::GroupSeen;
use crate::model::message::{Message, Snippet};
use crate::model::user::User;

/// One notification as read.
#[derive(Debug, Clone)]
pub struct Note {
    pub id: i64,
    pub kind: Type,
    pub actor: User,
    pub item: Option<Contribution>,
    pub comment: Option<Contribution>,
    /// The group it is about, the recipient's status in it, and its creator.
    pub group: Option<GroupSeen>,
    /// The event it is about, the recipient's status in it, and its creator.
    pub event: Option<EventSeen>,
    /// A private message's notification: the message, and the recipient's snippet of
    /// its thread.
    pub message: Option<(Message, Option<Snippet>)>,
    /// The course it is about as the recipient sees it, with its categories.
    pub course: Option<(CourseView, Vec<Category>)>,
    /// A lesson comment's notification: the comment and its author.
    pub lesson_comment: Option<Authored>,
    pub at: Timestamp,
    pub is_new: bool,
}

/// The most notifications a list counts (the pagination's offset cap).
pub const COUNT_CAP: i64 = 10_000;

/// A row: id, type, actor, item, comment, time, new, group, event, message, course,
/// lesson comment.
type Row = (
    i64,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Timestamp,
    bool,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// The rows `user` is shown: the condition on `n` (`?1` the user): not from a hidden
/// or deleted actor, and never about an item or a group the user may not see (the
/// groups' rules, `db::groups`), nor about a course they may not see ([`COURSE_SHOWN`]).
fn shown() -> &'static str {
    sql!(
        "n.user_id = ?1
    AND NOT EXISTS (SELECT 1 FROM user_hide h WHERE h.user_id = ?1 AND h.hidden_id = n.actor_id)
    AND EXISTS (SELECT 1 FROM user a WHERE a.id = n.actor_id AND a.deleted = 0)
    AND (n.item_pk IS NULL OR EXISTS (SELECT 1 FROM contribution c WHERE c.pk = n.item_pk AND {}))
    AND (n.group_id IS NULL OR EXISTS (SELECT 1 FROM community_group g WHERE g.id = n.group_id AND {}))
    AND (n.event_id IS NULL OR EXISTS (SELECT 1 FROM event e WHERE e.id = n.event_id AND {}))
    AND (n.course_id IS NULL OR EXISTS (SELECT 1 FROM course co WHERE co.id = n.course_id AND {}))",
        crate::db::spaces::item_shown(1),
        crate::db::groups::visible(1),
        crate::db::events::visible(1),
        COURSE_SHOWN
    )
}

/// The SQL condition that course `co` is one a notification to `?1` may show: live, and
/// visible to them (`model::course::visible`: open and private to everyone, secret to
/// its members and invited users, a draft to its managers); and for the managers'
/// notifications (a request, an invitation accepted, a lesson comment), that `?1` still
/// manages it.
const COURSE_SHOWN: &str = "co.deleted = 0
    AND (co.privacy IN ('open', 'private') OR EXISTS (SELECT 1 FROM course_member cm
           WHERE cm.course_id = co.id AND cm.user_id = ?1
             AND (cm.join_status IN ('creator', 'manager')
                  OR (co.privacy = 'secret' AND cm.join_status IN ('joined', 'invited')))))
    AND (n.type NOT IN ('user_requested_to_join_course', 'user_accepted_to_join_course',
                        'user_commented_a_course_lesson')
         OR EXISTS (SELECT 1 FROM course_member cm WHERE cm.course_id = co.id
           AND cm.user_id = ?1 AND cm.join_status IN ('creator', 'manager')))";

/// One page of `user`'s notifications, newest first, and how many it has (up to
/// 10,000).
pub fn page(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Note>)> {
    // counted up to the pagination's offset cap: a page past it is refused anyway,
    // and a member's notifications only grow
    let count: i64 = conn
        .prepare_cached(sql!(
            "SELECT count(*) FROM (SELECT 1 FROM notification n INDEXED BY notification_user
             WHERE {} LIMIT {})",
            shown(),
            COUNT_CAP
        ))?
        .query_row([user], |r| r.get(0))?;
    let rows: Vec<Row> = conn
        .prepare_cached(sql!(
            "SELECT n.id, n.type, n.actor_id, n.item_pk, n.comment_pk, n.created_at, n.is_new,
                    n.group_id, n.event_id, n.message_id, n.course_id, n.lesson_comment_id
             FROM notification n INDEXED BY notification_user WHERE {}
             ORDER BY n.id DESC LIMIT ?2 OFFSET ?3",
            shown()
        ))?
        .query_map(params![user, limit, offset], |r| {
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
                r.get(9)?,
                r.get(10)?,
                r.get(11)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, kind, actor, item, comment, at, is_new, group, event, message, course, lc) in rows {
        let Some(kind) = Type::parse(&kind) else { continue };
        let Some(actor) = super::super::users::get(conn, actor)? else { continue };
        let load = |pk: Option<i64>| -> rusqlite::Result<Option<Contribution>> {
            Ok(match pk {
                Some(pk) => super::super::contributions::by_pks(conn, &[pk], Some(user))?.pop(),
                None => None,
            })
        };
        let group = match group {
            Some(g) => crate::db::groups::seen_by(conn, g, Some(user))?,
            None => None,
        };
        let event = match event {
            Some(e) => crate::db::events::seen_by(conn, e, Some(user))?,
            None => None,
        };
        let message = match message {
            Some(m) => match super::super::messages::get(conn, user, m)? {
                Some(m) => {
                    let snippet = super::super::messages::snippet(conn, user, m.thread_id)?;
                    Some((m, snippet))
                }
                // a message the recipient no longer sees tells nothing
                None => continue,
            },
            None => None,
        };
        let course = match course {
            // shown: the course is there and visible to the recipient (COURSE_SHOWN)
            Some(co) => match crate::db::course_view::view(conn, co, Some(user))? {
                Some(v) => {
                    let ids = v.extras.category_ids.clone();
                    Some((v, crate::db::categories::with_ids(conn, &ids, Some(user))?))
                }
                None => continue,
            },
            None => None,
        };
        let lesson_comment = match lc {
            Some(c) => match crate::db::lesson_comments::by_id(conn, c)? {
                Some(c) => Some(c),
                None => continue,
            },
            None => None,
        };
        out.push(Note {
            id,
            kind,
            actor,
            item: load(item)?,
            comment: load(comment)?,
            group,
            event,
            message,
            course,
            lesson_comment,
            at,
            is_new,
        });
    }
    Ok((count, out))
}

/// Marks the notifications `ids` of `user` seen (others' ids change nothing); how many
/// were new.
pub fn mark_seen(conn: &Connection, user: i64, ids: &[i64]) -> rusqlite::Result<usize> {
    let mut stmt = conn.prepare_cached(
        "UPDATE notification SET is_new = 0 WHERE id = ?1 AND user_id = ?2 AND is_new = 1",
    )?;
    let mut n = 0;
    for id in ids {
        n += stmt.execute([*id, user])?;
    }
    Ok(n)
}

/// Notification `id` of `user` as the list shows it (`None` when it is gone or not
/// shown): what a live push carries.
pub fn one(conn: &Connection, user: i64, id: i64) -> rusqlite::Result<Option<Note>> {
    let offset: Option<i64> = conn
        .prepare_cached(sql!(
            "SELECT count(*) FROM notification n WHERE {} AND n.id > ?2",
            shown()
        ))?
        .query_row(params![user, id], |r| r.get(0))
        .ok();
    let Some(offset) = offset else { return Ok(None) };
    let (_, mut notes) = page(conn, user, 1, offset)?;
    Ok(notes.pop().filter(|n| n.id == id))
}
