//! Users.

use rusqlite::{Connection, OptionalExtension, params};

use super::user_blocks::Block;
use crate::clock::Timestamp;
use crate::model::user::{User, username_key};

/// The columns a user's minimal JSON shows (`User::minimal`), first in [`COLUMNS`]:
/// what a course reads of its creator and a contribution of its author, where the
/// other 23 columns would be read for nothing.
macro_rules! brief_columns {
    () => {
        "id, username, real_name, avatar, community_badge, deleted"
    };
}
pub const BRIEF: &str = brief_columns!();

/// Column list matching [`from_row`]: [`BRIEF`], then the rest.
pub const COLUMNS: &str = concat!(
    brief_columns!(),
    ", email, is_staff, ext_id, cover, bio, location, location_lat_lng, position_lat_lng, \
    date_of_birth, description, gender, website, reputation, reg_approved, company_name, \
    company_role, followings_counter, followers_counter, posts_counter, discussions_counter, \
    polls_counter, date_joined, categories_counter, connections_counter"
);

/// How many columns [`COLUMNS`] names: where a query's own columns after them start.
pub const COLUMN_COUNT: usize = {
    let (bytes, mut i, mut n) = (COLUMNS.as_bytes(), 0, 1);
    while i < bytes.len() {
        if bytes[i] == b',' {
            n += 1;
        }
        i += 1;
    }
    n
};

/// [`COLUMNS`] prefixed with `alias.` for joins.
pub fn columns_as(alias: &str) -> String {
    qualified(COLUMNS, alias)
}

/// A column list (`a, b, c`) with each column prefixed by `alias.`, for joins: every
/// table's `columns_as` (kept here, beside the table most joined, as `db` has no
/// module of shared helpers yet).
pub fn qualified(columns: &str, alias: &str) -> String {
    columns.split(", ").map(|c| format!("{alias}.{c}")).collect::<Vec<_>>().join(", ")
}

/// A paginated query: `columns` of the rows `from` selects (a `FROM … WHERE …` whose
/// parameters are `?1`…), in `order`.
#[derive(Debug, Clone, Copy)]
pub struct Paged<'a> {
    pub columns: &'a str,
    pub from: &'a str,
    pub order: &'a str,
}

impl Paged<'_> {
    /// How many rows `from` selects, and the page of them `limit`/`offset` names:
    /// one `from` for both, so that the count always agrees with the pages.
    pub fn run<T>(
        &self,
        conn: &Connection,
        args: &[&dyn rusqlite::ToSql],
        (limit, offset): (i64, i64),
        map: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<(i64, Vec<T>)> {
        let Paged { columns, from, order } = *self;
        let count = conn
            .prepare_cached(&format!("SELECT count(*) {from}"))?
            .query_row(args, |r| r.get(0))?;
        let n = args.len();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {columns} {from} ORDER BY {order} LIMIT ?{} OFFSET ?{}",
            n + 1,
            n + 2
        ))?;
        let all = args.iter().copied().chain([&limit as &dyn rusqlite::ToSql, &offset]);
        let rows = stmt.query_map(rusqlite::params_from_iter(all), map)?;
        Ok((count, rows.collect::<Result<_, _>>()?))
    }
}

/// The counters kept on rows (SPEC §5, §8), which writes keep exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// `user.followers_counter`
    Followers,
    /// `user.followings_counter`
    Followings,
    /// `user.posts_counter`
    Posts,
    /// `user.discussions_counter`
    Discussions,
    /// `user.categories_counter`
    FollowedCategories,
    /// `category.followers_counter`
    CategoryFollowers,
    /// `contribution.comment_count` (by `pk`)
    Comments,
}

/// Adds `delta` to `counter` of row `id`.
pub fn add_to(conn: &Connection, counter: Counter, id: i64, delta: i64) -> rusqlite::Result<()> {
    let sql = match counter {
        Counter::Followers => {
            "UPDATE user SET followers_counter = followers_counter + ?2 WHERE id = ?1"
        }
        Counter::Followings => {
            "UPDATE user SET followings_counter = followings_counter + ?2 WHERE id = ?1"
        }
        Counter::Posts => "UPDATE user SET posts_counter = posts_counter + ?2 WHERE id = ?1",
        Counter::Discussions => {
            "UPDATE user SET discussions_counter = discussions_counter + ?2 WHERE id = ?1"
        }
        Counter::FollowedCategories => {
            "UPDATE user SET categories_counter = categories_counter + ?2 WHERE id = ?1"
        }
        Counter::CategoryFollowers => {
            "UPDATE category SET followers_counter = followers_counter + ?2 WHERE id = ?1"
        }
        Counter::Comments => {
            "UPDATE contribution SET comment_count = comment_count + ?2 WHERE pk = ?1"
        }
    };
    conn.prepare_cached(sql)?.execute([id, delta])?;
    Ok(())
}

