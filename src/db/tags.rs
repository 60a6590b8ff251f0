//! User tags, who holds them, and the tags a contribution is addressed to (SPEC §10
//! People; `model::tag`). A community has a handful of tags, so the staff lists count
//! and page them directly.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use crate::model::tag::{Tag, TagJson};

const COLUMNS: &str = "t.id, t.name, t.description, t.color, t.visible, t.visibility_boost,
                       t.active, t.deleted, t.created_at";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Tag> {
    Ok(from_columns!(r => Tag {
        id, name, description, color, visible, visibility_boost, active, deleted, created_at
    }))
}

/// One tag, deleted or not.
pub fn get(conn: &Connection, id: i64) -> rusqlite::Result<Option<Tag>> {
    conn.prepare_cached(sql!("SELECT {COLUMNS} FROM tag t WHERE t.id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// What the staff list narrows to: each `Some` must match.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// A case-insensitive part of the name
    pub search: Option<String>,
    pub active: Option<bool>,
    pub deleted: Option<bool>,
    pub visible: Option<bool>,
    pub visibility_boost: Option<bool>,
}

const WHERE: &str = "(?1 IS NULL OR t.name LIKE ?1 ESCAPE '\\')
    AND (?2 IS NULL OR t.active = ?2) AND (?3 IS NULL OR t.deleted = ?3)
    AND (?4 IS NULL OR t.visible = ?4) AND (?5 IS NULL OR t.visibility_boost = ?5)";

/// One page of tags by id, and how many match.
pub fn page(
    conn: &Connection,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> rusqlite::Result<(i64, Vec<Tag>)> {
    let pattern = f
        .search
        .as_deref()
        .map(|s| format!("%{}%", s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")));
    let p = params![pattern, f.active, f.deleted, f.visible, f.visibility_boost];
    let count = conn
        .prepare_cached(sql!("SELECT count(*) FROM tag t WHERE {WHERE}"))?
        .query_row(p, |r| r.get(0))?;
    let rows = conn
        .prepare_cached(sql!(
            "SELECT {COLUMNS} FROM tag t WHERE {WHERE} ORDER BY t.id LIMIT ?6 OFFSET ?7"
        ))?
        .query_map(
            params![pattern, f.active, f.deleted, f.visible, f.visibility_boost, limit, offset],
            from_row,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((count, rows))
}

/// The id of another tag named `name` (case-insensitively), if any.
pub fn named(conn: &Connection, name: &str, except: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT id FROM tag WHERE name = ?1 COLLATE NOCASE AND id <> ?2")?
        .query_row(params![name, except], |r| r.get(0))
        .optional()
}

/// Stores a tag, under `id` when given (an import keeps the community's ids), else
/// under a new one (`t.id` is ignored); returns its id.
pub fn insert(conn: &Connection, t: &Tag, id: Option<i64>) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO tag (id, name, description, color, visible, visibility_boost, active,
                          deleted, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        id,
        t.name,
        t.description,
        t.color,
        t.visible,
        t.visibility_boost,
        t.active,
        t.deleted,
        t.created_at
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Writes every field of tag `t.id` but its creation time.
pub fn update(conn: &Connection, t: &Tag) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE tag SET name = ?2, description = ?3, color = ?4, visible = ?5,
                        visibility_boost = ?6, active = ?7, deleted = ?8
         WHERE id = ?1",
    )?
    .execute(params![
        t.id,
        t.name,
        t.description,
        t.color,
        t.visible,
        t.visibility_boost,
        t.active,
        t.deleted
    ])?;
    Ok(())
}

/// Gives `user` tag `tag`; whether they did not hold it yet.
pub fn assign(conn: &Connection, tag: i64, user: i64) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached("INSERT OR IGNORE INTO user_tag (user_id, tag_id) VALUES (?1, ?2)")?
        .execute(params![user, tag])?;
    Ok(n > 0)
}

/// Takes tag `tag` from `user`; whether they held it.
pub fn unassign(conn: &Connection, tag: i64, user: i64) -> rusqlite::Result<bool> {
    let n = conn
        .prepare_cached("DELETE FROM user_tag WHERE user_id = ?1 AND tag_id = ?2")?
        .execute(params![user, tag])?;
    Ok(n > 0)
}

/// How many live users hold tag `tag`.
pub fn holders(conn: &Connection, tag: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "SELECT count(*) FROM user_tag ut JOIN user u ON u.id = ut.user_id
         WHERE ut.tag_id = ?1 AND u.deleted = 0",
    )?
    .query_row([tag], |r| r.get(0))
}

/// The tags a profile shows (User JSON `tags`): visible, active and not deleted.
const SHOWN: &str = "t.visible = 1 AND t.active = 1 AND t.deleted = 0";

/// The tags `user`'s profile shows, by id.
pub fn shown_of(conn: &Connection, user: i64) -> rusqlite::Result<Vec<TagJson>> {
    conn.prepare_cached(sql!(
        "SELECT {COLUMNS} FROM user_tag ut JOIN tag t ON t.id = ut.tag_id
         WHERE ut.user_id = ?1 AND {SHOWN} ORDER BY t.id"
    ))?
    .query_map([user], |r| from_row(r).map(|t| t.to_json()))?
    .collect()
}

/// [`shown_of`] for several users, in one query.
pub fn shown_of_users(
    conn: &Connection,
    ids: &[i64],
) -> rusqlite::Result<HashMap<i64, Vec<TagJson>>> {
    let mut out: HashMap<i64, Vec<TagJson>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let list = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    let mut stmt = conn.prepare_cached(sql!(
        "SELECT ut.user_id, {COLUMNS} FROM user_tag ut JOIN tag t ON t.id = ut.tag_id
         WHERE ut.user_id IN (SELECT value FROM json_each(?1)) AND {SHOWN}
         ORDER BY ut.user_id, t.id"
    ))?;
    let rows = stmt.query_map([list], |r| {
        let tag = Tag {
            id: r.get(1)?,
            name: r.get(2)?,
            description: r.get(3)?,
            color: r.get(4)?,
            visible: r.get(5)?,
            visibility_boost: r.get(6)?,
            active: r.get(7)?,
            deleted: r.get(8)?,
            created_at: r.get(9)?,
        };
        Ok((r.get::<_, i64>(0)?, tag.to_json()))
    })?;
    for row in rows {
        let (user, tag) = row?;
        out.entry(user).or_default().push(tag);
    }
    Ok(out)
}

/// The tags item `pk` is addressed to, by id: every one of them, a deleted tag too
/// (`deleted: true`), since each still narrows who sees the item ([`addressing_shown`]).
pub fn addressing_of(conn: &Connection, pk: i64) -> rusqlite::Result<Vec<TagJson>> {
    conn.prepare_cached(sql!(
        "SELECT {COLUMNS} FROM contribution_addressing a JOIN tag t ON t.id = a.tag_id
         WHERE a.contribution_pk = ?1 ORDER BY t.id"
    ))?
    .query_map([pk], |r| from_row(r).map(|t| t.to_json()))?
    .collect()
}

/// The SQL condition that viewer `?{n}` may see item `c` (a contribution row; a comment
/// answers for the item it is on) as far as its addressing goes (SPEC §10 People,
/// docs/decisions.md): the item is addressed to no tag, or the viewer is staff, its
/// author, or holds one of the tags it is addressed to. A null viewer sees no addressed
/// item. An item addressed to nobody (most) costs a look at its own row's `addressed`
/// (version 12, kept by triggers: a comment's is its item's).
pub fn addressing_shown(n: u8) -> String {
    format!(
        "(c.addressed = 0
          OR EXISTS (SELECT 1 FROM user au WHERE au.id = ?{n} AND au.is_staff = 1)
          OR EXISTS (SELECT 1 FROM contribution ai
                     WHERE ai.pk = coalesce(c.target_pk, c.pk) AND ai.author_id = ?{n})
          OR EXISTS (SELECT 1 FROM contribution_addressing ad
                     JOIN user_tag ut ON ut.user_id = ?{n} AND ut.tag_id = ad.tag_id
                     WHERE ad.contribution_pk = coalesce(c.target_pk, c.pk)))"
    )
}

/// The tags `user` may address a discussion or post to, by id: staff every active tag,
/// a member the active tags they hold (deleted tags never).
pub fn addressable(conn: &Connection, user: i64, staff: bool) -> rusqlite::Result<Vec<Tag>> {
    conn.prepare_cached(sql!(
        "SELECT {COLUMNS} FROM tag t WHERE t.active = 1 AND t.deleted = 0
           AND (?2 OR EXISTS (SELECT 1 FROM user_tag ut WHERE ut.user_id = ?1 AND ut.tag_id = t.id))
         ORDER BY t.id"
    ))?
    .query_map(params![user, staff], from_row)?
    .collect()
}

/// The first of `tags` that `user` may not address to ([`addressable`]), if any.
pub fn first_unaddressable(
    conn: &Connection,
    user: i64,
    staff: bool,
    tags: &[i64],
) -> rusqlite::Result<Option<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT 1 FROM tag t WHERE t.id = ?1 AND t.active = 1 AND t.deleted = 0
           AND (?3 OR EXISTS (SELECT 1 FROM user_tag ut WHERE ut.user_id = ?2 AND ut.tag_id = t.id))",
    )?;
    for &tag in tags {
        if !stmt.exists(params![tag, user, staff])? {
            return Ok(Some(tag));
        }
    }
    Ok(None)
}

