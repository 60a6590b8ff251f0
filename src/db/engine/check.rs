//! `hearth check`: SQLite's integrity check plus hearth's own invariants.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::db::DbError;
use crate::db::integrity::integrity;

/// One thing `hearth check` found wrong.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// Which check found it (a short stable name, e.g. `followers_counter`).
    pub check: &'static str,
    /// One line naming what is wrong.
    pub problem: String,
    /// How many rows (or items) are wrong.
    pub count: u64,
}

/// Each invariant: a short name, a description and a query that returns one row per
/// violation (first column: something that identifies the bad row).
const INVARIANTS: &[(&str, &str, &str)] = &[
    (
        "pm_unread",
        "a private message thread's unread count matches its unread messages",
        "SELECT m.user_id FROM pm_member m WHERE m.unread <>
           (SELECT count(*) FROM private_message p WHERE p.thread_id = m.thread_id
              AND p.receiver_id = m.user_id AND p.is_read = 0 AND p.withdrawn = 0
              AND p.receiver_hidden = 0)",
    ),
    (
        "pm_last",
        "a private message thread's newest message is the newest its member sees",
        "SELECT m.user_id FROM pm_member m WHERE m.last_id IS NOT
           (SELECT max(p.id) FROM private_message p WHERE p.thread_id = m.thread_id
              AND ((p.sender_id = m.user_id AND p.sender_hidden = 0)
                OR (p.receiver_id = m.user_id AND p.receiver_hidden = 0)))",
    ),
    (
        "pm_visible",
        "a private message thread's kept count of what each side sees matches its messages",
        "SELECT m.user_id FROM pm_member m WHERE m.visible <>
           (SELECT count(*) FROM private_message p WHERE p.thread_id = m.thread_id
              AND ((p.sender_id = m.user_id AND p.sender_hidden = 0)
                OR (p.receiver_id = m.user_id AND p.receiver_hidden = 0)))",
    ),
    (
        "pm_group_thread",
        "a group thread's head is its newest message and counts its messages",
        "SELECT t.group_id FROM pm_group_thread t WHERE t.messages <>
           (SELECT count(*) FROM private_message p WHERE p.group_id = t.group_id)
         OR t.last_id IS NOT (SELECT max(p.id) FROM private_message p WHERE p.group_id = t.group_id)",
    ),
    (
        "pm_group_member",
        "a group thread member's kept counts match the messages they deleted and hid",
        "SELECT m.user_id FROM pm_group_member m WHERE m.cleared <>
           (SELECT count(*) FROM private_message p WHERE p.group_id = m.group_id AND p.id <= m.cleared_id)
         OR m.hidden <> (SELECT count(*) FROM pm_group_hidden h JOIN private_message p ON p.id = h.message_id
              WHERE h.user_id = m.user_id AND h.group_id = m.group_id AND p.group_id = m.group_id
                AND p.id > m.cleared_id)
         OR EXISTS (SELECT 1 FROM pm_group_hidden h WHERE h.user_id = m.user_id
              AND h.group_id = m.group_id AND h.message_id <= m.cleared_id)",
    ),
    (
        "unseen_notifications",
        "unseen_notifications matches the user's new notifications",
        "SELECT u.id FROM user u WHERE u.unseen_notifications <>
           (SELECT count(*) FROM notification n WHERE n.user_id = u.id AND n.is_new = 1)",
    ),
    (
        "connections_counter",
        "connections_counter matches the user's connections",
        "SELECT u.id FROM user u WHERE u.connections_counter <>
           (SELECT count(*) FROM connection c WHERE c.user_id = u.id)",
    ),
    (
        "connection_pairs",
        "every connection is held by both of its users",
        "SELECT c.user_id FROM connection c WHERE NOT EXISTS
           (SELECT 1 FROM connection r WHERE r.user_id = c.other_id AND r.other_id = c.user_id)",
    ),
    (
        "connection_requests_counters",
        "the connection request counters match the open requests (sent; received, not rejected)",
        "SELECT u.id FROM user u WHERE u.connection_requests_sent_counter <>
           (SELECT count(*) FROM connection_request r WHERE r.from_user = u.id)
         OR u.connection_requests_received_counter <>
           (SELECT count(*) FROM connection_request r WHERE r.to_user = u.id AND r.rejected_at IS NULL)",
    ),
    (
        "last_activity_at",
        "last_activity_at is the newest live comment (a comment's: reply) or the creation",
        "SELECT c.pk FROM contribution c WHERE c.last_activity_at <> max(c.added_at, coalesce(
           CASE WHEN c.kind = 'comment'
             THEN (SELECT max(r.added_at) FROM contribution r WHERE r.parent_pk = c.pk AND r.deleted = 0)
             ELSE (SELECT max(r.added_at) FROM contribution r WHERE r.target_pk = c.pk AND r.deleted = 0)
           END, 0))",
    ),
    (
        "category_last_activity_at",
        "an item's category links carry its last_activity_at",
        "SELECT cc.contribution_pk FROM contribution_category cc JOIN contribution c ON c.pk = cc.contribution_pk
         WHERE cc.last_activity_at <> c.last_activity_at",
    ),
    (
        "search_user",
        "search_user holds exactly the live users, with their names",
        "SELECT u.id FROM user u WHERE u.deleted = 0 AND NOT EXISTS
           (SELECT 1 FROM search_user s WHERE s.rowid = u.id AND s.username = u.username AND s.real_name = u.real_name)
         UNION ALL SELECT s.rowid FROM search_user s
           WHERE NOT EXISTS (SELECT 1 FROM user u WHERE u.id = s.rowid AND u.deleted = 0)",
    ),
    (
        "search_category",
        "search_category holds exactly the live active categories, with their names",
        "SELECT c.id FROM category c WHERE c.deleted = 0 AND c.active = 1 AND NOT EXISTS
           (SELECT 1 FROM search_category s WHERE s.rowid = c.id AND s.name = c.name)
         UNION ALL SELECT s.rowid FROM search_category s WHERE NOT EXISTS
           (SELECT 1 FROM category c WHERE c.id = s.rowid AND c.deleted = 0 AND c.active = 1)",
    ),
    (
        "search_item",
        "search_item holds exactly the live discussions, posts and statuses",
        "SELECT c.pk FROM contribution c WHERE c.target_pk IS NULL AND c.deleted = 0
           AND NOT EXISTS (SELECT 1 FROM search_item s WHERE s.rowid = c.pk AND s.title = coalesce(c.title, ''))
         UNION ALL SELECT s.rowid FROM search_item s WHERE NOT EXISTS
           (SELECT 1 FROM contribution c WHERE c.pk = s.rowid AND c.target_pk IS NULL AND c.deleted = 0)",
    ),
    (
        "search_event",
        "search_event holds exactly the live events, with their names and descriptions",
        "SELECT e.id FROM event e WHERE e.deleted = 0 AND NOT EXISTS
           (SELECT 1 FROM search_event s WHERE s.rowid = e.id AND s.name = e.name
              AND s.description = e.description)
         UNION ALL SELECT s.rowid FROM search_event s WHERE NOT EXISTS
           (SELECT 1 FROM event e WHERE e.id = s.rowid AND e.deleted = 0)",
    ),
    (
        "followers_counter",
        "followers_counter matches live followers",
        "SELECT u.id FROM user u WHERE u.followers_counter <>
           (SELECT count(*) FROM follow f JOIN user v ON v.id = f.follower WHERE f.followed = u.id AND v.deleted = 0)",
    ),
    (
        "followings_counter",
        "followings_counter matches live followings",
        "SELECT u.id FROM user u WHERE u.followings_counter <>
           (SELECT count(*) FROM follow f JOIN user v ON v.id = f.followed WHERE f.follower = u.id AND v.deleted = 0)",
    ),
    (
        "mutuals_counter",
        "mutuals_counter matches live mutual followings",
        "SELECT u.id FROM user u WHERE u.mutuals_counter <>
           (SELECT count(*) FROM follow f JOIN user v ON v.id = f.followed
            WHERE f.follower = u.id AND f.mutual = 1 AND v.deleted = 0)",
    ),
    (
        "follow_mutual",
        "follow.mutual matches the reverse edge",
        "SELECT f.follower FROM follow f WHERE f.mutual <>
           EXISTS (SELECT 1 FROM follow r WHERE r.follower = f.followed AND r.followed = f.follower)",
    ),
    (
        "posts_counter",
        "posts_counter matches live posts",
        "SELECT u.id FROM user u WHERE u.posts_counter <>
           (SELECT count(*) FROM contribution c WHERE c.author_id = u.id AND c.kind = 'post' AND c.deleted = 0)",
    ),
    (
        "polls_counter",
        "polls_counter matches live discussions and posts with a poll",
        "SELECT u.id FROM user u WHERE u.polls_counter <>
           (SELECT count(*) FROM poll p JOIN contribution c ON c.pk = p.contribution_pk
            WHERE c.author_id = u.id AND c.deleted = 0)",
    ),
    (
        "poll_vote_count",
        "a poll choice's vote_count matches its votes",
        "SELECT c.id FROM poll_choice c WHERE c.vote_count <>
           (SELECT count(*) FROM poll_vote v WHERE v.choice_id = c.id)",
    ),
    (
        "discussions_counter",
        "discussions_counter matches live discussions",
        "SELECT u.id FROM user u WHERE u.discussions_counter <>
           (SELECT count(*) FROM contribution c WHERE c.author_id = u.id AND c.kind = 'discussion' AND c.deleted = 0)",
    ),
    (
        "comment_count",
        "comment_count matches live comments (a comment's: its live replies)",
        "SELECT c.pk FROM contribution c WHERE c.comment_count <>
           (SELECT count(*) FROM contribution k WHERE k.target_pk = c.pk AND k.deleted = 0)
         + (SELECT count(*) FROM contribution k WHERE k.parent_pk = c.pk AND k.deleted = 0)",
    ),
    (
        "tokens",
        "every token belongs to an existing app and user",
        "SELECT g.id FROM oauth_grant g WHERE NOT EXISTS (SELECT 1 FROM oauth_app a WHERE a.id = g.app_id)
            OR NOT EXISTS (SELECT 1 FROM user u WHERE u.id = g.user_id)
         UNION ALL SELECT t.grant_id FROM oauth_access_token t
            WHERE NOT EXISTS (SELECT 1 FROM oauth_grant g WHERE g.id = t.grant_id)
         UNION ALL SELECT t.grant_id FROM oauth_refresh_token t
            WHERE NOT EXISTS (SELECT 1 FROM oauth_grant g WHERE g.id = t.grant_id)",
    ),
    (
        "course_creator",
        "every course has exactly one creator membership, its created_by",
        "SELECT c.id FROM course c WHERE
           (SELECT count(*) FROM course_member m WHERE m.course_id = c.id AND m.join_status = 'creator') <> 1
           OR NOT EXISTS (SELECT 1 FROM course_member m WHERE m.course_id = c.id AND m.user_id = c.created_by
                          AND m.join_status = 'creator')",
    ),
    (
        "course_listed_block",
        "course_listed_block counts the listed courses of each block",
        "SELECT b.block FROM course_listed_block b WHERE b.n <>
           (SELECT count(*) FROM course c WHERE c.id >> 10 = b.block AND c.deleted = 0 AND c.privacy IN ('open', 'private'))
         UNION ALL SELECT c.id >> 10 FROM course c WHERE c.deleted = 0 AND c.privacy IN ('open', 'private')
           AND NOT EXISTS (SELECT 1 FROM course_listed_block b WHERE b.block = c.id >> 10)",
    ),
    (
        "course_category_ids",
        "course.category_ids lists the course's categories",
        "SELECT course.id FROM course WHERE course.category_ids IS NOT
           (SELECT json_group_array(category_id) FROM
             (SELECT l.category_id FROM course_category l WHERE l.course_id = course.id
              ORDER BY l.category_id))",
    ),
    (
        "course_listed_count",
        "course_listed_count counts the listed courses",
        "SELECT n FROM course_listed_count WHERE n <>
           (SELECT count(*) FROM course c WHERE c.deleted = 0 AND c.privacy IN ('open', 'private'))
         UNION ALL SELECT 0 WHERE (SELECT count(*) FROM course_listed_count) <> 1",
    ),
    (
        "contribution_tally",
        "contribution_tally counts the live items of each kind",
        "SELECT t.live FROM contribution_tally t WHERE t.live <>
           (SELECT count(*) FROM contribution c WHERE c.kind = t.kind AND c.deleted = 0)
         UNION ALL SELECT count(*) FROM contribution c WHERE c.deleted = 0
           AND NOT EXISTS (SELECT 1 FROM contribution_tally t WHERE t.kind = c.kind)
           GROUP BY c.kind",
    ),
    (
        "vote_tally",
        "vote_tally counts the live users' votes of each item and reaction",
        "SELECT t.contribution_pk FROM vote_tally t WHERE t.n <>
           (SELECT count(*) FROM vote v JOIN user u ON u.id = v.user_id
            WHERE v.contribution_pk = t.contribution_pk AND v.reaction_id = t.reaction_id AND u.deleted = 0)
         UNION ALL SELECT v.contribution_pk FROM vote v JOIN user u ON u.id = v.user_id
           WHERE u.deleted = 0 AND NOT EXISTS (SELECT 1 FROM vote_tally t
             WHERE t.contribution_pk = v.contribution_pk AND t.reaction_id = v.reaction_id)",
    ),
    (
        "categories_counter",
        "categories_counter matches followed categories",
        "SELECT u.id FROM user u WHERE u.categories_counter <>
           (SELECT count(*) FROM category_follow f WHERE f.user_id = u.id)",
    ),
    (
        "category_followers_counter",
        "category followers_counter matches live followers",
        "SELECT g.id FROM category g WHERE g.followers_counter <>
           (SELECT count(*) FROM category_follow f JOIN user u ON u.id = f.user_id
            WHERE f.category_id = g.id AND u.deleted = 0)",
    ),
    (
        // token::password::MAX_ITERATIONS (a test below keeps them equal): such a user
        // can never sign in (the hash is not verified); `user set-password` mends it
        "password_iterations",
        "password hashes have at most 2000000 PBKDF2 iterations (set a new password)",
        "SELECT id FROM user WHERE password LIKE 'pbkdf2_sha256$%' AND
           CAST(substr(password, 15, instr(substr(password, 15), '$') - 1) AS INTEGER) > 2000000",
    ),
    ("jwt_secret", "there is a current JWT secret", "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM jwt_secret WHERE grace_until IS NULL)"),
    (
        // what the API and the importer refuse (model::link): a stored javascript: or
        // data: link is served to every browser that shows it; set it again with a
        // safe link (or empty, for the default)
        "unsafe_links",
        "avatars, covers, websites and reaction images are http(s) URLs or /paths (set them again)",
        "SELECT id FROM user WHERE NOT (avatar = '' OR avatar LIKE 'http://%' OR avatar LIKE 'https://%'
                                        OR (avatar LIKE '/%' AND avatar NOT LIKE '//%'))
            OR NOT (cover = '' OR cover LIKE 'http://%' OR cover LIKE 'https://%'
                    OR (cover LIKE '/%' AND cover NOT LIKE '//%'))
            OR NOT (website = '' OR website LIKE 'http://%' OR website LIKE 'https://%'
                    OR (website LIKE '/%' AND website NOT LIKE '//%'))
         UNION ALL SELECT id FROM reaction WHERE image IS NOT NULL AND NOT (image LIKE 'http://%'
            OR image LIKE 'https://%' OR (image LIKE '/%' AND image NOT LIKE '//%'))",
    ),
    (
        // model::contribution::TEXT_MAX: what a JSON body of the API can carry
        "text_size",
        "contribution texts are at most 1 MiB",
        "SELECT pk FROM contribution WHERE length(CAST(text AS BLOB)) > 1048576",
    ),
    (
        "group_subscribers_counter",
        "subscribers_counter matches the group's creator, admins and members",
        "SELECT g.id FROM community_group g WHERE g.subscribers_counter <>
           (SELECT count(*) FROM group_member m WHERE m.group_id = g.id
            AND m.join_status IN ('creator', 'manager', 'joined'))",
    ),
    (
        "group_creator",
        "every group has exactly one creator membership, its created_by",
        "SELECT g.id FROM community_group g WHERE
           (SELECT count(*) FROM group_member m WHERE m.group_id = g.id AND m.join_status = 'creator') <> 1
           OR NOT EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = g.id AND m.user_id = g.created_by
                          AND m.join_status = 'creator')",
    ),
    (
        "contribution_space_tally",
        "contribution_space_tally counts the live items made in groups or events, per kind",
        "SELECT t.live FROM contribution_space_tally t WHERE t.live <>
           (SELECT count(*) FROM contribution c WHERE c.kind = t.kind AND c.deleted = 0
            AND (c.group_id IS NOT NULL OR c.event_id IS NOT NULL))
         UNION ALL SELECT c.pk FROM contribution c WHERE c.deleted = 0
           AND (c.group_id IS NOT NULL OR c.event_id IS NOT NULL)
           AND NOT EXISTS (SELECT 1 FROM contribution_space_tally t WHERE t.kind = c.kind)",
    ),
    (
        "contribution_addressed",
        "addressed says whether the item (a comment: its item) is addressed to tags",
        "SELECT c.pk FROM contribution c WHERE c.addressed <> EXISTS
           (SELECT 1 FROM contribution_addressing a WHERE a.contribution_pk = coalesce(c.target_pk, c.pk))",
    ),
    (
        "contribution_follower_count",
        "follower_count matches the members following the item",
        "SELECT c.pk FROM contribution c WHERE c.follower_count <>
           (SELECT count(*) FROM contribution_follow f WHERE f.contribution_pk = c.pk)",
    ),
    (
        "contribution_share_count",
        "share_count matches the live items that share the item",
        "SELECT c.pk FROM contribution c WHERE c.share_count <>
           (SELECT count(*) FROM media_item m JOIN contribution_media cm ON cm.media_id = m.id
            JOIN contribution s ON s.pk = cm.contribution_pk
            WHERE m.shared_pk = c.pk AND s.deleted = 0)",
    ),
    (
        "lesson_comment_count",
        "a lesson's comment_count matches its comments, each on its lesson's course",
        "SELECT l.id FROM course_lesson l WHERE l.comment_count <>
           (SELECT count(*) FROM course_lesson_comment c WHERE c.lesson_id = l.id)
         UNION ALL SELECT c.lesson_id FROM course_lesson_comment c
           JOIN course_lesson l ON l.id = c.lesson_id
           JOIN course_section s ON s.id = l.section_id WHERE s.course_id <> c.course_id",
    ),
    (
        "space_items_counter",
        "items_counter matches the live top-level items made in the group or event",
        "SELECT g.id FROM community_group g WHERE g.items_counter <>
           (SELECT count(*) FROM contribution c WHERE c.group_id = g.id AND c.target_pk IS NULL
            AND c.deleted = 0)
         UNION ALL SELECT e.id FROM event e WHERE e.items_counter <>
           (SELECT count(*) FROM contribution c WHERE c.event_id = e.id AND c.target_pk IS NULL
            AND c.deleted = 0)",
    ),
    (
        "event_counters",
        "subscribers_counter and goings_counter match the event's members and those going",
        "SELECT e.id FROM event e WHERE e.subscribers_counter <>
           (SELECT count(*) FROM event_member m WHERE m.event_id = e.id
            AND m.join_status IN ('creator', 'manager', 'joined'))
           OR e.goings_counter <> (SELECT count(*) FROM event_member m WHERE m.event_id = e.id
            AND m.join_status IN ('creator', 'manager', 'joined') AND m.going = 1)",
    ),
    (
        "event_creator",
        "every event has exactly one creator membership, its created_by",
        "SELECT e.id FROM event e WHERE
           (SELECT count(*) FROM event_member m WHERE m.event_id = e.id AND m.join_status = 'creator') <> 1
           OR NOT EXISTS (SELECT 1 FROM event_member m WHERE m.event_id = e.id AND m.user_id = e.created_by
                          AND m.join_status = 'creator')",
    ),
    (
        "positive_ids",
        "ids of users, categories, reactions, courses and contributions are positive",
        "SELECT id FROM user WHERE id < 1 UNION ALL SELECT id FROM category WHERE id < 1
         UNION ALL SELECT id FROM reaction WHERE id < 1 UNION ALL SELECT id FROM course WHERE id < 1
         UNION ALL SELECT id FROM contribution WHERE id < 1",
    ),
];

