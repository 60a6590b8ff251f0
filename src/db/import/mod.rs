//! Writes import lines (`model::import`) into the database. Counters (followers,
//! followings, posts, discussions, comments, vote tallies, category follows) are kept exact with in-memory deltas
//! applied once per batch, in the batch's transaction, instead of one UPDATE per row.
//! The `mutual` flag of follow edges is kept as `db::follows` keeps it: set on both
//! edges when the second of a pair arrives.
//!
//! An import runs with the writer in bulk mode ([`begin`] .. [`finish`]): foreign keys
//! off, with every reference checked in memory against [`Known`] instead; a large page
//! cache; rare checkpoints. Measured on the bench dataset (20k users, 1M follows, 2
//! cores): 4.7 s, 216k lines/s, where one prepared INSERT per line with foreign keys on
//! took 17.6 s.

use foldhash::{HashMap, HashSet};

use rusqlite::{Connection, params};
use serde_json::Value;

use crate::clock::Timestamp;
use crate::model::import::{CommentLine, ContributionLine, Line, UserLine};
use crate::model::{slug, user};

mod content;
mod custom;
mod events;
mod follows;
mod groups;
mod kit;
mod people;
mod polls;
mod tags;

/// Changes to one user's counters.
#[derive(Debug, Default, Clone, Copy)]
struct UserDelta {
    followers: i64,
    followings: i64,
    mutuals: i64,
    posts: i64,
    discussions: i64,
    categories: i64,
}

/// Counter changes of the current batch: one UPDATE per user (and per commented
/// contribution) when the batch ends, in id order.
#[derive(Debug, Default)]
struct Deltas {
    users: HashMap<i64, UserDelta>,
    comments: HashMap<i64, i64>,
    /// (contribution pk, reaction) → votes.
    tallies: HashMap<(i64, i64), i64>,
    /// category → followers.
    category_followers: HashMap<i64, i64>,
}

impl Deltas {
    fn user(&mut self, id: i64) -> &mut UserDelta {
        self.users.entry(id).or_default()
    }
}

/// The ids lines may refer to. Foreign keys are off during an import ([`begin`]), so
/// every reference a line makes is checked here, in memory, before it is written.
#[derive(Debug, Default)]
struct Known {
    users: HashSet<i64>,
    /// Deleted users: their follows are not counted.
    deleted_users: HashSet<i64>,
    categories: HashSet<i64>,
}

impl Known {
    fn load(conn: &Connection) -> rusqlite::Result<Known> {
        let mut known = Known::default();
        let mut stmt = conn.prepare("SELECT id, deleted FROM user")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            known.users.insert(id);
            if r.get(1)? {
                known.deleted_users.insert(id);
            }
        }
        let mut stmt = conn.prepare("SELECT id FROM category")?;
        known.categories = stmt.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
        Ok(known)
    }

    /// Checks that user `id`, named `role` in the line, exists.
    fn user(&self, id: i64, role: &str) -> Result<(), LineError> {
        if self.users.contains(&id) { Ok(()) } else { Err(format!("{role} {id} does not exist")) }
    }

    /// Checks that every category of a `what` line exists.
    fn categories(&self, ids: &[i64], what: &str) -> Result<(), LineError> {
        match ids.iter().find(|c| !self.categories.contains(c)) {
            None => Ok(()),
            Some(c) => Err(format!("{what} refers to category {c}, which does not exist")),
        }
    }
}

/// What the importer remembers across lines.
#[derive(Debug)]
pub struct Importer {
    known: Known,
    follows: follows::Follows,
    deltas: Deltas,
    /// `PRAGMA data_version` when the import last looked: it changes when another
    /// connection (a running server) commits, which makes `known` stale.
    data_version: i64,
}

/// Why a line was refused.
pub type LineError = String;

