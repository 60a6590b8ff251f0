//! The schema: `schema.sql` embedded, its version in `PRAGMA user_version`, and the
//! steps that bring an older file up to date in place (never by dropping data).

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::db::{APPLICATION_ID, DbError};

/// The whole schema of the current version.
pub const SCHEMA: &str = include_str!("../../../schema.sql");

/// The schema version this binary writes.
pub const VERSION: i64 = 14;

/// One step from version N to N+1, run inside the migration's transaction.
type Step = fn(&Connection) -> Result<(), DbError>;

/// Steps from version N to N+1, applied in order to older files. `MIGRATIONS[0]`
/// takes version 1 to 2, and so on. Each runs in one transaction with the
/// `user_version` bump, so a file is either wholly migrated by a step or untouched.
const MIGRATIONS: &[Step] = &[
    super::unique_names::v2_unique_names,
    v3_kit,
    v4_position,
    v5_contribution_tally,
    v6_course_listed_count,
    v7_course_category_ids,
    v8_rich_text,
    v9_feeds_and_search,
    v10_people_groups_events_messages,
    v11_groups_events_messages_people,
    v12_addressed,
    v13_lessons,
    v14_post_pictures,
];

/// Version 3: what the platform's UI kit reads (SPEC §8): votes and their tallies,
/// category follows (with `user.categories_counter` and `category.followers_counter`),
/// hidden users and per-user settings. Only new tables and two counter columns that
/// start at 0, which is exact: an older file has no follows or votes to count.
fn v3_kit(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(
        "ALTER TABLE user ADD COLUMN categories_counter INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE category ADD COLUMN followers_counter INTEGER NOT NULL DEFAULT 0;",
    )?;
    // the new tables and indexes exactly as schema.sql has them
    for stmt in kit_statements() {
        conn.execute_batch(&stmt)?;
    }
    Ok(())
}

/// Version 4: the replication position (SPEC §9, [`crate::db::position`]), starting at 0.
fn v4_position(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(crate::db::position::CREATE)?;
    Ok(())
}

/// Version 5: live items per kind ([`crate::db::contribution_tally`]), counted once here
/// and kept by triggers from then on.
fn v5_contribution_tally(conn: &Connection) -> Result<(), DbError> {
    let create = tally_statements().ok_or_else(|| {
        DbError::NotHearth("schema.sql lacks contribution_tally (a build error)".into())
    })?;
    conn.execute_batch(create)?;
    conn.execute_batch(crate::db::contribution_tally::FILL)?;
    Ok(())
}

/// Version 6: the count of listed courses in one row (`course_listed_count`), summed
/// once here from the blocks and kept by the listing triggers from then on: the three
/// triggers are replaced by [`SCHEMA`]'s, which also keep the count.
fn v6_course_listed_count(conn: &Connection) -> Result<(), DbError> {
    let create = listed_count_statements().ok_or_else(|| {
        DbError::NotHearth("schema.sql lacks course_listed_count (a build error)".into())
    })?;
    conn.execute_batch(
        "DROP TRIGGER course_listed_insert;
         DROP TRIGGER course_listed_delete;
         DROP TRIGGER course_listed_update;",
    )?;
    conn.execute_batch(create)?;
    conn.execute_batch(
        "UPDATE course_listed_count SET n = (SELECT coalesce(sum(n), 0) FROM course_listed_block)",
    )?;
    Ok(())
}

/// Version 7: `course.category_ids`, a course's category ids as a JSON array, filled
/// once here from `course_category`; from then on [`crate::db::courses::add_categories`]
/// writes it (courses without categories keep the column's default, `[]`).
fn v7_course_category_ids(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(sql!(
        "ALTER TABLE course ADD COLUMN category_ids TEXT NOT NULL DEFAULT '[]';
         UPDATE course SET category_ids = {}
         WHERE id IN (SELECT course_id FROM course_category);",
        crate::db::courses::CATEGORY_IDS
    ))?;
    Ok(())
}