/// Opens a copy of a database to check it as it is (`hearth verify-replica`'s restored
/// file): no migration, no pragmas that write. Returns the connection and the copy's
/// schema version, or why it is no hearth database this binary can check.
pub fn open_copy(path: &Path) -> Result<(Connection, i64), DbError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    let version = crate::db::migrate::identify(&conn)?;
    Ok((conn, version))
}

/// Runs every check of the database itself; returns one line per problem (empty when
/// all is well).
pub fn run(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    Ok(problems(conn)?.into_iter().map(|p| p.problem).collect())
}

/// Runs every check of the database itself; returns the problems (empty when all is
/// well).
pub fn problems(conn: &Connection) -> rusqlite::Result<Vec<Problem>> {
    let mut problems: Vec<Problem> = integrity(conn)?
        .into_iter()
        .map(|row| Problem { check: "integrity", problem: format!("integrity: {row}"), count: 1 })
        .collect();
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let fk: Vec<String> =
        stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<_, _>>()?;
    let mut tables: Vec<(String, u64)> = Vec::new();
    for table in fk {
        match tables.iter_mut().find(|(t, _)| *t == table) {
            Some((_, n)) => *n += 1,
            None => tables.push((table, 1)),
        }
    }
    for (table, n) in tables {
        problems.push(Problem {
            check: "foreign_keys",
            problem: format!("foreign key violation in {table}: {n} row(s)"),
            count: n,
        });
    }
    for (name, what, sql) in INVARIANTS {
        let mut stmt = conn.prepare(sql)?;
        let bad: Vec<i64> =
            stmt.query_map([], |r| r.get::<_, i64>(0))?.collect::<Result<_, _>>()?;
        if !bad.is_empty() {
            let sample: Vec<String> = bad.iter().take(5).map(i64::to_string).collect();
            problems.push(Problem {
                check: name,
                problem: format!("{what}: {} violation(s), e.g. {}", bad.len(), sample.join(", ")),
                count: u64::try_from(bad.len()).unwrap_or(u64::MAX),
            });
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_iteration_bound_is_the_password_modules() {
        let (_, what, sql) = INVARIANTS
            .iter()
            .find(|(n, _, _)| *n == "password_iterations")
            .copied()
            .unwrap_or_default();
        let max = crate::token::password::MAX_ITERATIONS.to_string();
        assert!(what.contains(&max) && sql.contains(&format!("> {max}")), "{what} / {sql}");
    }
}
