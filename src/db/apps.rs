//! OAuth applications.

use rusqlite::{Connection, OptionalExtension, params};

use crate::model::app::{App, AppGrant};

const COLUMNS: &str = "id, client_id, secret_hash, name, description, image, grant_type, client_type, skip_consent, redirect_uris, created_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<App> {
    let (grant, client_type, uris): (String, String, String) = (r.get(6)?, r.get(7)?, r.get(9)?);
    let app = from_columns!(r => App { id, client_id, secret_hash, name, description, image;
        grant: AppGrant::parse(&grant).unwrap_or(AppGrant::AuthorizationCode),
        confidential: client_type == "confidential",
        skip_consent: r.get(8)?,
        redirect_uris: uris.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect(),
        created_at: r.get(10)?,
    });
    Ok(app)
}

/// Inserts an application; returns its id.
pub fn insert(conn: &Connection, a: &App) -> rusqlite::Result<i64> {
    conn.execute(
        "INSERT INTO oauth_app (client_id, secret_hash, name, description, image, grant_type, client_type,
                                skip_consent, redirect_uris, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            a.client_id,
            a.secret_hash,
            a.name,
            a.description,
            a.image,
            a.grant.as_str(),
            if a.confidential { "confidential" } else { "public" },
            a.skip_consent,
            a.redirect_uris.join("\n"),
            a.created_at
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// An application by client id.
pub fn by_client_id(conn: &Connection, client_id: &str) -> rusqlite::Result<Option<App>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM oauth_app WHERE client_id = ?1"))?
        .query_row([client_id], from_row)
        .optional()
}

/// All applications by id.
pub fn list(conn: &Connection) -> rusqlite::Result<Vec<App>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM oauth_app ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    rows.collect()
}

/// Deletes an application; its codes, grants and tokens go with it (ON DELETE CASCADE).
pub fn delete(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM oauth_app WHERE id = ?1", [id])?;
    Ok(())
}

/// Replaces what `app update` may change: name, description, image, skip_consent and
/// the redirect URIs (the client id, secret, grant and client type stay).
pub fn update(conn: &Connection, a: &App) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE oauth_app SET name = ?2, description = ?3, image = ?4, skip_consent = ?5, redirect_uris = ?6
         WHERE id = ?1",
        params![
            a.id,
            a.name,
            a.description,
            a.image,
            a.skip_consent,
            a.redirect_uris.join("\n")
        ],
    )?;
    Ok(())
}

/// Replaces the secret hash.
pub fn set_secret(conn: &Connection, id: i64, hash: &[u8]) -> rusqlite::Result<()> {
    conn.execute("UPDATE oauth_app SET secret_hash = ?2 WHERE id = ?1", params![id, hash])?;
    Ok(())
}