fn sql_err(what: &str, e: &rusqlite::Error) -> LineError {
    let m = e.to_string();
    if crate::db::is_unique_violation(e) {
        match taken(&m).as_deref() {
            None | Some("id") => format!("{what} already exists"),
            Some(field) => format!("{what}: its {field} is already taken by another record"),
        }
    } else if m.contains("FOREIGN KEY") {
        format!("{what} refers to a record that does not exist")
    } else if m.contains("CHECK constraint") {
        format!("{what} has a bad value ({m})")
    } else {
        format!("{what}: {m}")
    }
}

/// The field a UNIQUE violation names, in words: SQLite's "UNIQUE constraint failed:
/// user.username_key" is the username (its `_key` column is the folded copy that
/// makes names unique whatever their case). `None` when it names an index instead.
fn taken(message: &str) -> Option<String> {
    let columns = message.split("failed: ").nth(1)?;
    if columns.starts_with("index ") {
        return None;
    }
    let words: Vec<String> = columns
        .split(", ")
        .map(|c| c.rsplit('.').next().unwrap_or(c).trim_end_matches("_key").replace('_', " "))
        .collect();
    Some(words.join(" and "))
}

impl Importer {
    /// Starts an import into `conn`'s database.
    pub fn new(conn: &Connection) -> rusqlite::Result<Importer> {
        Ok(Importer {
            known: Known::load(conn)?,
            follows: follows::Follows::new(conn)?,
            deltas: Deltas::default(),
            data_version: data_version(conn)?,
        })
    }

    /// Call at the start of each batch's transaction: if another connection wrote
    /// since the last batch, reloads what the import knows and stops trusting its
    /// memory of follow edges.
    pub fn begin_batch(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let v = data_version(conn)?;
        if v != self.data_version {
            self.known = Known::load(conn)?;
            self.follows.others_wrote();
            self.data_version = v;
        }
        Ok(())
    }

    /// Applies one line.
    pub fn apply(
        &mut self,
        conn: &Connection,
        line_no: u64,
        line: Line,
        now: Timestamp,
    ) -> Result<(), LineError> {
        // ids are what the API hands out: positive integers
        if let Some(id) = line.own_id()
            && id < 1
        {
            return Err(format!("id {id} is not a positive integer"));
        }
        match line {
            Line::User(u) => self.user(conn, *u, now),
            Line::Follow(f) => {
                let at = f.created_at.unwrap_or(now);
                self.known.user(f.follower, "follower")?;
                self.known.user(f.followed, "followed")?;
                let mutual = self.follows.add(conn, line_no, f.follower, f.followed, at)?;
                self.count_follow(f.follower, f.followed, mutual);
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
                super::categories::insert(conn, Some(c.id), &c.name, &s, now).map_err(|e| {
                    match super::categories::taken(&e) {
                        Some(super::categories::Taken::Name) => {
                            format!("a category named {:?} already exists", c.name)
                        }
                        Some(super::categories::Taken::Slug) => {
                            format!("a category with slug {s:?} already exists")
                        }
                        _ => sql_err("category", &e),
                    }
                })?;
                self.known.categories.insert(c.id);
                Ok(())
            }
            Line::Reaction(r) => {
                if let Some(i) = &r.image {
                    crate::model::link::check_optional("image", i)?;
                }
                let reaction = crate::model::reaction::Reaction {
                    id: r.id,
                    label: r.label,
                    sentiment: r.sentiment,
                    image: r.image,
                    active: r.active,
                };
                super::reactions::upsert(conn, &reaction).map_err(|e| {
                    if super::reactions::is_label_taken(&e) {
                        format!("a reaction labelled {:?} already exists", reaction.label)
                    } else {
                        sql_err("reaction", &e)
                    }
                })
            }
            Line::Preference(p) => {
                let pref = super::preferences::get(conn, &p.section, &p.name)
                    .map_err(|e| sql_err("preference", &e))?
                    .ok_or_else(|| format!("no preference {}.{}", p.section, p.name))?;
                let v = pref
                    .kind
                    .check_json(&p.value)
                    .map_err(|e| format!("{}.{}: {e}", p.section, p.name))?;
                super::preferences::set(conn, pref.id, &v).map_err(|e| sql_err("preference", &e))
            }
            Line::Course(c) => content::course(conn, &self.known, *c, now),
            Line::CourseMember(m) => content::course_member(conn, &self.known, m, now),
            Line::Discussion(d) => self.contribution(conn, "discussion", d, now),
            Line::Post(d) => self.contribution(conn, "post", d, now),
            Line::Status(d) => self.contribution(conn, "status", d, now),
            Line::Comment(c) => self.comment(conn, c, now),
            Line::Vote(v) => kit::vote(conn, &self.known, &mut self.deltas, v, now),
            Line::CategoryFollow(f) => {
                kit::category_follow(conn, &self.known, &mut self.deltas, f, now)
            }
            Line::Connection(c) => people::connection(conn, &self.known, c, now),
            Line::ConnectionRequest(r) => people::connection_request(conn, &self.known, r, now),
            Line::Flag(f) => people::flag(conn, &self.known, f, now),
            Line::ItemFollow(f) => people::item_follow(conn, &self.known, f, now),
            Line::LegalPage(p) => people::legal_page(conn, p, now),
            Line::LegalAck(a) => people::legal_ack(conn, &self.known, a),
            Line::PrivateMessage(m) => people::private_message(conn, &self.known, m, now),
            Line::Group(g) => groups::group(conn, &self.known, g, now),
            Line::GroupMember(m) => groups::group_member(conn, &self.known, m, now),
            Line::Event(e) => events::event(conn, &self.known, e, now),
            Line::EventMember(m) => events::event_member(conn, &self.known, m, now),
            Line::PollVote(v) => polls::poll_vote(conn, &self.known, &v, now),
            Line::Tag(t) => tags::tag(conn, &t, now),
            Line::UserTag(t) => tags::user_tag(conn, &self.known, &t),
            Line::UserProvider(p) => tags::user_provider(conn, &self.known, &p, now),
            Line::CustomAdv(a) => custom::adv(conn, &self.known, &a, now),
            Line::CustomPage(p) => custom::page(conn, &p, now),
        }
    }

