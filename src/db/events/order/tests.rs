#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

use rusqlite::Connection;

use super::*;
use crate::clock::{SECOND, parse_rfc3339};
use crate::db::events::list::scan;
use crate::db::events::{create, get, update};
use crate::db::members::{self, Roster};
use crate::model::event::{Event, EventPrivacy, JoinStatus, Location};

const HOUR: i64 = 3600 * SECOND;
const DAY: i64 = 24 * HOUR;

fn db() -> Connection {
    let conn = crate::db::migrate::test_db();
    for id in 1..=2 {
        conn.execute(
            "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?1, ?1, 0)",
            [id],
        )
        .unwrap();
    }
    conn
}

/// An event by user 1, its key stored at `at`.
fn event(conn: &Connection, start: i64, len: i64, tz: &str, rec: Recurrence, at: i64) -> i64 {
    let n: i64 = conn.query_row("SELECT count(*) FROM event", [], |r| r.get(0)).unwrap();
    let mut e = Event::new(1, 0);
    e.name = format!("event {n}");
    e.slug = format!("event-{n}");
    e.privacy = EventPrivacy::Public;
    e.start_at = start;
    e.end_at = start + len;
    e.timezone = tz.into();
    e.recurring = rec;
    e.geolocation = Some("Rome".into());
    create(conn, &e, at).unwrap()
}

fn stored(conn: &Connection, id: i64) -> Key {
    conn.query_row(
        "SELECT next_start, next_end, prev_end, over FROM event WHERE id = ?1",
        [id],
        |r| {
            Ok(Key {
                next_start: r.get(0)?,
                next_end: r.get(1)?,
                prev_end: r.get(2)?,
                over: r.get(3)?,
            })
        },
    )
    .unwrap()
}

fn ids(conn: &Connection, f: &Filters, now: i64) -> Vec<i64> {
    walk(conn, None, &Scope::All, f, now, 100, 0).unwrap().1
}

/// The job moves a recurring event's key to its next occurrence once the kept one
/// ended, and a single event's to `over`; a fresh key is left alone.
#[test]
fn the_job_moves_a_passed_key_on() {
    let conn = db();
    let weekly = event(&conn, 10 * DAY, 2 * HOUR, "UTC", Recurrence::Weekly, 0);
    let single = event(&conn, 20 * DAY, 2 * HOUR, "UTC", Recurrence::Never, 0);
    let first =
        Key { next_start: 10 * DAY, next_end: 10 * DAY + 2 * HOUR, prev_end: None, over: false };
    assert_eq!(stored(&conn, weekly), first);
    assert_eq!(refresh_keys(&conn, 9 * DAY, REFRESH_MAX).unwrap(), 0);
    assert_eq!(refresh_keys(&conn, 10 * DAY + 2 * HOUR, REFRESH_MAX).unwrap(), 1);
    let second = Key {
        next_start: 17 * DAY,
        next_end: 17 * DAY + 2 * HOUR,
        prev_end: Some(10 * DAY + 2 * HOUR),
        over: false,
    };
    assert_eq!(stored(&conn, weekly), second);
    assert_eq!(refresh_keys(&conn, 10 * DAY + 2 * HOUR, REFRESH_MAX).unwrap(), 0);
    assert_eq!(refresh_keys(&conn, 30 * DAY, REFRESH_MAX).unwrap(), 2);
    assert!(stored(&conn, single).over);
    assert_eq!(stored(&conn, weekly).next_start, 31 * DAY);
    // at most `max` a run
    for k in 0..5 {
        event(&conn, 40 * DAY + k, HOUR, "UTC", Recurrence::Daily, 0);
    }
    assert_eq!(refresh_keys(&conn, 50 * DAY, 3).unwrap(), 3);
    assert_eq!(refresh_keys(&conn, 50 * DAY, 3).unwrap(), 3, "2 daily, and the weekly one");
    assert_eq!(refresh_keys(&conn, 50 * DAY, 3).unwrap(), 0);
}

