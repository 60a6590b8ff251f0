//! A member's data export (SPEC §10 People, GDPR article 20): everything hearth holds
//! about one user, as JSON files and their avatar images, read in one snapshot; and the
//! stored archive's state. `model::archive` zips the files; `api::data_export` runs the
//! job off the request path.
//!
//! Some of the user's rows are found by scanning a table where no index leads with the
//! user (votes, flags, comments, notifications by others): an export is rare (once a day
//! at most per member, two at a time), runs on a blocking thread, and never holds the
//! writer.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Map, Value, json};

use crate::clock::{Timestamp, rfc3339};

/// One file of the archive: its name and bytes.
pub type File = (String, Vec<u8>);

/// The rows `sql` selects (`?1`: the user), each a JSON object keyed by column name;
/// times (columns ending in `_at`, and `date_joined`) as RFC 3339.
fn rows(c: &Connection, sql: &str, user: i64) -> rusqlite::Result<Vec<Value>> {
    let mut stmt = c.prepare(sql)?;
    let names: Vec<String> = stmt.column_names().into_iter().map(str::to_owned).collect();
    let mut out = Vec::new();
    let mut q = stmt.query([user])?;
    while let Some(r) = q.next()? {
        let mut o = Map::new();
        for (i, name) in names.iter().enumerate() {
            let time = name.ends_with("_at") || name == "date_joined";
            let v = match r.get_ref(i)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) if time => json!(rfc3339(n)),
                ValueRef::Integer(n) => json!(n),
                ValueRef::Real(f) => json!(f),
                ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
                ValueRef::Blob(_) => continue,
            };
            o.insert(name.clone(), v);
        }
        out.push(Value::Object(o));
    }
    Ok(out)
}