/// Version 8: rich text (SPEC §5). A contribution's sanitized `html`, plain `summary`,
/// `summary_html` and `summary_truncated`, rendered here from every stored text through
/// the one renderer the API and the importer use ([`crate::db::contributions::render_all`]);
/// a comment's `comment_count` becomes its live replies; the indexes of threads, of a
/// category's items and of its followers (that one `IF NOT EXISTS`: a file older than
/// version 3 got it with the kit's tables, which are made as `schema.sql` has them).
/// The custom menus' tables, with the three empty menus.
/// `addons.polls_enabled` is turned off: hearth keeps no polls, and the kit offers
/// them (and then loses them) while it is on.
fn v8_rich_text(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(
        "ALTER TABLE contribution ADD COLUMN html TEXT NOT NULL DEFAULT '';
         ALTER TABLE contribution ADD COLUMN summary TEXT NOT NULL DEFAULT '';
         ALTER TABLE contribution ADD COLUMN summary_html TEXT NOT NULL DEFAULT '';
         ALTER TABLE contribution ADD COLUMN summary_truncated INTEGER NOT NULL DEFAULT 0;
         DROP INDEX contribution_parent;
         CREATE INDEX contribution_replies ON contribution (parent_pk, deleted, added_at) WHERE parent_pk IS NOT NULL;
         CREATE INDEX contribution_threads ON contribution (target_pk, parent_pk, deleted, added_at) WHERE target_pk IS NOT NULL;
         CREATE INDEX contribution_category_items ON contribution_category (category_id, contribution_pk);
         CREATE INDEX IF NOT EXISTS category_follow_newest ON category_follow (category_id, created_at DESC, user_id);
         UPDATE contribution SET comment_count =
             (SELECT count(*) FROM contribution r WHERE r.parent_pk = contribution.pk AND r.deleted = 0)
         WHERE kind = 'comment';
         UPDATE preference SET value = 'false' WHERE section = 'addons' AND name = 'polls_enabled';",
    )?;
    crate::db::contributions::render_all(conn)?;
    for stmt in table_statements(&["custom_menu", "custom_menu_item"]) {
        conn.execute_batch(&stmt)?;
    }
    crate::db::custom_menus::seed(conn, crate::clock::Clock::system().now())?;
    Ok(())
}

/// Version 9: feeds, search, notifications and connections (SPEC §10). `last_activity_at` on items and on their
/// category links, computed here once (an item's newest live comment, a comment's
/// newest live reply, or its creation) and kept by triggers from then on; then
/// [`SCHEMA`]'s feed and search section as it stands (indexes, triggers, `feed_seen`,
/// the FTS5 tables, the notifications, which start empty), and the search indexes built
/// from the rows.
fn v9_feeds_and_search(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(
        "ALTER TABLE contribution ADD COLUMN last_activity_at INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE contribution ADD COLUMN collapsed INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE contribution_category ADD COLUMN last_activity_at INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE user ADD COLUMN unseen_notifications INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE user ADD COLUMN connections_counter INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE user ADD COLUMN connection_requests_sent_counter INTEGER NOT NULL DEFAULT 0;
         ALTER TABLE user ADD COLUMN connection_requests_received_counter INTEGER NOT NULL DEFAULT 0;
         UPDATE contribution SET last_activity_at = max(added_at, coalesce(
             (SELECT max(r.added_at) FROM contribution r WHERE r.target_pk = contribution.pk AND r.deleted = 0), 0))
         WHERE kind <> 'comment';
         UPDATE contribution SET last_activity_at = max(added_at, coalesce(
             (SELECT max(r.added_at) FROM contribution r WHERE r.parent_pk = contribution.pk AND r.deleted = 0), 0))
         WHERE kind = 'comment';
         UPDATE contribution_category SET last_activity_at =
             (SELECT c.last_activity_at FROM contribution c WHERE c.pk = contribution_category.contribution_pk);",
    )?;
    let section = feed_search_statements().ok_or_else(|| {
        DbError::NotHearth("schema.sql lacks its feeds and search section (a build error)".into())
    })?;
    conn.execute_batch(section)?;
    crate::db::search::index::rebuild(conn)?;
    Ok(())
}

/// [`SCHEMA`]'s feeds and search section: from its heading to version 10's.
fn feed_search_statements() -> Option<&'static str> {
    let start = SCHEMA.find(FEED_SEARCH_HEADING)?;
    let end = SCHEMA.find(V10_HEADING)?;
    SCHEMA.get(start..end)
}

/// Version 10: the rest of SPEC §10. The columns it adds to older tables ([`V10_COLUMNS`],
/// `0`/`NULL` by default: exact for an older file), then [`SCHEMA`]'s version 10 section.
fn v10_people_groups_events_messages(conn: &Connection) -> Result<(), DbError> {
    add_columns(conn, V10_COLUMNS)?;
    conn.execute_batch(section(V10_HEADING, Some(V11_HEADING))?)?;
    Ok(())
}