/// Before the job runs, a stale key is put where its next occurrence belongs: a weekly
/// event under way comes before a single event tomorrow, and after it once its
/// occurrence ended; the job changes nothing in the order.
#[test]
fn a_stale_key_is_ordered_right_before_the_job_runs() {
    let conn = db();
    let weekly = event(&conn, HOUR, 2 * HOUR, "UTC", Recurrence::Weekly, 0);
    let single = event(&conn, 15 * DAY, 2 * HOUR, "UTC", Recurrence::Never, 0);
    let gone = event(&conn, 2 * DAY, 2 * HOUR, "UTC", Recurrence::Never, 0);
    let all = Filters::default();
    let under_way = 14 * DAY + 2 * HOUR;
    assert_eq!(ids(&conn, &all, under_way), [weekly, single, gone]);
    assert_eq!(walk(&conn, None, &Scope::All, &all, under_way, 1, 1).unwrap(), (3, vec![single]));
    let later = 14 * DAY + 4 * HOUR;
    assert_eq!(ids(&conn, &all, later), [single, weekly, gone]);
    assert_eq!(refresh_keys(&conn, later, REFRESH_MAX).unwrap(), 2);
    assert_eq!(ids(&conn, &all, later), [single, weekly, gone]);
    assert!(stored(&conn, gone).over);
}

/// Every write of an event's times stores its key at the write's time.
#[test]
fn an_edited_event_gets_its_key_at_once() {
    let conn = db();
    let id = event(&conn, 10 * DAY, 2 * HOUR, "Europe/Rome", Recurrence::Never, 0);
    let mut e = get(&conn, id).unwrap().unwrap();
    e.start_at = 5 * DAY;
    e.end_at = 5 * DAY + HOUR;
    update(&conn, &e, 6 * DAY).unwrap();
    assert_eq!(
        stored(&conn, id),
        Key { next_start: 5 * DAY, next_end: 5 * DAY + HOUR, prev_end: None, over: true }
    );
    assert_eq!(ids(&conn, &Filters::default(), 6 * DAY), [id]);
    e.recurring = Recurrence::Daily;
    update(&conn, &e, 6 * DAY).unwrap();
    let k = stored(&conn, id);
    assert_eq!((k.next_start, k.prev_end, k.over), (6 * DAY, Some(5 * DAY + HOUR), false));
    assert_eq!(k, key(&schedule(e.start_at, e.end_at, "Europe/Rome", e.recurring), 6 * DAY));
}

/// Each walk reads its index in the lists' order: no sort, no scan of `event`.
#[test]
fn the_walks_read_their_indexes_in_order() {
    let conn = db();
    let dated = Filters { date: Some(DateFilter::ThisMonth), follows: true, ..Filters::default() };
    for (scope, f) in [(Scope::All, Filters::default()), (Scope::NotIn, dated)] {
        let plans: Vec<String> = statements(&scope, &f)
            .iter()
            .map(|sql| {
                let mut st = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                let mut rows = st.raw_query();
                let mut plan = Vec::new();
                while let Some(r) = rows.next().unwrap() {
                    plan.push(r.get::<_, String>(3).unwrap());
                }
                plan.join("; ")
            })
            .collect();
        for (plan, index) in
            plans.iter().zip(["event_stale", "event_prev_end", "event_next", "event_over"])
        {
            let first = plan.split("; ").next().unwrap();
            assert!(first.starts_with("SEARCH e USING") && first.contains(index), "{plan}");
            assert!(!plan.contains("TEMP B-TREE") && !plan.contains("SCAN e"), "{plan}");
        }
    }
}

