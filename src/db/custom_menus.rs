//! Custom menus and their items (SPEC §10): the three menus, read by id or name with
//! their items in order; staff add and remove items (`hearth menu`).

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::Timestamp;
use crate::model::custom_menu::{MENUS, Menu, MenuItem};

/// Creates the three menus (`init`, migration 8); existing ones are left as they are.
pub fn seed(conn: &Connection, now: Timestamp) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(
        "INSERT OR IGNORE INTO custom_menu (id, name, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
    )?;
    for (id, name) in MENUS {
        stmt.execute(params![id, name, now])?;
    }
    Ok(())
}

fn items(conn: &Connection, menu: i64) -> rusqlite::Result<Vec<MenuItem>> {
    conn.prepare_cached(
        "SELECT id, custom_menu, label, url, position FROM custom_menu_item
         WHERE custom_menu = ?1 ORDER BY position, id",
    )?
    .query_map([menu], |r| Ok(from_columns!(r => MenuItem { id, menu, label, url, order })))?
    .collect()
}

fn with_items(
    conn: &Connection,
    rows: Vec<(i64, String, Timestamp, Timestamp)>,
) -> rusqlite::Result<Vec<Menu>> {
    rows.into_iter()
        .map(|(id, name, created_at, updated_at)| {
            Ok(Menu { id, name, created_at, updated_at, items: items(conn, id)? })
        })
        .collect()
}

/// One menu by id or by name, with its items.
pub fn get(conn: &Connection, key: MenuKey<'_>) -> rusqlite::Result<Option<Menu>> {
    let row = match key {
        MenuKey::Id(id) => conn
            .prepare_cached(
                "SELECT id, name, created_at, updated_at FROM custom_menu WHERE id = ?1",
            )?
            .query_row([id], |r| r.try_into())
            .optional()?,
        MenuKey::Name(name) => conn
            .prepare_cached(
                "SELECT id, name, created_at, updated_at FROM custom_menu WHERE name = ?1",
            )?
            .query_row([name], |r| r.try_into())
            .optional()?,
    };
    Ok(with_items(conn, row.into_iter().collect())?.pop())
}

/// How a menu is named in a path or on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuKey<'a> {
    /// `/custom_menu/1/`
    Id(i64),
    /// `/custom_menu/base/`
    Name(&'a str),
}

impl<'a> MenuKey<'a> {
    /// A number is an id, anything else a name.
    pub fn parse(s: &'a str) -> Self {
        s.parse().map_or(MenuKey::Name(s), MenuKey::Id)
    }
}

/// One page of menus by id, those whose name contains `search` (case-insensitively),
/// and how many there are.
pub fn page(
    conn: &Connection,
    search: Option<&str>,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Menu>)> {
    let pattern = search.map(contains);
    let count = conn
        .prepare_cached(
            "SELECT count(*) FROM custom_menu WHERE ?1 IS NULL OR name LIKE ?1 ESCAPE '\\'",
        )?
        .query_row([&pattern], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(
            "SELECT id, name, created_at, updated_at FROM custom_menu
             WHERE ?1 IS NULL OR name LIKE ?1 ESCAPE '\\' ORDER BY id LIMIT ?2 OFFSET ?3",
        )?
        .query_map(params![pattern, limit, offset], |r| r.try_into())?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((count, with_items(conn, rows)?))
}

/// The `LIKE ... ESCAPE '\\'` pattern of the staff-kept lists' `search` (menus, advs,
/// pages): `s` anywhere, its wildcards taken literally (SQLite's `LIKE` ignores ASCII
/// case).
pub fn contains(s: &str) -> String {
    format!("%{}%", s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"))
}

/// Every menu with its items (`hearth menu list`).
pub fn all(conn: &Connection) -> rusqlite::Result<Vec<Menu>> {
    page(conn, None, i64::MAX, 0).map(|(_, m)| m)
}

/// Adds an item (already checked) to menu `menu`; returns its id.
pub fn add_item(
    conn: &Connection,
    menu: i64,
    label: &str,
    url: &str,
    order: i64,
    now: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO custom_menu_item (custom_menu, label, url, position) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![menu, label, url, order])?;
    let id = conn.last_insert_rowid();
    touch(conn, menu, now)?;
    Ok(id)
}

/// Removes item `id`; whether there was one.
pub fn remove_item(conn: &Connection, id: i64, now: Timestamp) -> rusqlite::Result<bool> {
    let menu: Option<i64> = conn
        .prepare_cached("DELETE FROM custom_menu_item WHERE id = ?1 RETURNING custom_menu")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    if let Some(m) = menu {
        touch(conn, m, now)?;
    }
    Ok(menu.is_some())
}

fn touch(conn: &Connection, menu: i64, now: Timestamp) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE custom_menu SET updated_at = ?2 WHERE id = ?1")?
        .execute(params![menu, now])?;
    Ok(())
}
