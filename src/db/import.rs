//! Writes import lines (`model::import`) into the database. Counters (followers,
//! followings, posts, discussions, comments) are kept exact with in-memory deltas
//! applied once per batch, in the batch's transaction, instead of one UPDATE per row.
//! The `mutual` flag of follow edges is kept as `db::follows` keeps it: set on both
//! edges when the second of a pair arrives.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::clock::{Timestamp, parse_rfc3339};
use crate::model::import::{CommentLine, ContributionLine, CourseLine, Line, UserLine};
use crate::model::{slug, user};

/// Counter changes of the current batch.
#[derive(Debug, Default)]
pub struct Deltas {
    followers: HashMap<i64, i64>,
    followings: HashMap<i64, i64>,
    mutuals: HashMap<i64, i64>,
    posts: HashMap<i64, i64>,
    discussions: HashMap<i64, i64>,
    comments: HashMap<i64, i64>,
}

/// What the importer remembers across lines.
#[derive(Debug, Default)]
pub struct Importer {
    /// Ids of deleted users (their follows are not counted).
    deleted_users: HashSet<i64>,
    deltas: Deltas,
}

/// Why a line was refused.
pub type LineError = String;

fn sql_err(what: &str, e: &rusqlite::Error) -> LineError {
    let m = e.to_string();
    if crate::db::is_unique_violation(e) {
        format!("{what} already exists ({m})")
    } else if m.contains("FOREIGN KEY") {
        format!("{what} refers to a record that does not exist")
    } else if m.contains("CHECK constraint") {
        format!("{what} has a bad value ({m})")
    } else {
        format!("{what}: {m}")
    }
}

fn time_or(s: Option<&str>, now: Timestamp, field: &str) -> Result<Timestamp, LineError> {
    match s {
        None => Ok(now),
        Some(t) => parse_rfc3339(t).ok_or_else(|| format!("{field} {t:?} is not an RFC 3339 time")),
    }
}

fn user_exists(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM user WHERE id = ?1")?
        .exists([id])
}

impl Importer {
    /// Starts an import into `conn`'s database.
    pub fn new(conn: &Connection) -> rusqlite::Result<Importer> {
        let mut stmt = conn.prepare("SELECT id FROM user WHERE deleted = 1")?;
        let deleted_users = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(Importer {
            deleted_users,
            deltas: Deltas::default(),
        })
    }