/// The first page costs the same with 10 times the events (SQLite's VM steps).
#[test]
fn a_page_costs_the_same_with_ten_times_the_events() {
    let steps = |n: i64| {
        let conn = db();
        for k in 0..n {
            let rec = if k % 10 == 0 { Recurrence::Weekly } else { Recurrence::Never };
            event(&conn, (k % 1000) * DAY / 3, 2 * HOUR, "UTC", rec, 0);
        }
        let now = 170 * DAY;
        refresh_keys(&conn, now, i64::MAX).unwrap();
        let count = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let c = std::sync::Arc::clone(&count);
        conn.progress_handler(
            100,
            Some(move || {
                c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                false
            }),
        )
        .unwrap();
        let month = Filters { date: Some(DateFilter::ThisMonth), ..Filters::default() };
        for f in [Filters::default(), month] {
            assert_eq!(walk(&conn, Some(2), &Scope::All, &f, now, 20, 0).unwrap().1.len(), 20);
        }
        count.load(std::sync::atomic::Ordering::Relaxed)
    };
    let (small, large) = (steps(300), steps(3000));
    assert!(large < small * 2, "{small} then {large} x100 VM steps");
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: i64) -> i64 {
        i64::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
    }
}

/// The walk gives the order of the whole list ordered in Rust ([`scan`], the lists'
/// order before issue 33) on a mix of single and recurring events in several zones
/// (across daylight saving time, monthly events on the 31st), with keys stored at many
/// earlier times, before and after the job, for every date filter, page and scope.
#[test]
fn the_walk_orders_like_the_whole_list_ordered_in_rust() {
    let conn = db();
    let mut rng = Rng(20_261_127);
    let base = parse_rfc3339("2026-03-20T00:00:00Z").unwrap();
    let zones = ["UTC", "Europe/Rome", "America/New_York", "Australia/Sydney", "Asia/Kolkata"];
    let first_now = base;
    let mut all = Vec::new();
    for k in 0..300 {
        let tz = zones[usize::try_from(rng.below(5)).unwrap()];
        let rec = match rng.below(8) {
            0 => Recurrence::Daily,
            1 => Recurrence::Weekly,
            2 | 3 => Recurrence::Monthly,
            _ => Recurrence::Never,
        };
        let start = if rec == Recurrence::Monthly && k % 2 == 0 {
            // the 31st of a month, at some hour
            let m = [1, 3, 5, 7, 8, 10, 12][usize::try_from(rng.below(7)).unwrap()];
            let y = 2025 + rng.below(2);
            let h = rng.below(24);
            parse_rfc3339(&format!("{y}-{m:02}-31T{h:02}:00:00Z")).unwrap()
        } else {
            base + (rng.below(800) - 400) * DAY + rng.below(96) * HOUR / 4
        };
        let len = match rng.below(6) {
            0 => 30 * HOUR,
            1 => 3 * DAY,
            _ => (1 + rng.below(12)) * HOUR / 2,
        };
        let at = first_now - rng.below(400) * DAY;
        let id = event(&conn, start, len, tz, rec, at.min(start + rng.below(3) * DAY));
        if k % 7 == 0 {
            members::set(&conn, Roster::Event, id, 2, JoinStatus::Joined, 0).unwrap();
        }
        if k % 11 == 0 {
            let mut e = get(&conn, id).unwrap().unwrap();
            e.location = Location::Online;
            e.show_on_feed = k % 2 == 0;
            update(&conn, &e, at).unwrap();
        }
        all.push(id);
    }
    let dates = [
        None,
        Some(DateFilter::Today),
        Some(DateFilter::Tomorrow),
        Some(DateFilter::ThisWeek),
        Some(DateFilter::NextWeek),
        Some(DateFilter::ThisMonth),
        Some(DateFilter::NotPast),
        Some(DateFilter::Past),
    ];
    let mut compared = 0;
    for (step, now) in [base, base + 3 * DAY + 7 * HOUR, base + 40 * DAY, base + 400 * DAY + HOUR]
        .into_iter()
        .enumerate()
    {
        if step % 2 == 1 {
            refresh_keys(&conn, now - rng.below(5) * DAY, REFRESH_MAX).unwrap();
        }
        for date in dates {
            for (tz, scope, viewer, location) in [
                ("UTC", Scope::All, None, None),
                ("Europe/Rome", Scope::All, Some(2), None),
                ("Pacific/Auckland", Scope::NotIn, Some(2), None),
                ("America/New_York", Scope::All, Some(1), Some(Location::Online)),
            ] {
                let f = Filters { date, zone: zone(tz).unwrap(), location, ..Filters::default() };
                let (total, whole) = scan(&conn, viewer, &scope, &f, now, 1000, 0).unwrap();
                for (limit, offset) in [(1000, 0), (7, 0), (7, 7), (5, 23), (10, 1000)] {
                    let got = walk(&conn, viewer, &scope, &f, now, limit, offset).unwrap();
                    let want: Vec<i64> = whole
                        .iter()
                        .copied()
                        .skip(usize::try_from(offset).unwrap())
                        .take(usize::try_from(limit).unwrap())
                        .collect();
                    let count = total.min(offset + limit + 1);
                    assert_eq!(got, (count, want), "{date:?} in {tz} at {now}, {limit}/{offset}");
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 4 * 8 * 4 * 5);
    assert!(all.len() == 300);
}

/// `search_event` follows the events' names, descriptions and deletion, and `hearth
/// check` finds it out of step.
#[test]
fn the_text_index_follows_the_events_and_check_verifies_it() {
    let conn = db();
    let id = event(&conn, DAY, HOUR, "UTC", Recurrence::Never, 0);
    let found = |q: &str| -> Vec<i64> {
        let text = Filters { text: Some(q.into()), ..Filters::default() };
        crate::db::events::page(&conn, None, &Scope::All, &text, 0, 10, 0).unwrap().1
    };
    assert_eq!(found("VENT 0"), [id], "a substring, any case");
    let mut e = get(&conn, id).unwrap().unwrap();
    e.description = "Pâtisserie \"quoted\" 100%".into();
    update(&conn, &e, 0).unwrap();
    assert_eq!(
        (found("PÂTISSERIE"), found("\"quoted\""), found("0%")),
        (vec![id], vec![id], vec![id])
    );
    assert!(found("patisserie").is_empty(), "accents are kept");
    let problems = |c: &Connection| {
        crate::db::check::problems(c)
            .unwrap()
            .into_iter()
            .filter(|p| p.check == "search_event")
            .count()
    };
    assert_eq!(problems(&conn), 0);
    e.deleted = true;
    update(&conn, &e, 0).unwrap();
    assert!(found("quoted").is_empty());
    assert_eq!(problems(&conn), 0);
    conn.execute("INSERT INTO search_event (rowid, name, description) VALUES (?1, 'x', 'y')", [id])
        .unwrap();
    assert_eq!(problems(&conn), 1);
}

/// A write of an event's times that bypasses `update` (raw SQL) leaves its key stale,
/// so the lists still order it by its new times.
#[test]
fn a_raw_write_of_the_times_makes_the_key_stale() {
    let conn = db();
    let a = event(&conn, 10 * DAY, HOUR, "UTC", Recurrence::Never, 0);
    let b = event(&conn, 20 * DAY, HOUR, "UTC", Recurrence::Never, 0);
    assert_eq!(ids(&conn, &Filters::default(), DAY), [a, b]);
    conn.execute(
        "UPDATE event SET start_at = ?2, end_at = ?2 + 3600000000 WHERE id = ?1",
        [b, 5 * DAY],
    )
    .unwrap();
    assert_eq!(stored(&conn, b).next_end, 0);
    assert_eq!(ids(&conn, &Filters::default(), DAY), [b, a]);
    conn.execute("UPDATE event SET name = 'renamed' WHERE id = ?1", [a]).unwrap();
    assert_eq!(stored(&conn, a).next_start, 10 * DAY, "other columns leave the key alone");
}