    fn user(&mut self, conn: &Connection, u: UserLine, now: Timestamp) -> Result<(), LineError> {
        user::validate_username(&u.username)?;
        if let Some(p) = &u.password
            && !crate::token::password::is_valid_hash(p)
        {
            return Err(format!(
                "password must be a Django pbkdf2_sha256$<iterations>$<salt>$<hash> hash with at most {} iterations",
                crate::token::password::MAX_ITERATIONS
            ));
        }
        // the links the kit puts in an <img> or an href: the API's rule (model::link)
        for (what, url) in [("avatar", &u.avatar), ("cover", &u.cover), ("website", &u.website)] {
            crate::model::link::check_optional(what, url)?;
        }
        let gender = u.gender.unwrap_or_else(|| "Unspecified".into());
        if !matches!(gender.as_str(), "Male" | "Female" | "Unspecified") {
            return Err(format!("gender {gender:?} is not Male, Female or Unspecified"));
        }
        if let Some(d) = &u.date_of_birth {
            time::Date::parse(d, time::macros::format_description!("[year]-[month]-[day]"))
                .map_err(|_| format!("date_of_birth {d:?} is not YYYY-MM-DD"))?;
        }
        let joined = u.date_joined.unwrap_or(now);
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
        self.known.users.insert(u.id);
        if u.deleted {
            self.known.deleted_users.insert(u.id);
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
        let at = d.added_at.unwrap_or(now);
        if kind == "discussion"
            && d.title.as_deref().is_none_or(|t| t.is_empty() || t.chars().count() > 250)
        {
            return Err("a discussion needs a title of 1 to 250 characters".into());
        }
        self.known.user(d.author, "author")?;
        self.known.categories(&d.categories, kind)?;
        check_text(&d.text)?;
        let title = if kind == "discussion" { d.title } else { None };
        let action = if kind == "status" { Some(d.action.unwrap_or_default()) } else { None };
        if !d.addressing.is_empty() {
            let in_space = d.group.is_some() || d.event.is_some();
            tags::addressing_of_line(conn, kind, in_space, &d.addressing)?;
        }
        let space = content::Space::of_line(conn, kind, d.group, d.event)?;
        let poll = match &d.poll {
            None | Some(Value::Null) => None,
            Some(_) if kind == "status" => return Err("a status has no poll".into()),
            Some(v) => Some(crate::model::import::ImportedPoll::parse(v)?),
        };
        let pk = content::insert_contribution(
            conn, kind, d.id, d.author, title, action, &d.text, at, d.deleted, None, None, space,
        )?;
        if let Some(p) = &poll {
            polls::poll(conn, pk, &format!("{kind} {}", d.id), p, at)?;
        }
        content::link_categories(conn, pk, &d.categories)?;
        crate::db::tags::address(conn, pk, &d.addressing).map_err(|e| sql_err("addressing", &e))?;
        if !d.deleted {
            match kind {
                "post" => self.deltas.user(d.author).posts += 1,
                "discussion" => self.deltas.user(d.author).discussions += 1,
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
        let at = c.added_at.unwrap_or(now);
        let (kind, id) = c.target()?;
        self.known.user(c.author, "author")?;
        check_text(&c.text)?;
        let target =
            content::pk_of(conn, kind, id)?.ok_or_else(|| format!("{kind} {id} does not exist"))?;
        // a comment is in its item's group or event
        let space = content::Space::of_item(conn, target)?;
        // a reply answers a comment on the same item, as the API requires
        let parent = match c.parent {
            None => None,
            Some(p) => match content::comment_target(conn, p)? {
                None => return Err(format!("parent comment {p} does not exist")),
                Some((pk, on)) if on == Some(target) => Some(pk),
                Some(_) => return Err(format!("parent comment {p} is on another item")),
            },
        };
        content::insert_contribution(
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
            space,
        )?;
        if !c.deleted {
            for counted in [Some(target), parent].into_iter().flatten() {
                *self.deltas.comments.entry(counted).or_default() += 1;
            }
        }
        Ok(())
    }

    /// Counts a new edge: a user's counters count its edges to live users, whatever
    /// its own state.
    fn count_follow(&mut self, follower: i64, followed: i64, mutual: bool) {
        let mutual = i64::from(mutual);
        if !self.known.deleted_users.contains(&follower) {
            let d = self.deltas.user(followed);
            d.followers += 1;
            d.mutuals += mutual;
        }
        if !self.known.deleted_users.contains(&followed) {
            let d = self.deltas.user(follower);
            d.followings += 1;
            d.mutuals += mutual;
        }
    }

    /// Writes what the batch queued and applies its counter changes; call before
    /// committing the batch. On failure, names the line at fault (0 when none is).
    pub fn flush(&mut self, conn: &Connection) -> Result<(), (u64, LineError)> {
        self.follows.flush(conn)?;
        self.apply_deltas(conn).map_err(|e| (0, format!("updating counters: {e}")))
    }

    fn apply_deltas(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut d = std::mem::take(&mut self.deltas);
        kit::apply(conn, &mut d)?;
        let mut users: Vec<(i64, UserDelta)> = d.users.into_iter().collect();
        users.sort_unstable_by_key(|(id, _)| *id);
        let mut stmt = conn.prepare_cached(
            "UPDATE user SET followers_counter = followers_counter + ?1,
                 followings_counter = followings_counter + ?2, mutuals_counter = mutuals_counter + ?3,
                 posts_counter = posts_counter + ?4, discussions_counter = discussions_counter + ?5,
                 categories_counter = categories_counter + ?6
             WHERE id = ?7",
        )?;
        for (id, u) in users {
            stmt.execute([
                u.followers,
                u.followings,
                u.mutuals,
                u.posts,
                u.discussions,
                u.categories,
                id,
            ])?;
        }
        let mut comments: Vec<(i64, i64)> = d.comments.into_iter().collect();
        comments.sort_unstable();
        for (pk, n) in comments {
            crate::db::users::add_to(conn, crate::db::users::Counter::Comments, pk, n)?;
        }
        Ok(())
    }
}

fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
}

/// Settings for a bulk load, set on the writer outside any transaction: foreign keys
/// off (the importer checks every reference itself, see [`Known`]), a 256 MiB page
/// cache, and a checkpoint every 256 MiB of WAL instead of every 4 MiB.
/// Replicated by Litestream (`replicated`), no checkpoint at all (SPEC §9, issue 28).
pub fn begin(conn: &Connection, replicated: bool) -> rusqlite::Result<()> {
    conn.execute_batch("PRAGMA foreign_keys = OFF; PRAGMA cache_size = -262144;")?;
    conn.pragma_update(None, "wal_autocheckpoint", if replicated { 0 } else { 65536 })
}

/// Ends a bulk load, however it went: builds the indexes it dropped, puts the
/// connection's settings back, refreshes the planner's statistics (sampling at most
/// 1000 rows an index) and checkpoints the WAL into the database file, unless
/// Litestream replicates it (`replicated`: Litestream checkpoints, SPEC §9).
pub fn finish(conn: &mut Connection, replicated: bool) -> rusqlite::Result<()> {
    // CREATE INDEX sorts: in runs of 8 MiB, each sorted by a worker thread and spilled
    // to a temp file, then merged; one in-memory run (temp_store = MEMORY) is sorted by
    // one thread and took twice as long (2.2 s for the two follow indexes of 1M edges)
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    conn.execute_batch(&format!(
        "PRAGMA temp_store = FILE; PRAGMA cache_size = -8192; PRAGMA threads = {threads};"
    ))?;
    super::indexes::restore(conn)?;
    super::init_connection(conn)?;
    conn.execute_batch("PRAGMA threads = 0; PRAGMA analysis_limit = 1000; ANALYZE;")?;
    conn.pragma_update(None, "wal_autocheckpoint", if replicated { 0 } else { 1000 })?;
    if replicated {
        return Ok(());
    }
    // never waits behind Litestream's read lock (SPEC §9)
    super::checkpoint::truncate_now(conn, "after an import").map(|_| ())
}

/// A contribution's text: at most what the API takes ([`crate::model::contribution::TEXT_MAX`]).
fn check_text(text: &str) -> Result<(), LineError> {
    let max = crate::model::contribution::TEXT_MAX;
    if text.len() > max {
        return Err(format!("text is {} bytes, more than the {max} the API takes", text.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;
    use crate::model::import::parse;

    fn follow(conn: &Connection, a: i64, b: i64) -> i64 {
        conn.query_row(
            "SELECT mutual FROM follow WHERE follower = ?1 AND followed = ?2",
            [a, b],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn a_write_by_another_connection_between_batches_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        crate::db::create_if_missing(&path, 0).unwrap();
        let mut ours = Connection::open(&path).unwrap();
        let theirs = Connection::open(&path).unwrap();
        theirs
            .execute_batch(
                "INSERT INTO user (id, username, username_key, date_joined) VALUES (1, 'a', 'a', 0), (2, 'b', 'b', 0);",
            )
            .unwrap();
        begin(&ours, false).unwrap();
        let mut importer = Importer::new(&ours).unwrap();
        // a running server makes 2 follow 1 while the import is between batches
        theirs
            .execute_batch("INSERT INTO follow (follower, followed, created_at) VALUES (2, 1, 0);")
            .unwrap();
        let tx = ours.transaction().unwrap();
        importer.begin_batch(&tx).unwrap();
        let line = parse(r#"{"record":"follow","follower":1,"followed":2}"#).unwrap();
        importer.apply(&tx, 1, line, 0).unwrap();
        importer.flush(&tx).unwrap();
        tx.commit().unwrap();
        finish(&mut ours, false).unwrap();
        assert_eq!(follow(&ours, 1, 2), 1, "the new edge is mutual");
        assert_eq!(follow(&ours, 2, 1), 1, "and so is the server's");
        let tx = ours.transaction().unwrap();
        importer.begin_batch(&tx).unwrap();
        let again = parse(r#"{"record":"follow","follower":2,"followed":1}"#).unwrap();
        assert!(importer.apply(&tx, 2, again, 0).unwrap_err().contains("already exists"));
    }
}