/// Version 11: what issues 32 and 33 added. The columns it adds to older tables
/// ([`V11_COLUMNS`]), then [`SCHEMA`]'s version 11 section, then the kept counts of the
/// rows an older file already has, its events' text index and their order keys (as of
/// the system clock: a key is only ever behind the time it is read at).
fn v11_groups_events_messages_people(conn: &Connection) -> Result<(), DbError> {
    add_columns(conn, V11_COLUMNS)?;
    super::rebuild::private_message(conn, SCHEMA)?;
    conn.execute_batch(section(V11_HEADING, Some(V12_HEADING))?)?;
    // what each side of a pair thread sees (db::messages, `pm_member.visible`)
    conn.execute_batch(
        "UPDATE pm_member SET visible = (SELECT count(*) FROM private_message p
             WHERE p.thread_id = pm_member.thread_id
               AND ((p.sender_id = pm_member.user_id AND p.sender_hidden = 0)
                 OR (p.receiver_id = pm_member.user_id AND p.receiver_hidden = 0)));",
    )?;
    conn.execute_batch(
        "UPDATE community_group SET items_counter = (SELECT count(*) FROM contribution c
             WHERE c.group_id = community_group.id AND c.target_pk IS NULL AND c.deleted = 0);
         UPDATE event SET items_counter = (SELECT count(*) FROM contribution c
             WHERE c.event_id = event.id AND c.target_pk IS NULL AND c.deleted = 0);
         INSERT INTO search_event (rowid, name, description)
         SELECT id, name, description FROM event WHERE deleted = 0;",
    )?;
    // every event's order key (the columns start stale: 0) as of now
    crate::db::events::refresh_keys(conn, crate::clock::Clock::system().now(), i64::MAX)?;
    Ok(())
}

/// Version 12: whether an item is addressed to tags, on its row (`contribution.addressed`,
/// and its comments'), set from the addressing rows an older file has, then kept by
/// [`SCHEMA`]'s version 12 triggers; the items whose notifications members stopped and
/// the items members follow (new tables, empty: `follower_count` starts exact at 0).
fn v12_addressed(conn: &Connection) -> Result<(), DbError> {
    add_columns(conn, V12_COLUMNS)?;
    conn.execute_batch(section(V12_HEADING, Some(V13_HEADING))?)?;
    conn.execute_batch(
        "UPDATE contribution SET addressed = 1
         WHERE pk IN (SELECT contribution_pk FROM contribution_addressing)
            OR target_pk IN (SELECT contribution_pk FROM contribution_addressing);",
    )?;
    Ok(())
}

/// Version 13: course lessons. The columns it adds to the section and lesson tables
/// ([`V13_COLUMNS`]: an older file has no lessons, hearth served none), the lessons'
/// index by section with their status (the published ones are counted), then [`SCHEMA`]'s
/// version 13 section (lesson comments, empty, and the triggers that count them; the
/// preferences' version, counted from 0 here).
fn v13_lessons(conn: &Connection) -> Result<(), DbError> {
    add_columns(conn, V13_COLUMNS)?;
    conn.execute_batch(
        "DROP INDEX course_lesson_section;
         CREATE INDEX course_lesson_section ON course_lesson (section_id, status);",
    )?;
    conn.execute_batch(section(V13_HEADING, Some(V14_HEADING))?)?;
    Ok(())
}

/// The columns version 13 adds, each last in its table as in `schema.sql` (the
/// notification's refer to `course_lesson_comment`, which the section then makes: SQLite
/// checks a reference when a row is written, not when the column is added).
const V13_COLUMNS: &[&str] = &[
    "ALTER TABLE course_section ADD COLUMN lessons_order TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE course_lesson ADD COLUMN type TEXT NOT NULL DEFAULT 'lesson' CHECK (type = 'lesson' OR type = 'quiz')",
    "ALTER TABLE course_lesson ADD COLUMN status TEXT NOT NULL DEFAULT 'draft' CHECK (status = 'draft' OR status = 'published')",
    "ALTER TABLE course_lesson ADD COLUMN comments_enabled INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE course_lesson ADD COLUMN text TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE course_lesson ADD COLUMN html TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE course_lesson ADD COLUMN created_by INTEGER REFERENCES user (id)",
    "ALTER TABLE course_lesson ADD COLUMN comment_count INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE notification ADD COLUMN course_id INTEGER REFERENCES course (id)",
    "ALTER TABLE notification ADD COLUMN lesson_comment_id INTEGER REFERENCES course_lesson_comment (id) ON DELETE CASCADE",
];

