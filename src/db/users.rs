//! Users.

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::user::{User, username_key};

/// Column list matching [`from_row`].
pub const COLUMNS: &str = "id, username, email, real_name, is_staff, ext_id, avatar, cover, bio, location, \
    location_lat_lng, position_lat_lng, date_of_birth, description, gender, website, reputation, \
    community_badge, reg_approved, company_name, company_role, followings_counter, followers_counter, \
    posts_counter, discussions_counter, polls_counter, date_joined, deleted, categories_counter";

/// [`COLUMNS`] prefixed with `u.` for joins.
pub fn columns_as(alias: &str) -> String {
    COLUMNS
        .split(", ")
        .map(|c| format!("{alias}.{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Maps a row selected with [`COLUMNS`], starting at column `o`.
pub fn from_row_at(r: &rusqlite::Row<'_>, o: usize) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(o)?,
        username: r.get(o + 1)?,
        email: r.get(o + 2)?,
        real_name: r.get(o + 3)?,
        is_staff: r.get(o + 4)?,
        ext_id: r.get(o + 5)?,
        avatar: r.get(o + 6)?,
        cover: r.get(o + 7)?,
        bio: r.get(o + 8)?,
        location: r.get(o + 9)?,
        location_lat_lng: r.get(o + 10)?,
        position_lat_lng: r.get(o + 11)?,
        date_of_birth: r.get(o + 12)?,
        description: r.get(o + 13)?,
        gender: r.get(o + 14)?,
        website: r.get(o + 15)?,
        reputation: r.get(o + 16)?,
        community_badge: r.get(o + 17)?,
        reg_approved: r.get(o + 18)?,
        company_name: r.get(o + 19)?,
        company_role: r.get(o + 20)?,
        followings_counter: r.get(o + 21)?,
        followers_counter: r.get(o + 22)?,
        posts_counter: r.get(o + 23)?,
        discussions_counter: r.get(o + 24)?,
        polls_counter: r.get(o + 25)?,
        date_joined: r.get(o + 26)?,
        deleted: r.get(o + 27)?,
        categories_counter: r.get(o + 28)?,
    })
}

/// Maps a row selected with [`COLUMNS`].
pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<User> {
    from_row_at(r, 0)
}

/// A user by id, deleted or not.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<User>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM user WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// A live user by username (case-insensitive), with its password hash.
pub fn by_username(
    conn: &Connection,
    username: &str,
) -> rusqlite::Result<Option<(User, Option<String>)>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, password FROM user WHERE username_key = ?1 AND deleted = 0"
    ))?
    .query_row([username_key(username)], |r| {
        Ok((from_row(r)?, r.get(COLUMNS.split(", ").count())?))
    })
    .optional()
}

/// Whether a live user exists.
pub fn is_live(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user WHERE id = ?1 AND deleted = 0")?
        .exists([id])
}

/// `(is_staff)` of a live user, `None` when missing or deleted: the check every
/// authenticated request makes.
pub fn live_staff_flag(conn: &Connection, id: i64) -> rusqlite::Result<Option<bool>> {
    conn.prepare_cached("SELECT is_staff FROM user WHERE id = ?1 AND deleted = 0")?
        .query_row([id], |r| r.get(0))
        .optional()
}

/// What `user create` and the importer need to make a user.
#[derive(Debug, Clone, Default)]
pub struct NewUser {
    pub id: Option<i64>,
    pub username: String,
    pub email: Option<String>,
    pub real_name: String,
    pub password_hash: Option<String>,
    pub is_staff: bool,
    pub ext_id: Option<String>,
    pub date_joined: Timestamp,
}

/// Inserts a user; returns its id. A taken username or email is a unique violation.
pub fn insert(conn: &Connection, u: &NewUser) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO user (id, username, username_key, email, real_name, password, is_staff, ext_id, date_joined)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        u.id,
        u.username,
        username_key(&u.username),
        u.email,
        u.real_name,
        u.password_hash,
        u.is_staff,
        u.ext_id,
        u.date_joined
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Live users by id.
pub fn list(conn: &Connection) -> rusqlite::Result<Vec<User>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM user WHERE deleted = 0 ORDER BY id"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    rows.collect()
}

/// Replaces a user's password hash (None: no password).
pub fn set_password(conn: &Connection, id: i64, hash: Option<&str>) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE user SET password = ?2 WHERE id = ?1",
        params![id, hash],
    )?;
    Ok(())
}

/// Sets a user's staff flag.
pub fn set_staff(conn: &Connection, id: i64, staff: bool) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE user SET is_staff = ?2 WHERE id = ?1",
        params![id, staff],
    )?;
    Ok(())
}

/// Soft-deletes a user: its tokens, sessions and grants stop working, and the follow
/// counters of the users around it, the followers of the categories it follows and the
/// vote tallies of what it voted stop counting it (SPEC §4: counters leave out deleted
/// users).
pub fn soft_delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    if conn.execute(
        "UPDATE user SET deleted = 1 WHERE id = ?1 AND deleted = 0",
        [id],
    )? == 0
    {
        return Ok(());
    }
    conn.execute(
        "UPDATE user SET followers_counter = followers_counter - 1
         WHERE id IN (SELECT followed FROM follow WHERE follower = ?1)",
        [id],
    )?;
    conn.execute(
        "UPDATE user SET followings_counter = followings_counter - 1
         WHERE id IN (SELECT follower FROM follow WHERE followed = ?1)",
        [id],
    )?;
    conn.execute(
        "UPDATE user SET mutuals_counter = mutuals_counter - 1
         WHERE id IN (SELECT followed FROM follow WHERE follower = ?1 AND mutual = 1)",
        [id],
    )?;
    // its category follows and votes stop counting too (SPEC §8: counters count live users)
    conn.execute(
        "UPDATE category SET followers_counter = followers_counter - 1
         WHERE id IN (SELECT category_id FROM category_follow WHERE user_id = ?1)",
        [id],
    )?;
    conn.execute(
        "UPDATE vote_tally SET n = n - 1
         WHERE (contribution_pk, reaction_id) IN
               (SELECT contribution_pk, reaction_id FROM vote WHERE user_id = ?1)",
        [id],
    )?;
    conn.execute(
        "UPDATE oauth_grant SET revoked = 1 WHERE user_id = ?1",
        [id],
    )?;
    conn.execute("DELETE FROM login_session WHERE user_id = ?1", [id])?;
    Ok(())
}

/// The tags of a user.
pub fn tags(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<crate::model::user::Tag>> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.id, t.name FROM user_tag ut JOIN tag t ON t.id = ut.tag_id WHERE ut.user_id = ?1 ORDER BY t.id",
    )?;
    let rows = stmt.query_map([user_id], |r| {
        Ok(crate::model::user::Tag {
            id: r.get(0)?,
            name: r.get(1)?,
        })
    })?;
    rows.collect()
}
