//! `hearth check`: SQLite's integrity check plus hearth's own invariants.

use rusqlite::Connection;

/// Each invariant: a description and a query that returns one row per violation
/// (first column: something that identifies the bad row).
const INVARIANTS: &[(&str, &str)] = &[
    (
        "followers_counter matches live followers",
        "SELECT u.id FROM user u WHERE u.followers_counter <>
           (SELECT count(*) FROM follow f JOIN user v ON v.id = f.follower WHERE f.followed = u.id AND v.deleted = 0)",
    ),
    (
        "followings_counter matches live followings",
        "SELECT u.id FROM user u WHERE u.followings_counter <>
           (SELECT count(*) FROM follow f JOIN user v ON v.id = f.followed WHERE f.follower = u.id AND v.deleted = 0)",
    ),
    (
        "mutuals_counter matches live mutual followings",
        "SELECT u.id FROM user u WHERE u.mutuals_counter <>
           (SELECT count(*) FROM follow f JOIN user v ON v.id = f.followed
            WHERE f.follower = u.id AND f.mutual = 1 AND v.deleted = 0)",
    ),
    (
        "follow.mutual matches the reverse edge",
        "SELECT f.follower FROM follow f WHERE f.mutual <>
           EXISTS (SELECT 1 FROM follow r WHERE r.follower = f.followed AND r.followed = f.follower)",
    ),
    (
        "posts_counter matches live posts",
        "SELECT u.id FROM user u WHERE u.posts_counter <>
           (SELECT count(*) FROM contribution c WHERE c.author_id = u.id AND c.kind = 'post' AND c.deleted = 0)",
    ),
    (
        "discussions_counter matches live discussions",
        "SELECT u.id FROM user u WHERE u.discussions_counter <>
           (SELECT count(*) FROM contribution c WHERE c.author_id = u.id AND c.kind = 'discussion' AND c.deleted = 0)",
    ),
    (
        "comment_count matches live comments",
        "SELECT c.pk FROM contribution c WHERE c.comment_count <>
           (SELECT count(*) FROM contribution k WHERE k.target_pk = c.pk AND k.deleted = 0)",
    ),
    (
        "every token belongs to an existing app and user",
        "SELECT g.id FROM oauth_grant g WHERE NOT EXISTS (SELECT 1 FROM oauth_app a WHERE a.id = g.app_id)
            OR NOT EXISTS (SELECT 1 FROM user u WHERE u.id = g.user_id)
         UNION ALL SELECT t.grant_id FROM oauth_access_token t
            WHERE NOT EXISTS (SELECT 1 FROM oauth_grant g WHERE g.id = t.grant_id)
         UNION ALL SELECT t.grant_id FROM oauth_refresh_token t
            WHERE NOT EXISTS (SELECT 1 FROM oauth_grant g WHERE g.id = t.grant_id)",
    ),
    (
        "every course has exactly one creator membership, its created_by",
        "SELECT c.id FROM course c WHERE
           (SELECT count(*) FROM course_member m WHERE m.course_id = c.id AND m.join_status = 'creator') <> 1
           OR NOT EXISTS (SELECT 1 FROM course_member m WHERE m.course_id = c.id AND m.user_id = c.created_by
                          AND m.join_status = 'creator')",
    ),
    (
        "course_listed_block counts the listed courses of each block",
        "SELECT b.block FROM course_listed_block b WHERE b.n <>
           (SELECT count(*) FROM course c WHERE c.id >> 10 = b.block AND c.deleted = 0 AND c.privacy IN ('open', 'private'))
         UNION ALL SELECT c.id >> 10 FROM course c WHERE c.deleted = 0 AND c.privacy IN ('open', 'private')
           AND NOT EXISTS (SELECT 1 FROM course_listed_block b WHERE b.block = c.id >> 10)",
    ),
    ("there is a current JWT secret", "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM jwt_secret WHERE grace_until IS NULL)"),
];

/// Runs every check; returns one line per problem (empty when all is well).
pub fn run(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut stmt = conn.prepare("PRAGMA integrity_check")?;
    for row in stmt.query_map([], |r| r.get::<_, String>(0))? {
        let row = row?;
        if row != "ok" {
            problems.push(format!("integrity: {row}"));
        }
    }
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let fk: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    for table in fk {
        problems.push(format!("foreign key violation in {table}"));
    }
    for (what, sql) in INVARIANTS {
        let mut stmt = conn.prepare(sql)?;
        let bad: Vec<i64> = stmt
            .query_map([], |r| r.get::<_, i64>(0))?
            .collect::<Result<_, _>>()?;
        if !bad.is_empty() {
            let sample: Vec<String> = bad.iter().take(5).map(i64::to_string).collect();
            problems.push(format!(
                "{what}: {} violation(s), e.g. {}",
                bad.len(),
                sample.join(", ")
            ));
        }
    }
    Ok(problems)
}