/// Whether any item is addressed to a tag: most communities address nothing, and
/// their lists keep their plain statements.
pub fn addresses_any(conn: &Connection) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM contribution_addressing)")?
        .query_row([], |r| r.get(0))
}

/// Addresses item `pk` to `tags` (ids of tags that exist).
pub fn address(conn: &Connection, pk: i64, tags: &[i64]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO contribution_addressing (contribution_pk, tag_id) VALUES (?1, ?2)",
    )?;
    for tag in tags {
        stmt.execute(params![pk, tag])?;
    }
    Ok(())
}

/// How many live contributions outside groups and events are addressed to tags (a
/// comment: its item) and not shown to `viewer` ([`addressing_shown`]), the authors it
/// hides left out (the lists subtract those apart): of `kind` (a kind's list, comments
/// included), or the top-level items of every kind (explore). The feeds' and lists'
/// counts take these away from their kept totals. Costs the community's addressed items
/// (and, for comments, the comments on them), not its size; nothing for staff.
pub fn unseen_addressed(
    conn: &Connection,
    viewer: Option<i64>,
    kind: Option<&str>,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(sql!(
        "SELECT count(*) FROM contribution c
         WHERE NOT EXISTS (SELECT 1 FROM user su WHERE su.id = ?1 AND su.is_staff = 1)
           AND (c.pk IN (SELECT DISTINCT contribution_pk FROM contribution_addressing)
                OR ?2 = 'comment'
                   AND c.target_pk IN (SELECT DISTINCT contribution_pk FROM contribution_addressing))
           AND c.deleted = 0 AND c.group_id IS NULL AND c.event_id IS NULL
           AND (?2 IS NULL AND c.target_pk IS NULL OR c.kind = ?2)
           AND c.author_id NOT IN (SELECT h.hidden_id FROM user_hide h WHERE h.user_id = ?1)
           AND NOT {}",
        addressing_shown(1)
    ))?
    .query_row(params![viewer, kind], |r| r.get(0))
}

/// Every `(user, tag)` pair, by user then tag (`hearth tag list --assignments`).
pub fn assignments(conn: &Connection) -> rusqlite::Result<Vec<(i64, i64)>> {
    conn.prepare_cached("SELECT user_id, tag_id FROM user_tag ORDER BY user_id, tag_id")?
        .query_map([], |r| r.try_into())?
        .collect()
}