/// The JSON files of the export and what each holds, in archive order: (file, query).
const FILES: &[(&str, &str)] = &[
    (
        "profile.json",
        "SELECT id, username, email, real_name, bio, location, date_of_birth, description, gender,
                website, company_name, company_role, avatar, cover, is_staff, date_joined
         FROM user WHERE id = ?1",
    ),
    ("settings.json", "SELECT name, value FROM user_setting WHERE user_id = ?1 ORDER BY name"),
    (
        "contributions.json",
        "SELECT c.kind, c.id, c.title, c.action, c.text, c.added_at, c.last_edited_at, c.deleted,
                c.collapsed, t.kind AS on_kind, t.id AS on_id
         FROM contribution c LEFT JOIN contribution t ON t.pk = c.target_pk
         WHERE c.author_id = ?1 ORDER BY c.pk",
    ),
    (
        "votes.json",
        "SELECT c.kind, c.id, r.label AS reaction, v.voted_at
         FROM vote v JOIN contribution c ON c.pk = v.contribution_pk JOIN reaction r ON r.id = v.reaction_id
         WHERE v.user_id = ?1 ORDER BY v.voted_at",
    ),
    (
        "followings.json",
        "SELECT u.id, u.username, f.created_at FROM follow f JOIN user u ON u.id = f.followed
         WHERE f.follower = ?1 ORDER BY f.created_at",
    ),
    (
        "followers.json",
        "SELECT u.id, u.username, f.created_at FROM follow f JOIN user u ON u.id = f.follower
         WHERE f.followed = ?1 ORDER BY f.created_at",
    ),
    (
        "categories_followed.json",
        "SELECT g.id, g.name, f.created_at FROM category_follow f JOIN category g ON g.id = f.category_id
         WHERE f.user_id = ?1 ORDER BY f.created_at",
    ),
    (
        "connections.json",
        "SELECT u.id, u.username, c.created_at FROM connection c JOIN user u ON u.id = c.other_id
         WHERE c.user_id = ?1 ORDER BY c.created_at",
    ),
    (
        "connection_requests.json",
        "SELECT r.from_user, r.to_user, r.created_at, CASE WHEN r.to_user = ?1 THEN r.rejected_at END AS rejected_at,
                r.viewed_at
         FROM connection_request r WHERE r.from_user = ?1 OR r.to_user = ?1 ORDER BY r.id",
    ),
    (
        "items_followed.json",
        "SELECT c.kind, c.id, f.created_at FROM contribution_follow f JOIN contribution c ON c.pk = f.contribution_pk
         WHERE f.user_id = ?1 ORDER BY f.created_at",
    ),
    (
        "items_notifications_off.json",
        "SELECT c.kind, c.id, o.created_at FROM contribution_notification_off o JOIN contribution c ON c.pk = o.contribution_pk
         WHERE o.user_id = ?1 ORDER BY o.created_at",
    ),
    (
        "hidden_users.json",
        "SELECT u.id, u.username, h.created_at FROM user_hide h JOIN user u ON u.id = h.hidden_id
         WHERE h.user_id = ?1 ORDER BY h.created_at",
    ),
    (
        "flags.json",
        "SELECT c.kind, c.id, f.flag_type, f.created_at FROM flag f JOIN contribution c ON c.pk = f.contribution_pk
         WHERE f.user_id = ?1 ORDER BY f.created_at",
    ),
    (
        "courses.json",
        "SELECT co.id, co.name, m.join_status, m.created_at FROM course_member m JOIN course co ON co.id = m.course_id
         WHERE m.user_id = ?1 ORDER BY m.created_at",
    ),
    (
        "lessons_completed.json",
        "SELECT co.id AS course_id, co.name AS course, l.id AS lesson_id, l.name AS lesson, k.completed_at
         FROM course_lesson_completion k JOIN course_lesson l ON l.id = k.lesson_id
         JOIN course_section s ON s.id = l.section_id JOIN course co ON co.id = s.course_id
         WHERE k.user_id = ?1 ORDER BY k.completed_at, l.id",
    ),
    (
        "lesson_comments.json",
        "SELECT c.id, co.id AS course_id, co.name AS course, l.name AS lesson, c.text, c.created_at, c.updated_at
         FROM course_lesson_comment c JOIN course_lesson l ON l.id = c.lesson_id
         JOIN course co ON co.id = c.course_id
         WHERE c.created_by = ?1 ORDER BY c.id",
    ),
    (
        "notifications.json",
        "SELECT n.type, a.username AS actor, n.created_at, n.is_new FROM notification n JOIN user a ON a.id = n.actor_id
         WHERE n.user_id = ?1 ORDER BY n.id",
    ),
    (
        "tags.json",
        "SELECT t.id, t.name, t.description, t.visible FROM user_tag ut JOIN tag t ON t.id = ut.tag_id
         WHERE ut.user_id = ?1 ORDER BY t.id",
    ),
    (
        "avatars.json",
        "SELECT id, path, created_at FROM user_avatar WHERE user_id = ?1 ORDER BY id",
    ),
    (
        "media.json",
        "SELECT m.id, m.type, CASE WHEN m.type = 'image' THEN '/media/' || m.path END AS path,
                m.width, m.height, m.url, s.kind AS shared_kind, s.id AS shared_id, m.created_at,
                c.kind AS shown_in_kind, c.id AS shown_in_id
         FROM media_item m LEFT JOIN contribution_media cm ON cm.media_id = m.id
         LEFT JOIN contribution c ON c.pk = cm.contribution_pk
         LEFT JOIN contribution s ON s.pk = m.shared_pk
         WHERE m.owner_id = ?1 ORDER BY m.id",
    ),
    (
        "private_messages.json",
        "SELECT m.id, m.thread_id, s.username AS sender, r.username AS receiver, m.text,
                f.filename AS file, m.created_at, m.is_read AS read, m.withdrawn AS deleted
         FROM private_message m JOIN user s ON s.id = m.sender_id JOIN user r ON r.id = m.receiver_id
         LEFT JOIN pm_file f ON f.uuid = m.file_uuid
         WHERE m.thread_id IN (SELECT thread_id FROM pm_member WHERE user_id = ?1)
           AND ((m.sender_id = ?1 AND m.sender_hidden = 0) OR (m.receiver_id = ?1 AND m.receiver_hidden = 0))
         ORDER BY m.thread_id, m.id",
    ),
    (
        "linked_identities.json",
        "SELECT provider, ext_id, profile_url, show_in_profile, created_at FROM user_provider
         WHERE user_id = ?1 ORDER BY provider"
    ),
    (
        "group_messages.json",
        "SELECT m.id, g.name AS group_name, m.text, f.filename AS file, m.created_at,
                m.withdrawn AS deleted
         FROM private_message m JOIN community_group g ON g.id = m.group_id
         LEFT JOIN pm_file f ON f.uuid = m.file_uuid
         WHERE m.group_id IN (SELECT group_id FROM pm_group_member WHERE user_id = ?1)
           AND m.sender_id = ?1
         ORDER BY m.group_id, m.id",
    ),
    (
        "contact_requests.json",
        "SELECT id, name, surname, email, message, created_at FROM contact_request
         WHERE user_id = ?1 ORDER BY id",
    ),
];

/// What the archive's README says.
const README: &str =
    "Everything this community's server (hearth) holds about you, as of the time in
export.json. Each .json file is a list of records; times are UTC (RFC 3339).

profile.json            your profile and e-mail address
settings.json           your notification settings
contributions.json      your discussions, posts, statuses and comments (deleted ones too;
                        a comment names what it is on: on_kind, on_id)
votes.json              your reactions to contributions
followings.json, followers.json, categories_followed.json, connections.json,
connection_requests.json, hidden_users.json
                        the people and categories you follow, who follows you, your
                        connections and requests, the members you hide