    /// Applies one line.
    pub fn apply(
        &mut self,
        conn: &Connection,
        line: Line,
        now: Timestamp,
    ) -> Result<(), LineError> {
        match line {
            Line::User(u) => self.user(conn, *u, now),
            Line::Follow(f) => {
                let at = time_or(f.created_at.as_deref(), now, "created_at")?;
                if f.follower == f.followed {
                    return Err("a user cannot follow itself".into());
                }
                let e = |e: rusqlite::Error| sql_err("follow", &e);
                let reverse = conn
                    .prepare_cached(
                        "UPDATE follow SET mutual = 1 WHERE follower = ?1 AND followed = ?2",
                    )
                    .and_then(|mut s| s.execute([f.followed, f.follower]))
                    .map_err(e)?;
                conn.prepare_cached("INSERT INTO follow (follower, followed, created_at, mutual) VALUES (?1, ?2, ?3, ?4)")
                    .and_then(|mut s| s.execute(params![f.follower, f.followed, at, reverse > 0]))
                    .map_err(e)?;
                // a user's counters count its edges to live users, whatever its own state
                let d = &mut self.deltas;
                if !self.deleted_users.contains(&f.follower) {
                    *d.followers.entry(f.followed).or_default() += 1;
                    if reverse > 0 {
                        *d.mutuals.entry(f.followed).or_default() += 1;
                    }
                }
                if !self.deleted_users.contains(&f.followed) {
                    *d.followings.entry(f.follower).or_default() += 1;
                    if reverse > 0 {
                        *d.mutuals.entry(f.follower).or_default() += 1;
                    }
                }
                Ok(())
            }
            Line::Category(c) => {
                let n = c.name.chars().count();
                if c.name.trim().is_empty() || n > 255 {
                    return Err("category name must be 1 to 255 characters".into());
                }
                let s = match c.slug {
                    Some(s) if slug::is_valid(&s) => s,
                    Some(s) => return Err(format!("slug {s:?} is not a valid slug")),
                    None => slug::unique(&slug::slugify(&c.name, "category"), |x| {
                        super::categories::slug_taken(conn, x)
                    })
                    .map_err(|e| sql_err("category", &e))?,
                };
                super::categories::insert(conn, Some(c.id), &c.name, &s, now)
                    .map_err(|e| sql_err("category", &e))?;
                Ok(())
            }
            Line::Reaction(r) => {
                conn.prepare_cached(
                    "INSERT INTO reaction (id, label, sentiment, image, active) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (id) DO UPDATE SET label = excluded.label, sentiment = excluded.sentiment,
                         image = excluded.image, active = excluded.active",
                )
                .and_then(|mut s| s.execute(params![r.id, r.label, r.sentiment, r.image, r.active]))
                .map_err(|e| sql_err("reaction", &e))?;
                Ok(())
            }
            Line::Preference(p) => {
                let pref = super::prefs::get(conn, &p.section, &p.name)
                    .map_err(|e| sql_err("preference", &e))?
                    .ok_or_else(|| format!("no preference {}.{}", p.section, p.name))?;
                let v = pref
                    .kind
                    .check_json(&p.value)
                    .map_err(|e| format!("{}.{}: {e}", p.section, p.name))?;
                super::prefs::set(conn, pref.id, &v).map_err(|e| sql_err("preference", &e))
            }
            Line::Course(c) => course(conn, *c, now),
            Line::CourseMember(m) => {
                if !matches!(
                    m.join_status.as_str(),
                    "creator" | "manager" | "joined" | "invited" | "requested"
                ) {
                    return Err(format!(
                        "join_status {:?} is not one of manager, joined, invited, requested",
                        m.join_status
                    ));
                }
                let creator: Option<i64> = conn
                    .prepare_cached("SELECT created_by FROM course WHERE id = ?1")
                    .and_then(|mut s| s.query_row([m.course], |r| r.get(0)).optional())
                    .map_err(|e| sql_err("course_member", &e))?;
                let creator =
                    creator.ok_or_else(|| format!("course {} does not exist", m.course))?;
                match (creator == m.user, m.join_status.as_str()) {
                    // the creator's membership comes from the course line
                    (true, "creator") => return Ok(()),
                    (true, _) => return Err("the creator's join_status cannot change".into()),
                    (false, "creator") => {
                        return Err("only the course's created_by can be its creator".into());
                    }
                    _ => {}
                }
                conn.prepare_cached(
                    "INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![m.course, m.user, m.join_status, now]))
                .map_err(|e| sql_err("course_member", &e))?;
                Ok(())
            }
            Line::Discussion(d) => self.contribution(conn, "discussion", d, now),
            Line::Post(d) => self.contribution(conn, "post", d, now),
            Line::Status(d) => self.contribution(conn, "status", d, now),
            Line::Comment(c) => self.comment(conn, c, now),
        }
    }

    fn user(&mut self, conn: &Connection, u: UserLine, now: Timestamp) -> Result<(), LineError> {
        user::validate_username(&u.username)?;
        if let Some(p) = &u.password {
            if !crate::token::password::is_valid_hash(p) {
                return Err(
                    "password must be a Django pbkdf2_sha256$<iterations>$<salt>$<hash> hash"
                        .into(),
                );
            }
        }
        let gender = u.gender.unwrap_or_else(|| "Unspecified".into());
        if !matches!(gender.as_str(), "Male" | "Female" | "Unspecified") {
            return Err(format!(
                "gender {gender:?} is not Male, Female or Unspecified"
            ));
        }
        if let Some(d) = &u.date_of_birth {
            time::Date::parse(d, time::macros::format_description!("[year]-[month]-[day]"))
                .map_err(|_| format!("date_of_birth {d:?} is not YYYY-MM-DD"))?;
        }
        let joined = time_or(u.date_joined.as_deref(), now, "date_joined")?;
        let ext_id = match u.ext_id {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => return Err("ext_id must be a string or a number".into()),
        };
        conn.prepare_cached(
            "INSERT INTO user (id, username, username_key, email, real_name, password, is_staff, ext_id, avatar,
                 cover, bio, location, location_lat_lng, position_lat_lng, date_of_birth, description, gender,
                 website, reputation, community_badge, reg_approved, company_name, company_role, date_joined, deleted)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                     ?21, ?22, ?23, ?24, ?25)",
        )
        .and_then(|mut s| {
            s.execute(params![
                u.id,
                u.username,
                user::username_key(&u.username),
                u.email,
                u.real_name,
                u.password,
                u.is_staff,
                ext_id,
                u.avatar,
                u.cover,
                u.bio,
                u.location,
                u.location_lat_lng,
                u.position_lat_lng,
                u.date_of_birth,
                u.description,
                gender,
                u.website,
                u.reputation,
                u.community_badge,
                u.reg_approved.unwrap_or(true),
                u.company_name,
                u.company_role,
                joined,
                u.deleted
            ])
        })
        .map_err(|e| sql_err(&format!("user {} ({})", u.id, u.username), &e))?;
        if u.deleted {
            self.deleted_users.insert(u.id);
        }
        Ok(())
    }

    fn contribution(
        &mut self,
        conn: &Connection,
        kind: &str,
        d: ContributionLine,
        now: Timestamp,
    ) -> Result<(), LineError> {
        let at = time_or(d.added_at.as_deref(), now, "added_at")?;
        if kind == "discussion"
            && d.title
                .as_deref()
                .is_none_or(|t| t.is_empty() || t.chars().count() > 250)
        {
            return Err("a discussion needs a title of 1 to 250 characters".into());
        }
        if !user_exists(conn, d.author).map_err(|e| sql_err(kind, &e))? {
            return Err(format!("author {} does not exist", d.author));
        }
        let title = if kind == "discussion" { d.title } else { None };
        let action = if kind == "status" {
            Some(d.action.unwrap_or_default())
        } else {
            None
        };
        let pk = insert_contribution(
            conn, kind, d.id, d.author, title, action, &d.text, at, d.deleted, None, None,
        )?;
        link_categories(conn, pk, &d.categories, kind)?;
        if !d.deleted {
            match kind {
                "post" => *self.deltas.posts.entry(d.author).or_default() += 1,
                "discussion" => *self.deltas.discussions.entry(d.author).or_default() += 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn comment(
        &mut self,
        conn: &Connection,
        c: CommentLine,
        now: Timestamp,
    ) -> Result<(), LineError> {
        let at = time_or(c.added_at.as_deref(), now, "added_at")?;
        let targets: Vec<(&str, i64)> = [
            ("discussion", c.discussion),
            ("post", c.post),
            ("status", c.status),
        ]
        .into_iter()
        .filter_map(|(k, id)| id.map(|id| (k, id)))
        .collect();
        let [(kind, id)] = targets[..] else {
            return Err("a comment needs exactly one of discussion, post, status".into());
        };
        if !user_exists(conn, c.author).map_err(|e| sql_err("comment", &e))? {
            return Err(format!("author {} does not exist", c.author));
        }
        let target = pk_of(conn, kind, id)?.ok_or_else(|| format!("{kind} {id} does not exist"))?;
        let parent = match c.parent {
            None => None,
            Some(p) => Some(
                pk_of(conn, "comment", p)?
                    .ok_or_else(|| format!("parent comment {p} does not exist"))?,
            ),
        };
        insert_contribution(
            conn,
            "comment",
            c.id,
            c.author,
            None,
            None,
            &c.text,
            at,
            c.deleted,
            Some(target),
            parent,
        )?;
        if !c.deleted {
            *self.deltas.comments.entry(target).or_default() += 1;
        }
        Ok(())
    }

    /// Applies the batch's counter changes; call before committing the batch.
    pub fn flush(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let d = std::mem::take(&mut self.deltas);
        let apply = |sql: &str, map: &HashMap<i64, i64>| -> rusqlite::Result<()> {
            let mut stmt = conn.prepare_cached(sql)?;
            for (id, n) in map {
                stmt.execute([*n, *id])?;
            }
            Ok(())
        };
        apply(
            "UPDATE user SET followers_counter = followers_counter + ?1 WHERE id = ?2",
            &d.followers,
        )?;
        apply(
            "UPDATE user SET followings_counter = followings_counter + ?1 WHERE id = ?2",
            &d.followings,
        )?;
        apply(
            "UPDATE user SET mutuals_counter = mutuals_counter + ?1 WHERE id = ?2",
            &d.mutuals,
        )?;
        apply(
            "UPDATE user SET posts_counter = posts_counter + ?1 WHERE id = ?2",
            &d.posts,
        )?;
        apply(
            "UPDATE user SET discussions_counter = discussions_counter + ?1 WHERE id = ?2",
            &d.discussions,
        )?;
        apply(
            "UPDATE contribution SET comment_count = comment_count + ?1 WHERE pk = ?2",
            &d.comments,
        )?;
        Ok(())
    }
}

fn pk_of(conn: &Connection, kind: &str, id: i64) -> Result<Option<i64>, LineError> {
    conn.prepare_cached("SELECT pk FROM contribution WHERE kind = ?1 AND id = ?2")
        .and_then(|mut s| s.query_row(params![kind, id], |r| r.get(0)).optional())
        .map_err(|e| sql_err(kind, &e))
}

#[expect(
    clippy::too_many_arguments,
    reason = "one column each; a struct would only rename them"
)]
fn insert_contribution(
    conn: &Connection,
    kind: &str,
    id: i64,
    author: i64,
    title: Option<String>,
    action: Option<String>,
    text: &str,
    at: Timestamp,
    deleted: bool,
    target: Option<i64>,
    parent: Option<i64>,
) -> Result<i64, LineError> {
    conn.prepare_cached(
        "INSERT INTO contribution (kind, id, author_id, title, action, text, added_at, deleted, target_pk, parent_pk)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )
    .and_then(|mut s| s.execute(params![kind, id, author, title, action, text, at, deleted, target, parent]))
    .map_err(|e| sql_err(&format!("{kind} {id}"), &e))?;
    Ok(conn.last_insert_rowid())
}

fn link_categories(conn: &Connection, pk: i64, ids: &[i64], what: &str) -> Result<(), LineError> {
    for c in ids {
        conn.prepare_cached("INSERT OR IGNORE INTO contribution_category (contribution_pk, category_id) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute([pk, *c]))
            .map_err(|_| format!("{what} refers to category {c}, which does not exist"))?;
    }
    Ok(())
}

fn course(conn: &Connection, c: CourseLine, now: Timestamp) -> Result<(), LineError> {
    let n = c.name.chars().count();
    if c.name.trim().is_empty() || n > 255 {
        return Err("course name must be 1 to 255 characters".into());
    }
    if !matches!(c.kind.as_str(), "self-paced" | "structured" | "scheduled") {
        return Err(format!(
            "type {:?} is not self-paced, structured or scheduled",
            c.kind
        ));
    }
    if !matches!(c.privacy.as_str(), "" | "open" | "private" | "secret") {
        return Err(format!(
            "privacy {:?} is not \"\", open, private or secret",
            c.privacy
        ));
    }
    let at = time_or(c.created_at.as_deref(), now, "created_at")?;
    if !user_exists(conn, c.created_by).map_err(|e| sql_err("course", &e))? {
        return Err(format!("created_by {} does not exist", c.created_by));
    }
    let s = match c.slug {
        Some(s) if slug::is_valid(&s) => s,
        Some(s) => return Err(format!("slug {s:?} is not a valid slug")),
        None => slug::unique(&slug::slugify(&c.name, "course"), |x| {
            conn.prepare_cached("SELECT 1 FROM course WHERE slug = ?1")?
                .exists([x])
        })
        .map_err(|e| sql_err("course", &e))?,
    };
    conn.prepare_cached(
        "INSERT INTO course (id, name, name_key, slug, description, type, privacy, enforce_lessons_order,
             new_comment_notification_enabled, hide_member_count, meta_title, meta_description, og_title,
             og_description, og_image, deleted, created_at, created_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )
    .and_then(|mut s2| {
        s2.execute(params![
            c.id,
            c.name,
            c.name.to_lowercase(),
            s,
            c.description,
            c.kind,
            c.privacy,
            c.enforce_lessons_order,
            c.new_comment_notification_enabled,
            c.hide_member_count,
            c.meta_title,
            c.meta_description,
            c.og_title,
            c.og_description,
            c.og_image,
            c.deleted,
            at,
            c.created_by
        ])
    })
    .map_err(|e| sql_err(&format!("course {} ({:?})", c.id, c.name), &e))?;
    conn.prepare_cached("INSERT INTO course_member (course_id, user_id, join_status, created_at) VALUES (?1, ?2, 'creator', ?3)")
        .and_then(|mut s2| s2.execute(params![c.id, c.created_by, at]))
        .map_err(|e| sql_err("course creator", &e))?;
    for cat in &c.categories {
        conn.prepare_cached(
            "INSERT OR IGNORE INTO course_category (course_id, category_id) VALUES (?1, ?2)",
        )
        .and_then(|mut s2| s2.execute([c.id, *cat]))
        .map_err(|_| format!("course refers to category {cat}, which does not exist"))?;
    }
    Ok(())
}
