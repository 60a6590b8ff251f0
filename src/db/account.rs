//! A member deleting their own account (SPEC §10 People, the kit's AccountDelete):
//! [`super::users::soft_delete`] (credentials revoked, counters, connections) and then
//! the personal data erased. What stays, and why, is in docs/decisions.md.

use rusqlite::{Connection, params};

/// Deletes and anonymises user `id`. With `hard`, their discussions, posts, statuses
/// and comments are deleted too and their texts erased; without it they stay, shown as
/// a deleted user's.
pub fn erase(conn: &Connection, id: i64, hard: bool) -> rusqlite::Result<()> {
    super::users::soft_delete(conn, id)?;
    // a name that says what happened and frees the old one (usernames are unique
    // case-insensitively; a member may have chosen this very name)
    let mut name = format!("deleted-user-{id}");
    let taken = |n: &str| -> rusqlite::Result<bool> {
        conn.prepare_cached("SELECT 1 FROM user WHERE username_key = ?1 AND id <> ?2")?
            .exists(params![crate::model::user::username_key(n), id])
    };
    while taken(&name)? {
        name = format!(
            "deleted-user-{id}-{}",
            crate::token::random_string(6).to_ascii_lowercase().replace(['-', '_'], "x")
        );
    }
    conn.prepare_cached(
        "UPDATE user SET username = ?2, username_key = ?3, email = NULL, real_name = '', password = NULL,
             ext_id = NULL, avatar = '', cover = '', bio = '', location = '', location_lat_lng = NULL,
             position_lat_lng = NULL, date_of_birth = NULL, description = '', gender = 'Unspecified',
             website = '', company_name = '', company_role = ''
         WHERE id = ?1",
    )?
    .execute(params![id, name, crate::model::user::username_key(&name)])?;
    for statement in ERASING {
        conn.prepare_cached(statement)?.execute([id])?;
    }
    if hard {
        let items: Vec<(crate::model::contribution::Kind, i64)> = conn
            .prepare("SELECT kind, id FROM contribution WHERE author_id = ?1 AND deleted = 0")?
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        for (kind, item) in items {
            if let Some(m) = super::contributions::meta(conn, kind, item)? {
                super::contributions::set_deleted(conn, &m, true)?;
            }
        }
        conn.prepare_cached(
            "UPDATE contribution SET title = CASE WHEN title IS NULL THEN NULL ELSE '' END, text = '',
                 html = '', summary = '', summary_html = '', summary_truncated = 0
             WHERE author_id = ?1",
        )?
        .execute([id])?;
        // comments on course lessons have no replies to keep: they go
        conn.prepare_cached("DELETE FROM course_lesson_comment WHERE created_by = ?1")?
            .execute([id])?;
    }
    Ok(())
}

/// What an erased account loses besides its profile (`?1`: the user): its avatars and
/// their images, its pictures (out of every gallery and item) and unfinished uploads, its data
/// export, settings, hidden users, flags, notifications, contact requests, the tags
/// staff gave it, its linked identities, its cover picture, its marks in group
/// threads, the items whose notifications it stopped and the course lessons it
/// completed.
const ERASING: [&str; 23] = [
    "DELETE FROM media WHERE path IN (SELECT substr(path, 8) FROM user_avatar WHERE user_id = ?1)",
    "DELETE FROM user_avatar WHERE user_id = ?1",
    "DELETE FROM data_export WHERE user_id = ?1",
    "DELETE FROM user_setting WHERE user_id = ?1",
    "DELETE FROM user_hide WHERE user_id = ?1",
    "DELETE FROM flag WHERE user_id = ?1",
    "DELETE FROM notification WHERE user_id = ?1",
    "DELETE FROM banner_state WHERE user_id = ?1",
    "DELETE FROM account_code WHERE user_id = ?1",
    "DELETE FROM user_tag WHERE user_id = ?1",
    "DELETE FROM event_gallery WHERE media_id IN (SELECT id FROM media_item WHERE owner_id = ?1)",
    "DELETE FROM contribution_media WHERE media_id IN (SELECT id FROM media_item WHERE owner_id = ?1)",
    "DELETE FROM media WHERE path IN (SELECT path FROM media_item WHERE owner_id = ?1)",
    "DELETE FROM media_item WHERE owner_id = ?1",
    "DELETE FROM media_chunk WHERE upload_id IN (SELECT id FROM media_upload WHERE owner_id = ?1)",
    "DELETE FROM media_upload WHERE owner_id = ?1",
    "DELETE FROM contact_request WHERE user_id = ?1",
    "DELETE FROM user_provider WHERE user_id = ?1",
    "DELETE FROM media WHERE substr(path, 1, length('user/' || ?1 || '/cover/')) = 'user/' || ?1 || '/cover/'",
    // their marks in group threads (what they read, deleted and hid); the messages
    // they wrote stay, a deleted user's, as in pair threads
    "DELETE FROM pm_group_hidden WHERE user_id = ?1",
    "DELETE FROM pm_group_member WHERE user_id = ?1",
    "DELETE FROM contribution_notification_off WHERE user_id = ?1",
    // their progress in courses (which lessons they completed)
    "DELETE FROM course_lesson_completion WHERE user_id = ?1",
];
