//! A member's own profile edit (`model::profile`): one UPDATE of the fields the edit
//! sets, in the request's write transaction.

use rusqlite::{Connection, ToSql};

use crate::model::profile::ProfileEdit;

/// Applies `edit` to user `id`; the fields it does not set are left as they are.
pub fn apply(conn: &Connection, id: i64, edit: &ProfileEdit) -> rusqlite::Result<()> {
    let dob = edit.date_of_birth.as_ref().map(|d| d.as_deref());
    let fields: [(&str, Option<&dyn ToSql>); 9] = [
        ("real_name", edit.real_name.as_ref().map(|v| v as &dyn ToSql)),
        ("bio", edit.bio.as_ref().map(|v| v as &dyn ToSql)),
        ("description", edit.description.as_ref().map(|v| v as &dyn ToSql)),
        ("location", edit.location.as_ref().map(|v| v as &dyn ToSql)),
        ("website", edit.website.as_ref().map(|v| v as &dyn ToSql)),
        ("gender", edit.gender.as_ref().map(|v| v as &dyn ToSql)),
        ("date_of_birth", dob.as_ref().map(|v| v as &dyn ToSql)),
        ("company_name", edit.company_name.as_ref().map(|v| v as &dyn ToSql)),
        ("company_role", edit.company_role.as_ref().map(|v| v as &dyn ToSql)),
    ];
    let (names, values): (Vec<&str>, Vec<&dyn ToSql>) =
        fields.into_iter().filter_map(|(n, v)| v.map(|v| (n, v))).unzip();
    if names.is_empty() {
        return Ok(());
    }
    // the column names are the constants above, never the client's keys
    let set: Vec<String> =
        names.iter().enumerate().map(|(i, n)| format!("{n} = ?{}", i + 2)).collect();
    let mut params: Vec<&dyn ToSql> = vec![&id];
    params.extend(values);
    conn.prepare_cached(&format!("UPDATE user SET {} WHERE id = ?1", set.join(", ")))?
        .execute(params.as_slice())?;
    Ok(())
}

/// Where user `id`'s cover is stored (`media` paths under it; `/media/` + path serves).
fn cover_prefix(id: i64) -> String {
    format!("user/{id}/cover/")
}

/// Sets user `id`'s cover to `picture` (stored under a fresh unguessable name, the
/// previous one dropped), or back to the default with `None`.
pub fn set_cover(
    conn: &Connection,
    id: i64,
    picture: Option<&crate::images::Picture>,
    now: crate::clock::Timestamp,
) -> rusqlite::Result<()> {
    super::media::delete_prefix(conn, &cover_prefix(id))?;
    let cover = match picture {
        None => String::new(),
        Some(p) => {
            let name = crate::token::random_string(16).replace(['-', '_'], "x");
            let path = format!("{}{name}.{}", cover_prefix(id), p.extension);
            super::media::put(conn, &path, p.content_type, &p.bytes, now)?;
            format!("/media/{path}")
        }
    };
    conn.prepare_cached("UPDATE user SET cover = ?2 WHERE id = ?1")?.execute((id, cover))?;
    Ok(())
}