/// Tables whose rows are live while `deleted = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    /// `user`
    User,
    /// `category`
    Category,
}

/// Up to this many ids are checked one lookup each; longer lists in one query.
const SHORT_LIST: usize = 16;

/// The first of `ids` (in their order) that is not a live row of `table`, in one query
/// however long the list (the ids a request body names must exist).
pub fn first_not_live(
    conn: &Connection,
    table: Live,
    ids: &[i64],
) -> rusqlite::Result<Option<i64>> {
    let table = match table {
        Live::User => "user",
        Live::Category => "category",
    };
    if ids.len() <= SHORT_LIST {
        // a lookup each through a cached statement: cheaper than building JSON for
        // json_each when the list is short (a post's or a course's few categories)
        let mut live =
            conn.prepare_cached(&format!("SELECT 1 FROM {table} WHERE id = ?1 AND deleted = 0"))?;
        for &id in ids {
            if !live.exists([id])? {
                return Ok(Some(id));
            }
        }
        return Ok(None);
    }
    let list = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    conn.prepare_cached(&format!(
        "SELECT j.value FROM json_each(?1) j
         WHERE NOT EXISTS (SELECT 1 FROM {table} t WHERE t.id = j.value AND t.deleted = 0)
         ORDER BY j.key LIMIT 1"
    ))?
    .query_row([list], |r| r.get(0))
    .optional()
}

/// Maps a row selected with [`BRIEF`] at `o`: a `User` with those fields, the others
/// left at their defaults.
pub fn brief_at(r: &rusqlite::Row<'_>, o: usize) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(o)?,
        username: r.get(o + 1)?,
        real_name: r.get(o + 2)?,
        avatar: r.get(o + 3)?,
        community_badge: r.get(o + 4)?,
        deleted: r.get(o + 5)?,
        ..User::default()
    })
}

/// Maps a row selected with [`COLUMNS`], starting at column `o`.
pub fn from_row_at(r: &rusqlite::Row<'_>, o: usize) -> rusqlite::Result<User> {
    Ok(User {
        email: r.get(o + 6)?,
        is_staff: r.get(o + 7)?,
        ext_id: r.get(o + 8)?,
        cover: r.get(o + 9)?,
        bio: r.get(o + 10)?,
        location: r.get(o + 11)?,
        location_lat_lng: r.get(o + 12)?,
        position_lat_lng: r.get(o + 13)?,
        date_of_birth: r.get(o + 14)?,
        description: r.get(o + 15)?,
        gender: r.get(o + 16)?,
        website: r.get(o + 17)?,
        reputation: r.get(o + 18)?,
        reg_approved: r.get(o + 19)?,
        company_name: r.get(o + 20)?,
        company_role: r.get(o + 21)?,
        followings_counter: r.get(o + 22)?,
        followers_counter: r.get(o + 23)?,
        posts_counter: r.get(o + 24)?,
        discussions_counter: r.get(o + 25)?,
        polls_counter: r.get(o + 26)?,
        date_joined: r.get(o + 27)?,
        categories_counter: r.get(o + 28)?,
        connections_counter: r.get(o + 29)?,
        ..brief_at(r, o)?
    })
}

/// Maps a row selected with [`COLUMNS`].
pub fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<User> {
    from_row_at(r, 0)
}

/// A user by id, deleted or not.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<User>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM user WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// What `GET /user/me/` shows of its caller beside [`COLUMNS`], read with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Own {
    /// The staff block on the row, in force or ended ([`super::user_blocks`]).
    pub block: Option<Block>,
    /// Notifications not yet seen ([`super::notifications::unseen`]).
    pub unseen_notifications: i64,
    /// Broadcast banners neither seen nor dismissed ([`super::banners::unseen`]).
    pub unseen_banners: i64,
    /// Connection requests sent, open ([`super::connections::counters`]).
    pub requests_sent: i64,
    /// Connection requests received, open.
    pub requests_received: i64,
}