flags.json              the contributions you flagged (0 spam ... 4 off-topic)
courses.json            your course memberships
lessons_completed.json  the course lessons you marked complete
lesson_comments.json    your comments on course lessons
notifications.json      what you were notified of
tags.json               the tags staff gave you (those kept off your profile too: visible 0)
avatars.json, avatars/  the avatars you uploaded
media.json              the pictures you uploaded (their files are under their path on
                        the site), the links and shares you made, and the discussion or
                        post that shows each
private_messages.json   the private messages you sent and received (those you have not
                        deleted for yourself; a file by its name)
linked_identities.json  your ids elsewhere (a social network, a single sign-on) that
                        staff linked to your account
group_messages.json     the messages you wrote in your groups' threads
contact_requests.json   the messages you sent the community's staff

Not included: your password (hearth keeps only a salted hash), your sign-in tokens
(kept only as hashes), and other members' data beyond their username where it is
part of yours.
";

/// Every file of `user`'s export, `progress(done, total)` called after each; `None`
/// when the user does not exist.
pub fn files(
    c: &Connection,
    user: i64,
    now: Timestamp,
    progress: &dyn Fn(usize, usize),
) -> rusqlite::Result<Option<Vec<File>>> {
    let exists = c.prepare_cached("SELECT 1 FROM user WHERE id = ?1")?.exists([user])?;
    if !exists {
        return Ok(None);
    }
    let total = FILES.len() + 1;
    let mut out = vec![
        ("README.txt".to_owned(), README.as_bytes().to_vec()),
        (
            "export.json".to_owned(),
            serde_json::to_vec_pretty(&json!({ "user": user, "exported_at": rfc3339(now) }))
                .unwrap_or_default(),
        ),
    ];
    for (done, (name, sql)) in FILES.iter().enumerate() {
        let mut list = rows(c, sql, user)?;
        // the profile is one record, not a list
        let v =
            if *name == "profile.json" { list.pop().unwrap_or(Value::Null) } else { json!(list) };
        out.push(((*name).to_owned(), serde_json::to_vec_pretty(&v).unwrap_or_default()));
        progress(done + 1, total);
    }
    let mut images = c.prepare(
        "SELECT a.id, m.content_type, m.body FROM user_avatar a
         JOIN media m ON '/media/' || m.path = a.path WHERE a.user_id = ?1 ORDER BY a.id",
    )?;
    let found = images.query_map([user], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Vec<u8>>(2)?))
    })?;
    for row in found {
        let (id, content_type, body) = row?;
        let ext = if content_type == "image/png" { "png" } else { "jpg" };
        out.push((format!("avatars/{id}.{ext}"), body));
    }
    progress(total, total);
    Ok(Some(out))
}

/// The state of `user`'s export: (requested_at, generated_at, downloaded_at).
pub type State = (Timestamp, Option<Timestamp>, Option<Timestamp>);

/// `user`'s export state, if one was ever asked for.
pub fn state(c: &Connection, user: i64) -> rusqlite::Result<Option<State>> {
    c.prepare_cached(
        "SELECT requested_at, generated_at, downloaded_at FROM data_export WHERE user_id = ?1",
    )?
    .query_row([user], |r| r.try_into())
    .optional()
}

/// Records a new request (the previous archive stays until the new one replaces it).
pub fn requested(c: &Connection, user: i64, now: Timestamp) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO data_export (user_id, requested_at) VALUES (?1, ?2)
         ON CONFLICT (user_id) DO UPDATE SET requested_at = excluded.requested_at",
    )?
    .execute(params![user, now])?;
    Ok(())
}

/// Stores a finished archive.
pub fn generated(
    c: &Connection,
    user: i64,
    archive: &[u8],
    now: Timestamp,
) -> rusqlite::Result<()> {
    c.prepare_cached(
        "UPDATE data_export SET archive = ?2, generated_at = ?3, downloaded_at = NULL WHERE user_id = ?1",
    )?
    .execute(params![user, archive, now])?;
    Ok(())
}

/// The stored archive of `user`, if any.
pub fn archive(c: &Connection, user: i64) -> rusqlite::Result<Option<Vec<u8>>> {
    c.prepare_cached("SELECT archive FROM data_export WHERE user_id = ?1 AND archive IS NOT NULL")?
        .query_row([user], |r| r.get(0))
        .optional()
}

/// Marks the archive downloaded.
pub fn downloaded(c: &Connection, user: i64, now: Timestamp) -> rusqlite::Result<()> {
    c.prepare_cached("UPDATE data_export SET downloaded_at = ?2 WHERE user_id = ?1")?
        .execute(params![user, now])?;
    Ok(())
}
