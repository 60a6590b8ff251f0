//! A table rebuilt in place for a migration step: SQLite changes no column's NOT NULL
//! (nor a table's CHECK) in place. Each is rebuilt as
//! <https://www.sqlite.org/lang_altertable.html#otheralter> says, from `schema`
//! (`schema.sql`'s own text: a migrated file is a fresh one): the new table under
//! another name, every row copied, the old one dropped, the new one renamed, its indexes
//! made again. `migrate::check_and_migrate` runs these steps with foreign keys off (the
//! drop would otherwise fail on the rows that refer to the table), so each checks them
//! itself before the commit. A table that an older step made from today's text already
//! has the new column and stays.

use rusqlite::Connection;

use crate::db::DbError;

/// What one rebuild takes from `schema.sql` and copies.
struct Table {
    name: &'static str,
    /// A column only the new definition has: a table with it is left as it is.
    new_column: &'static str,
    /// Where the table's indexes start in `schema.sql`, and what follows them.
    indexes: &'static str,
    next: &'static str,
    /// The columns copied (those of the old table).
    columns: &'static str,
    /// Rows elsewhere that refer to the table and find no row there.
    orphans: &'static str,
}

fn rebuild(conn: &Connection, schema: &str, t: &Table) -> Result<(), DbError> {
    let has = "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2";
    if conn.prepare(has)?.exists([t.name, t.new_column])? {
        return Ok(());
    }
    let missing = || DbError::NotHearth(format!("schema.sql lacks {} (a build error)", t.name));
    let create = format!("CREATE TABLE {} (", t.name);
    let start = schema.find(&create).ok_or_else(missing)?;
    let indexes = start + schema[start..].find(t.indexes).ok_or_else(missing)?;
    let end = indexes + schema[indexes..].find(t.next).ok_or_else(missing)?;
    let temp = format!("{}_rebuilt", t.name);
    let table = schema[start..indexes].replacen(&create, &format!("CREATE TABLE {temp} ("), 1);
    conn.execute_batch(&table)?;
    conn.execute_batch(&format!(
        "INSERT INTO {temp} ({columns}) SELECT {columns} FROM {name};
         DROP TABLE {name};
         ALTER TABLE {temp} RENAME TO {name};",
        columns = t.columns,
        name = t.name,
    ))?;
    conn.execute_batch(&schema[indexes..end])?;
    // the rebuilt table's own keys, and the rows that refer to it
    let check = format!("PRAGMA foreign_key_check({})", t.name);
    if conn.prepare(&check)?.exists([])? || conn.prepare(t.orphans)?.exists([])? {
        return Err(DbError::NotHearth(format!(
            "rebuilding {}: a row refers to one that is not there",
            t.name
        )));
    }
    Ok(())
}

/// Version 11 makes `private_message.thread_id` and `receiver_id` nullable and adds
/// `group_id` (a group thread's message).
pub fn private_message(conn: &Connection, schema: &str) -> Result<(), DbError> {
    rebuild(
        conn,
        schema,
        &Table {
            name: "private_message",
            new_column: "group_id",
            indexes: "CREATE INDEX private_message_thread",
            next: "CREATE TABLE pm_member",
            columns: "id, thread_id, sender_id, receiver_id, text, html, summary, file_uuid,
                      created_at, is_read, withdrawn, sender_hidden, receiver_hidden",
            orphans: "SELECT 1 FROM notification n WHERE n.message_id IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM private_message p WHERE p.id = n.message_id)",
        },
    )
}

/// Version 14 lets `media_item` be a link (`url`) or a share (`shared_pk`) as well as a
/// picture.
pub fn media_item(conn: &Connection, schema: &str) -> Result<(), DbError> {
    rebuild(
        conn,
        schema,
        &Table {
            name: "media_item",
            new_column: "shared_pk",
            indexes: "CREATE INDEX media_item_owner",
            next: "CREATE TABLE event_gallery",
            columns: "id, owner_id, type, title, path, mimetype, width, height, size, created_at",
            orphans: "SELECT 1 FROM event_gallery g
                      WHERE NOT EXISTS (SELECT 1 FROM media_item m WHERE m.id = g.media_id)",
        },
    )
}