/// A user by id, deleted or not, with [`Own`]: one statement where reading each fact
/// by its own module's function took five (issue 34: a statement costs about a
/// microsecond in rusqlite's cache and SQLite's machine before it reads anything).
pub fn own(conn: &Connection, id: i64) -> rusqlite::Result<Option<(User, Own)>> {
    let unseen_banners = super::banners::UNSEEN;
    conn.prepare_cached(sql!(
        "SELECT {COLUMNS}, blocked_at, blocked_until, unseen_notifications,
           connection_requests_sent_counter, connection_requests_received_counter,
           ({unseen_banners})
         FROM user WHERE id = ?1"
    ))?
    .query_row([id], |r| {
        let o = COLUMN_COUNT;
        let block = match r.get::<_, Option<Timestamp>>(o)? {
            Some(blocked_at) => Some(Block { user_id: id, blocked_at, until: r.get(o + 1)? }),
            None => None,
        };
        let own = Own {
            block,
            unseen_notifications: r.get(o + 2)?,
            requests_sent: r.get(o + 3)?,
            requests_received: r.get(o + 4)?,
            unseen_banners: r.get(o + 5)?,
        };
        Ok((from_row(r)?, own))
    })
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
    .query_row([username_key(username)], |r| Ok((from_row(r)?, r.get(COLUMN_COUNT)?)))
    .optional()
}

/// Whether a live user exists.
pub fn is_live(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user WHERE id = ?1 AND deleted = 0")?.exists([id])
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

/// Whether any user (deleted ones too: their names stay taken) has this username,
/// compared case-insensitively.
pub fn username_taken(conn: &Connection, username: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user WHERE username_key = ?1")?
        .exists([username_key(username)])
}

/// Whether any user (deleted ones too) has this mail address, compared as the unique
/// index compares it.
pub fn email_taken(conn: &Connection, email: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user WHERE email = ?1 COLLATE NOCASE")?.exists([email])
}

/// Sets a user's mail address (a unique violation if another user has it).
pub fn set_email(conn: &Connection, id: i64, email: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE user SET email = ?2 WHERE id = ?1")?.execute(params![id, email])?;
    Ok(())
}

/// The live user with this mail address (case-insensitive).
pub fn by_email(conn: &Connection, email: &str) -> rusqlite::Result<Option<User>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM user WHERE email = ?1 COLLATE NOCASE AND deleted = 0"
    ))?
    .query_row([email], from_row)
    .optional()
}

/// Live users by id.
pub fn list(conn: &Connection) -> rusqlite::Result<Vec<User>> {
    let mut stmt =
        conn.prepare(&format!("SELECT {COLUMNS} FROM user WHERE deleted = 0 ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    rows.collect()
}

/// Whether a new sign-up waits for staff approval before it may sign in (SPEC §10
/// People: the platform's `configurations.users_approval_enabled`, default off).
pub fn approval_required(conn: &Connection) -> rusqlite::Result<bool> {
    super::preferences::get_bool(conn, "configurations", "users_approval_enabled", false)
}

/// Sets whether staff approved a live user's registration (`reg_approved`: false, the
/// user cannot sign in with a password). Returns false when there is no such live user.
pub fn set_approved(conn: &Connection, id: i64, approved: bool) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached("UPDATE user SET reg_approved = ?2 WHERE id = ?1 AND deleted = 0")?
        .execute(params![id, approved])?;
    Ok(n > 0)
}

/// The live users whose registration awaits staff approval, oldest first (for the
/// CLI: a scan).
pub fn awaiting_approval(conn: &Connection) -> rusqlite::Result<Vec<User>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM user WHERE deleted = 0 AND reg_approved = 0 ORDER BY id"
    ))?;
    let rows = stmt.query_map([], from_row)?;
    rows.collect()
}

/// Replaces a user's password hash (None: no password) and ends every grant and
/// session the user holds, as deleting does: a password reset is how an owner takes an
/// account back, and a token won with the old password must not outlive it (RFC 6819
/// §5.2.2.3).
pub fn set_password(conn: &Connection, id: i64, hash: Option<&str>) -> rusqlite::Result<()> {
    conn.execute("UPDATE user SET password = ?2 WHERE id = ?1", params![id, hash])?;
    revoke_credentials(conn, id)
}

