//! Writers for the custom adv and custom page records (SPEC §10 "Custom ADV, menus &
//! pages"): the checks of `hearth adv add` and `hearth page add`, the ids of the file.

use rusqlite::Connection;

use super::{Known, LineError, sql_err};
use crate::clock::Timestamp;
use crate::db::custom_content::{self, NewPage};
use crate::model::import::{CustomAdvLine, CustomPageLine};

/// A custom adv line: checked as staff's ([`crate::model::custom_adv::NewAdv::check`]),
/// its category known.
pub(super) fn adv(
    conn: &Connection,
    known: &Known,
    a: &CustomAdvLine,
    now: Timestamp,
) -> Result<(), LineError> {
    let adv = a.adv()?;
    if let Some(c) = adv.category {
        known.categories(&[c], "custom_adv")?;
    }
    let created = a.created_at.unwrap_or(now);
    custom_content::add_adv(conn, Some(a.id), &adv, created, a.lastmod_datetime.unwrap_or(created))
        .map_err(|e| {
            if crate::db::is_unique_violation(&e) {
                format!("custom adv {} already exists", a.id)
            } else {
                sql_err("custom_adv", &e)
            }
        })?;
    Ok(())
}

/// A custom page line: checked as staff's, its body through the sanitizer; a slug made
/// from the title when it has none (unique, as the CLI makes it).
pub(super) fn page(conn: &Connection, p: &CustomPageLine, now: Timestamp) -> Result<(), LineError> {
    let title = p.check()?;
    let taken =
        |s: &str| custom_content::slug_taken(conn, s).map_err(|e| sql_err("custom_page", &e));
    let slug = match &p.slug {
        Some(s) if taken(s)? => return Err(format!("a custom page already has the slug {s:?}")),
        Some(s) => s.clone(),
        None => crate::model::slug::unique(&crate::model::slug::slugify(&title, "page"), taken)?,
    };
    let created = p.created_at.unwrap_or(now);
    let page = NewPage {
        id: Some(p.id),
        slug: &slug,
        title: &title,
        body: &p.html_body,
        valid_from: p.valid_from.unwrap_or(created),
        valid_to: p.valid_to,
        active: p.active,
        created_at: created,
        updated_at: p.updated_at.unwrap_or(created),
    };
    custom_content::add_page(conn, &page).map_err(|e| {
        if crate::db::is_unique_violation(&e) {
            format!("custom page {} already exists", p.id)
        } else {
            sql_err("custom_page", &e)
        }
    })?;
    Ok(())
}
