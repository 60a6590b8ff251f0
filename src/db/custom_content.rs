//! Custom advs and custom pages (`model::custom_adv`, `model::custom_page`): staff add,
//! switch and remove them (`hearth adv`, `hearth page`, the importer); the API reads
//! them with the one visibility rule of each (an inactive adv, an unpublished page: staff
//! only). Searches use the menus' pattern ([`super::custom_menus::contains`]).

use rusqlite::{Connection, OptionalExtension, params};

use super::custom_menus::contains;
use crate::clock::Timestamp;
use crate::model::custom_adv::{Adv, NewAdv};
use crate::model::custom_page::Page;

const ADV_COLUMNS: &str =
    "id, position, title, link, image, embed_code, active, category_id, created_at, updated_at";

fn adv_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Adv> {
    Ok(from_columns!(r => Adv {
        id, position, title, link, image, embed_code, active, category, created_at, updated_at
    }))
}

/// Which advs a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdvFilter {
    /// Inactive advs too (staff); otherwise only active ones, whatever `active` says.
    pub staff: bool,
    /// Only active (true) or inactive (false) advs.
    pub active: Option<bool>,
    /// Only this slot.
    pub position: Option<String>,
    /// Only this category's advs.
    pub category: Option<i64>,
    /// The page's categories (the kit's `categories=[1,2]`): advs of no category and
    /// those of these; `Some(vec![])`: advs of no category alone.
    pub categories: Option<Vec<i64>>,
    /// In the title, case-insensitively.
    pub search: Option<String>,
}

const ADV_WHERE: &str = "WHERE (?1 OR active = 1) AND (?2 IS NULL OR active = ?2)
       AND (?3 IS NULL OR position = ?3) AND (?4 IS NULL OR category_id = ?4)
       AND (?5 IS NULL OR category_id IS NULL OR category_id IN (SELECT value FROM json_each(?5)))
       AND (?6 IS NULL OR title LIKE ?6 ESCAPE '\\')";

/// One page of the advs `f` shows, by id, and how many there are.
pub fn advs(
    conn: &Connection,
    f: &AdvFilter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Adv>)> {
    let categories = f.categories.as_ref().map(|c| serde_json::Value::from(c.clone()).to_string());
    let search = f.search.as_deref().map(contains);
    let args = params![f.staff, f.active, f.position, f.category, categories, search];
    let count = conn
        .prepare_cached(sql!("SELECT count(*) FROM custom_adv {ADV_WHERE}"))?
        .query_row(args, |r| r.get(0))?;
    let rows = conn
        .prepare_cached(sql!(
            "SELECT {ADV_COLUMNS} FROM custom_adv {ADV_WHERE} ORDER BY id LIMIT ?7 OFFSET ?8"
        ))?
        .query_map(
            params![f.staff, f.active, f.position, f.category, categories, search, limit, offset],
            adv_row,
        )?
        .collect::<Result<_, _>>()?;
    Ok((count, rows))
}

/// An adv by id, active or not.
pub fn adv(conn: &Connection, id: i64) -> rusqlite::Result<Option<Adv>> {
    conn.prepare_cached(sql!("SELECT {ADV_COLUMNS} FROM custom_adv WHERE id = ?1"))?
        .query_row([id], adv_row)
        .optional()
}

