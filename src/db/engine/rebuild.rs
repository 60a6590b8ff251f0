//! A table rebuilt in place for a migration step: SQLite changes no column's NOT NULL
//! (nor a table's CHECK) in place.

use rusqlite::Connection;

use crate::db::DbError;

/// Version 11 makes `private_message.thread_id` and `receiver_id` nullable and adds
/// `group_id` (a group thread's message), so the table is rebuilt as
/// <https://www.sqlite.org/lang_altertable.html#otheralter> says, from `schema`
/// (`schema.sql`'s own text: a migrated file is a fresh one): the new table under
/// another name, every row copied, the old one dropped, the new one renamed, its indexes
/// made again. `migrate::check_and_migrate` runs the steps with foreign keys off (the
/// drop would otherwise fail on `notification.message_id`, which refers to it), so this
/// step checks them itself before the commit. A table that an older step made from
/// today's text already has `group_id` and stays.
pub fn private_message(conn: &Connection, schema: &str) -> Result<(), DbError> {
    let has = "SELECT 1 FROM pragma_table_info('private_message') WHERE name = 'group_id'";
    if conn.prepare(has)?.exists([])? {
        return Ok(());
    }
    let missing = || DbError::NotHearth("schema.sql lacks private_message (a build error)".into());
    let start = schema.find("CREATE TABLE private_message (").ok_or_else(missing)?;
    let indexes =
        start + schema[start..].find("CREATE INDEX private_message_thread").ok_or_else(missing)?;
    let end = indexes + schema[indexes..].find("CREATE TABLE pm_member").ok_or_else(missing)?;
    let table = schema[start..indexes].replacen(
        "CREATE TABLE private_message (",
        "CREATE TABLE private_message_v11 (",
        1,
    );
    conn.execute_batch(&table)?;
    conn.execute_batch(
        "INSERT INTO private_message_v11 (id, thread_id, sender_id, receiver_id, text, html, summary,
             file_uuid, created_at, is_read, withdrawn, sender_hidden, receiver_hidden)
         SELECT id, thread_id, sender_id, receiver_id, text, html, summary, file_uuid, created_at,
             is_read, withdrawn, sender_hidden, receiver_hidden FROM private_message;
         DROP TABLE private_message;
         ALTER TABLE private_message_v11 RENAME TO private_message;",
    )?;
    conn.execute_batch(&schema[indexes..end])?;
    // the rebuilt table's own keys, and the rows that refer to it
    let broken = conn.prepare("PRAGMA foreign_key_check(private_message)")?.exists([])?
        || conn
            .prepare(
                "SELECT 1 FROM notification n WHERE n.message_id IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM private_message p WHERE p.id = n.message_id)",
            )?
            .exists([])?;
    if broken {
        return Err(DbError::NotHearth(
            "rebuilding private_message: a row refers to one that is not there".into(),
        ));
    }
    Ok(())
}