/// The first line of [`SCHEMA`]'s version 13 section.
const V13_HEADING: &str = "-- Version 13 (course lessons)";

/// Version 14: the media discussions and posts show (a new table, empty: no item of an
/// older file shows any), media that are links or shares besides pictures (the table
/// rebuilt), and the shares each item counts (0, exact: an older file has none).
fn v14_post_pictures(conn: &Connection) -> Result<(), DbError> {
    add_columns(
        conn,
        &["ALTER TABLE contribution ADD COLUMN share_count INTEGER NOT NULL DEFAULT 0"],
    )?;
    super::rebuild::media_item(conn, SCHEMA)?;
    conn.execute_batch(section(V14_HEADING, None)?)?;
    Ok(())
}

/// The first line of [`SCHEMA`]'s version 14 section.
const V14_HEADING: &str = "-- Version 14 (pictures in posts)";

/// The columns version 12 adds to `contribution`, last in it as in `schema.sql`.
const V12_COLUMNS: &[&str] = &[
    "ALTER TABLE contribution ADD COLUMN addressed INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE contribution ADD COLUMN follower_count INTEGER NOT NULL DEFAULT 0",
];

/// The first line of [`SCHEMA`]'s version 12 section.
const V12_HEADING: &str = "-- Version 12 (issue 32)";

/// `ALTER TABLE t ADD COLUMN c` for each of `columns`, but a column that a table an
/// older step made from today's text already has.
fn add_columns(conn: &Connection, columns: &[&str]) -> Result<(), DbError> {
    for sql in columns {
        let w: Vec<&str> = sql.split_whitespace().collect();
        let q = "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2";
        if !conn.prepare(q)?.exists([w.get(2), w.get(5)])? {
            conn.execute_batch(sql)?;
        }
    }
    Ok(())
}

/// [`SCHEMA`] from the line `from` to the line `to` (the end without one).
fn section(from: &str, to: Option<&str>) -> Result<&'static str, DbError> {
    let missing = || DbError::NotHearth(format!("schema.sql lacks `{from}` (a build error)"));
    let start = SCHEMA.find(from).ok_or_else(missing)?;
    let end = match to {
        Some(to) => SCHEMA.find(to).ok_or_else(missing)?,
        None => SCHEMA.len(),
    };
    SCHEMA.get(start..end).ok_or_else(missing)
}

/// The columns version 11 adds to older tables, each last in its table as in `schema.sql`.
const V11_COLUMNS: &[&str] = &[
    "ALTER TABLE community_group ADD COLUMN items_counter INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE event ADD COLUMN items_counter INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE event ADD COLUMN next_start INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE event ADD COLUMN next_end INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE event ADD COLUMN prev_end INTEGER",
    "ALTER TABLE event ADD COLUMN over INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE pm_member ADD COLUMN visible INTEGER NOT NULL DEFAULT 0",
];

/// The first line of [`SCHEMA`]'s version 11 section.
const V11_HEADING: &str = "-- Version 11 (issues 32 and 33)";

/// The columns version 10 adds to older tables, each last in its table as in `schema.sql`.
const V10_COLUMNS: &[&str] = &[
    "ALTER TABLE user ADD COLUMN blocked_at INTEGER",
    "ALTER TABLE user ADD COLUMN blocked_until INTEGER",
    "ALTER TABLE notification ADD COLUMN message_id INTEGER REFERENCES private_message (id)",
    "ALTER TABLE contribution ADD COLUMN group_id INTEGER REFERENCES community_group (id)",
    "ALTER TABLE contribution ADD COLUMN event_id INTEGER REFERENCES event (id)",
    "ALTER TABLE notification ADD COLUMN group_id INTEGER REFERENCES community_group (id)",
    "ALTER TABLE notification ADD COLUMN event_id INTEGER REFERENCES event (id)",
    "ALTER TABLE tag ADD COLUMN description TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE tag ADD COLUMN color TEXT NOT NULL DEFAULT '#9e9e9e'",
    "ALTER TABLE tag ADD COLUMN visible INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE tag ADD COLUMN visibility_boost INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE tag ADD COLUMN active INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE tag ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE tag ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0",
];