/// Adds an adv (already checked: [`NewAdv::check`]) with `id` when given (an import),
/// else a new one; its id.
pub fn add_adv(
    conn: &Connection,
    id: Option<i64>,
    a: &NewAdv,
    created_at: Timestamp,
    updated_at: Timestamp,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO custom_adv (id, position, title, link, image, embed_code, active, category_id, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        id,
        a.position,
        a.title,
        a.link,
        a.image,
        a.embed_code,
        a.active,
        a.category,
        created_at,
        updated_at
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Switches adv `id` on or off; whether there is one.
pub fn set_adv_active(
    conn: &Connection,
    id: i64,
    active: bool,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("UPDATE custom_adv SET active = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![id, active, now])?
        == 1)
}

/// Removes adv `id`; whether there was one.
pub fn remove_adv(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    Ok(conn.prepare_cached("DELETE FROM custom_adv WHERE id = ?1")?.execute([id])? == 1)
}

const PAGE_COLUMNS: &str = "id, slug, title, html_body, html_summary, valid_from, valid_to, active, created_at, updated_at";

fn page_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Page> {
    Ok(from_columns!(r => Page {
        id, slug, title, html_body, html_summary, valid_from, valid_to, active, created_at, updated_at
    }))
}

/// Which pages a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageFilter {
    /// Unpublished pages too (staff); otherwise only those published at `now`
    /// ([`Page::published`]'s rule), whatever `active` says.
    pub staff: bool,
    /// Only active (true) or inactive (false) pages.
    pub active: Option<bool>,
    /// In the title or the slug, case-insensitively.
    pub search: Option<String>,
    /// The time publication is judged at.
    pub now: Timestamp,
}

const PAGE_WHERE: &str = "WHERE (?1 OR (active = 1 AND valid_from <= ?2 AND (valid_to IS NULL OR valid_to > ?2)))
       AND (?3 IS NULL OR active = ?3) AND (?4 IS NULL OR title LIKE ?4 ESCAPE '\\' OR slug LIKE ?4 ESCAPE '\\')";

/// One page of the pages `f` shows, by id, and how many there are.
pub fn pages(
    conn: &Connection,
    f: &PageFilter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Page>)> {
    let search = f.search.as_deref().map(contains);
    let count = conn
        .prepare_cached(sql!("SELECT count(*) FROM custom_page {PAGE_WHERE}"))?
        .query_row(params![f.staff, f.now, f.active, search], |r| r.get(0))?;
    let rows = conn
        .prepare_cached(sql!(
            "SELECT {PAGE_COLUMNS} FROM custom_page {PAGE_WHERE} ORDER BY id LIMIT ?5 OFFSET ?6"
        ))?
        .query_map(params![f.staff, f.now, f.active, search, limit, offset], page_row)?
        .collect::<Result<_, _>>()?;
    Ok((count, rows))
}

/// A page by id, published or not.
pub fn page(conn: &Connection, id: i64) -> rusqlite::Result<Option<Page>> {
    conn.prepare_cached(sql!("SELECT {PAGE_COLUMNS} FROM custom_page WHERE id = ?1"))?
        .query_row([id], page_row)
        .optional()
}

/// Whether a page has `slug`.
pub fn slug_taken(conn: &Connection, slug: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM custom_page WHERE slug = ?1")?.exists([slug])
}

/// A new page as staff give it (title and slug checked; `body` is rendered through the
/// sanitizer here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPage<'a> {
    pub id: Option<i64>,
    pub slug: &'a str,
    pub title: &'a str,
    pub body: &'a str,
    pub valid_from: Timestamp,
    pub valid_to: Option<Timestamp>,
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Adds a page; its id.
pub fn add_page(conn: &Connection, p: &NewPage<'_>) -> rusqlite::Result<i64> {
    let r = crate::model::rich_text::render(p.body);
    conn.prepare_cached(
        "INSERT INTO custom_page (id, slug, title, body, html_body, html_summary, valid_from, valid_to, active, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        p.id,
        p.slug,
        p.title,
        p.body,
        r.html,
        r.summary_html,
        p.valid_from,
        p.valid_to,
        p.active,
        p.created_at,
        p.updated_at
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Switches page `id` on or off; whether there is one.
pub fn set_page_active(
    conn: &Connection,
    id: i64,
    active: bool,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    Ok(conn
        .prepare_cached("UPDATE custom_page SET active = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![id, active, now])?
        == 1)
}

/// Removes page `id`; whether there was one.
pub fn remove_page(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    Ok(conn.prepare_cached("DELETE FROM custom_page WHERE id = ?1")?.execute([id])? == 1)
}