/// Replaces a user's hash by `new` if it is still `old` (a password check rehashing
/// at hearth's own cost, see `token::password::check`): the same password, so no
/// credential ends; a hash changed meanwhile (`user set-password`) is left alone.
pub fn rehash(conn: &Connection, id: i64, old: &str, new: &str) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached("UPDATE user SET password = ?3 WHERE id = ?1 AND password = ?2")?
        .execute(params![id, old, new])?;
    Ok(n > 0)
}

/// Sets a user's staff flag; taking it away ends the user's grants and sessions (tokens
/// issued to a staff member would otherwise keep acting for one until they expire).
pub fn set_staff(conn: &Connection, id: i64, staff: bool) -> rusqlite::Result<()> {
    let changed = conn.execute(
        "UPDATE user SET is_staff = ?2 WHERE id = ?1 AND is_staff != ?2",
        params![id, staff],
    )?;
    if changed > 0 && !staff {
        revoke_credentials(conn, id)?;
    }
    Ok(())
}

/// Ends what a user is signed in with: its OAuth grants (every access and refresh
/// token issued under them) and its browser sessions. JWTs are signed by the platform
/// with the shared secret and name no grant: a deleted user's are refused, a live
/// user's expire (or are revoked one by one at `/oauth/revoke_token/`).
pub fn revoke_credentials(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    for statement in REVOKING {
        conn.prepare_cached(statement)?.execute([id])?;
    }
    Ok(())
}

/// What [`revoke_credentials`] runs (`?1`: the user).
const REVOKING: [&str; 2] = [
    "UPDATE oauth_grant SET revoked = 1 WHERE user_id = ?1 AND revoked = 0",
    "DELETE FROM login_session WHERE user_id = ?1",
];

/// Soft-deletes a user: its tokens, sessions and grants stop working, and the follow
/// counters of the users around it, the followers of the categories it follows and the
/// vote tallies of what it voted stop counting it (SPEC §4: counters leave out deleted
/// users).
pub fn soft_delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    if conn.execute("UPDATE user SET deleted = 1 WHERE id = ?1 AND deleted = 0", [id])? == 0 {
        return Ok(());
    }
    for statement in LEAVING {
        conn.execute(statement, [id])?;
    }
    revoke_credentials(conn, id)
}

/// What a user's soft delete changes besides its row (`?1`: the user): the counters
/// its follows, category follows and votes counted in stop counting it (SPEC §8:
/// counters count live users); its connections and connection requests end (the
/// triggers take them off the other users' counters), and so do its follows of items
/// (their `follower_count`, by trigger); then [`revoke_credentials`].
const LEAVING: [&str; 11] = [
    "DELETE FROM connection WHERE other_id = ?1 AND user_id IN (SELECT other_id FROM connection WHERE user_id = ?1)",
    "DELETE FROM connection WHERE user_id = ?1",
    "DELETE FROM connection_request WHERE from_user = ?1",
    "DELETE FROM connection_request WHERE to_user = ?1",
    "UPDATE user SET followers_counter = followers_counter - 1
     WHERE id IN (SELECT followed FROM follow WHERE follower = ?1)",
    "UPDATE user SET followings_counter = followings_counter - 1
     WHERE id IN (SELECT follower FROM follow WHERE followed = ?1)",
    "UPDATE user SET mutuals_counter = mutuals_counter - 1
     WHERE id IN (SELECT followed FROM follow WHERE follower = ?1 AND mutual = 1)",
    "UPDATE category SET followers_counter = followers_counter - 1
     WHERE id IN (SELECT category_id FROM category_follow WHERE user_id = ?1)",
    "UPDATE vote_tally SET n = n - 1
     WHERE (contribution_pk, reaction_id) IN
           (SELECT contribution_pk, reaction_id FROM vote WHERE user_id = ?1)",
    // a poll counts live members' votes (its choices' counts follow, by trigger)
    "DELETE FROM poll_vote WHERE user_id = ?1",
    "DELETE FROM contribution_follow WHERE user_id = ?1",
];

/// The tags a user's profile shows (visible, active, not deleted: [`super::tags`]).
pub fn tags(conn: &Connection, user_id: i64) -> rusqlite::Result<Vec<crate::model::user::Tag>> {
    super::tags::shown_of(conn, user_id)
}