/// The first line of [`SCHEMA`]'s version 10 section.
const V10_HEADING: &str = "-- Version 10 (SPEC §10: people, groups, events";

/// The first line of [`SCHEMA`]'s feeds and search section.
const FEED_SEARCH_HEADING: &str = "-- Feeds and search (SPEC §10, version 9";

/// `course_listed_count`, its row and the three listing triggers as [`SCHEMA`] has
/// them (from the table's `CREATE TABLE` to the end of `course_listed_update`).
fn listed_count_statements() -> Option<&'static str> {
    let start = SCHEMA.find("CREATE TABLE course_listed_count")?;
    let last = start + SCHEMA[start..].find("CREATE TRIGGER course_listed_update")?;
    // the trigger's own END, at the start of its line (a CASE inside ends in `END;` too)
    let end = last + SCHEMA[last..].find("\nEND;")? + "\nEND;".len();
    Some(&SCHEMA[start..end])
}

/// The table `contribution_tally` and its triggers as [`SCHEMA`] has them (from its
/// `CREATE TABLE` to the end of the last `contribution_tally_` trigger), so version 5
/// creates exactly what a fresh file has.
fn tally_statements() -> Option<&'static str> {
    let start = SCHEMA.find("CREATE TABLE contribution_tally")?;
    let last = start + SCHEMA[start..].find("CREATE TRIGGER contribution_tally_update")?;
    let end = last + SCHEMA[last..].find("END;")? + "END;".len();
    Some(&SCHEMA[start..end])
}

/// The `CREATE TABLE` / `CREATE INDEX` statements of [`SCHEMA`] for the tables that
/// version 3 added, so the migration cannot drift from the fresh schema.
fn kit_statements() -> Vec<String> {
    table_statements(&["vote", "vote_tally", "category_follow", "user_hide", "user_setting"])
}

