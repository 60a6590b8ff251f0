//! The schema's tests: a fresh file, and what each step's statements make of
//! [`SCHEMA`]'s text.

use super::*;

#[test]
fn create_then_identify() -> Result<(), DbError> {
    let conn = Connection::open_in_memory()?;
    create(&conn)?;
    assert_eq!(identify(&conn)?, VERSION);
    Ok(())
}

#[test]
fn foreign_sqlite_file_is_refused() -> Result<(), DbError> {
    let conn = Connection::open_in_memory()?;
    conn.execute_batch("CREATE TABLE t (x)")?;
    assert!(matches!(identify(&conn), Err(DbError::NotHearth(_))));
    Ok(())
}

#[test]
fn version_5_creates_the_tally_and_its_three_triggers() {
    let create = tally_statements().unwrap_or_default();
    assert!(create.starts_with("CREATE TABLE contribution_tally ("));
    for name in ["insert", "delete", "update"] {
        assert!(create.contains(&format!("CREATE TRIGGER contribution_tally_{name} ")));
    }
    assert!(create.ends_with("END;"));
}

#[test]
fn version_6_creates_the_count_and_replaces_the_three_listing_triggers() {
    let create = listed_count_statements().unwrap_or_default();
    assert!(create.starts_with("CREATE TABLE course_listed_count ("));
    assert!(create.contains("INSERT INTO course_listed_count (one, n) VALUES (1, 0);"));
    for name in ["insert", "delete", "update"] {
        let at = create.find(&format!("CREATE TRIGGER course_listed_{name} ")).unwrap_or(0);
        let body = &create[at..at + create[at..].find("\nEND;").unwrap_or(0)];
        assert!(body.starts_with("CREATE TRIGGER"), "{name}");
        assert!(body.contains("course_listed_block") && body.contains("course_listed_count"));
    }
    assert!(create.ends_with("END;"));
}

#[test]
fn version_3_adds_every_kit_table_of_the_schema() {
    let stmts = kit_statements();
    // five tables and five indexes (category_follow_newest, of version 8, among them:
    // version 8 makes it only if it is not there)
    assert_eq!(stmts.len(), 10, "{stmts:#?}");
    for t in ["vote", "vote_tally", "category_follow", "user_hide", "user_setting"] {
        assert!(stmts.iter().any(|s| s.starts_with(&format!("CREATE TABLE {t} ("))), "{t}");
    }
}

#[test]
fn newer_file_is_refused() -> Result<(), DbError> {
    let conn = Connection::open_in_memory()?;
    create(&conn)?;
    conn.pragma_update(None, "user_version", VERSION + 1)?;
    assert!(matches!(identify(&conn), Err(DbError::NotHearth(_))));
    Ok(())
}