/// The `CREATE TABLE` / `CREATE INDEX` statements of [`SCHEMA`] for `tables`, so a
/// migration that adds them cannot drift from the fresh schema.
fn table_statements(tables: &[&str]) -> Vec<String> {
    // comments out first (they may hold `;`); the schema has no `--` inside a string
    let code: String =
        SCHEMA.lines().map(|l| l.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut out = Vec::new();
    for stmt in code.split(';') {
        let code = stmt.trim();
        let words: Vec<&str> = code.split_whitespace().collect();
        let table = match words.as_slice() {
            ["CREATE", "TABLE", name, ..] => *name,
            ["CREATE", "INDEX", _, "ON", name, ..] => *name,
            _ => continue,
        };
        if tables.contains(&table) {
            out.push(format!("{code};"));
        }
    }
    out
}

/// A fresh in-memory database with the whole schema: what the unit tests of `db` run
/// on.
#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
pub fn test_db() -> Connection {
    let c = Connection::open_in_memory().unwrap();
    create(&c).unwrap();
    c
}

/// How many ephemeral tables (`OpenEphemeral`: a temporary B-tree SQLite builds and
/// fills on each run, for an `IN` list or a sort) the program of `sql` opens. For tests
/// that keep them out of the hot statements.
#[cfg(test)]
#[expect(clippy::unwrap_used, reason = "tests fail loudly")]
pub fn ephemeral_tables(conn: &Connection, sql: &str) -> usize {
    let mut stmt = conn.prepare(&format!("EXPLAIN {sql}")).unwrap();
    // the parameters stay unbound (NULL): the program is the same for every value
    let mut rows = stmt.raw_query();
    let mut n = 0;
    while let Some(r) = rows.next().unwrap() {
        n += usize::from(r.get::<_, String>(1).unwrap() == "OpenEphemeral");
    }
    n
}

/// Creates the current schema in an empty database.
pub fn create(conn: &Connection) -> Result<(), DbError> {
    conn.execute_batch(SCHEMA)?;
    conn.pragma_update(None, "application_id", APPLICATION_ID)?;
    conn.pragma_update(None, "user_version", VERSION)?;
    Ok(())
}

/// Returns the schema version of a hearth database, or an error naming why the file is
/// not one (another SQLite file, not SQLite at all, or newer than this binary).
pub fn identify(conn: &Connection) -> Result<i64, DbError> {
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| DbError::NotHearth(format!("not a hearth database ({e})")))?;
    if app != APPLICATION_ID {
        return Err(DbError::NotHearth(
            "not a hearth database (another application's SQLite file)".into(),
        ));
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > VERSION {
        return Err(DbError::NotHearth(format!(
            "database schema version {version} is newer than this hearth ({VERSION}); upgrade hearth"
        )));
    }
    Ok(version)
}

/// Checks that the file is a hearth database and migrates it to [`VERSION`].
pub fn check_and_migrate(conn: &Connection) -> Result<(), DbError> {
    let version = identify(conn)?;
    if version >= VERSION {
        return Ok(());
    }
    let keys: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
    let done = migrate_from(conn, version, keys);
    // back as they were however the steps ended
    conn.pragma_update(None, "foreign_keys", keys)?;
    done
}

/// The versions whose step to the next rebuilds a table: it runs with foreign keys off,
/// as the drop of the old table would fail or cascade with them on, and checks the keys
/// of what it rebuilt itself before the commit.
const REBUILDS_FROM: &[i64] = &[10, 13];

/// Runs the steps from `version` on, each in its transaction, with foreign keys as
/// `keys` says but for [`REBUILDS_FROM`] (the pragma is a no-op inside a transaction, so it
/// is set before each).
fn migrate_from(conn: &Connection, mut version: i64, keys: bool) -> Result<(), DbError> {
    while version < VERSION {
        let index = usize::try_from(version - 1).ok();
        let step = index.and_then(|i| MIGRATIONS.get(i)).ok_or_else(|| {
            DbError::NotHearth(format!("no migration from schema version {version}"))
        })?;
        let rebuilds = REBUILDS_FROM.contains(&version);
        conn.pragma_update(None, "foreign_keys", keys && !rebuilds)?;
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let done = step(conn).and_then(|()| {
            conn.pragma_update(None, "user_version", version + 1)?;
            conn.execute_batch("COMMIT")?;
            Ok(())
        });
        if let Err(e) = done {
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            return Err(e);
        }
        tracing::info!(from = version, to = version + 1, "migrated database schema");
        version += 1;
    }
    Ok(())
}

/// Prepares `hearth restore`'s private copy of a backup: checks that it is a hearth
/// database (not newer than this binary) that passes `PRAGMA integrity_check`,
/// migrates it to [`VERSION`], and leaves it in rollback-journal mode so that the one
/// file holds everything (no `-wal`; the first [`crate::db::Db::open`] turns WAL back on).
/// Returns the schema version the copy had. Only ever called on the copy, never on
/// the backup itself.
pub fn prepare_restore(path: &Path) -> Result<i64, DbError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    let version = identify(&conn)?;
    let problems = crate::db::integrity::integrity(&conn)
        .map_err(|e| DbError::NotHearth(format!("not a readable database ({e})")))?;
    if let Some(first) = problems.first() {
        return Err(DbError::NotHearth(format!(
            "fails the integrity check ({} problem(s); first: {first})",
            problems.len()
        )));
    }
    check_and_migrate(&conn)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(DbError::NotHearth(format!(
            "could not leave WAL mode (journal_mode is {mode})"
        )));
    }
    conn.close().map_err(|(_, e)| DbError::from(e))?;
    Ok(version)
}

/// What [`detach_wal`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detached {
    /// The file now holds everything: its `-wal` (if any) was checkpointed into it and
    /// removed, and it is in rollback-journal mode.
    Alone,
    /// Another connection (another process) has the database open.
    InUse,
    /// SQLite could not read it as a database (why): its `-wal`, if any, is untouched.
    Unreadable(String),
}

/// Folds a `-wal` left beside the database at `path` into it and takes it out of WAL
/// mode, so that the file stands alone (what `hearth restore` does to the file it
/// replaces before keeping it). Leaving WAL mode needs every other connection closed,
/// so this is also the test that no process, a hearth older than the advisory file
/// lock included, has the database open.
pub fn detach_wal(path: &Path) -> Result<Detached, DbError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(1))?;
    let mode = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get::<_, String>(0));
    let out = match mode {
        Ok(m) if m.eq_ignore_ascii_case("delete") => Detached::Alone,
        Ok(_) => Detached::InUse,
        Err(rusqlite::Error::SqliteFailure(f, _))
            if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) =>
        {
            Detached::InUse
        }
        Err(e) => Detached::Unreadable(e.to_string()),
    };
    conn.close().map_err(|(_, e)| DbError::from(e))?;
    Ok(out)
}

#[cfg(test)]
mod tests;
