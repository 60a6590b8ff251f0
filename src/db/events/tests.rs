#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

use rusqlite::Connection;

use super::*;
use crate::clock::SECOND;
use crate::model::event::{EventPrivacy, Recurrence};
use crate::model::event_time::DateFilter;

const HOUR: i64 = 3600 * SECOND;
const DAY: i64 = 24 * HOUR;

fn user(conn: &Connection, id: i64) {
    conn.execute(
        "INSERT INTO user (id, username, username_key, date_joined) VALUES (?1, ?1, ?1, 0)",
        [id],
    )
    .unwrap();
}

fn event(conn: &Connection, name: &str, privacy: EventPrivacy, visible: bool, start: i64) -> i64 {
    let mut e = Event::new(1, 0);
    e.name = name.into();
    e.slug = name.into();
    e.privacy = privacy;
    e.visible = visible;
    e.start_at = start;
    e.end_at = start + 2 * HOUR;
    e.geolocation = Some("Rome".into());
    create(conn, &e, 0).unwrap()
}

fn ids(conn: &Connection, viewer: Option<i64>, scope: &Scope, f: &Filters, now: i64) -> Vec<i64> {
    page(conn, viewer, scope, f, now, 100, 0).unwrap().1
}

/// Detail and lists as each kind of caller meets them: a public event for everyone; a
/// private visible one for everyone, its members for members only; a hidden one for
/// members, invited users and requesters only; one its creator hid leaves the lists
/// of others; a deleted one for nobody.
#[test]
fn who_sees_an_event() {
    let conn = crate::db::migrate::test_db();
    for id in 1..=4 {
        user(&conn, id);
    }
    let public = event(&conn, "public", EventPrivacy::Public, true, 10 * DAY);
    let private = event(&conn, "private", EventPrivacy::Private, true, 11 * DAY);
    let hidden = event(&conn, "hidden", EventPrivacy::Private, false, 12 * DAY);
    members::set(&conn, Roster::Event, hidden, 2, JoinStatus::Joined, 0).unwrap();
    members::set(&conn, Roster::Event, hidden, 3, JoinStatus::Invited, 0).unwrap();
    let sees = |id: i64, viewer: Option<i64>| seen(&conn, id, viewer).unwrap().is_some();
    for v in [None, Some(2), Some(3), Some(4)] {
        assert!(sees(public, v) && sees(private, v));
    }
    assert!(sees(hidden, Some(1)) && sees(hidden, Some(2)) && sees(hidden, Some(3)));
    assert!(!sees(hidden, Some(4)) && !sees(hidden, None));
    let all = Filters::default();
    assert_eq!(ids(&conn, Some(4), &Scope::All, &all, 0), [public, private]);
    assert_eq!(ids(&conn, Some(3), &Scope::All, &all, 0), [public, private, hidden]);
    let (e, st) = seen(&conn, private, Some(4)).unwrap().unwrap();
    assert!(!shows_members(&e, st));
    let (e, st) = seen(&conn, hidden, Some(2)).unwrap().unwrap();
    assert!(shows_members(&e, st));
    // hidden by its creator: out of others' lists, still in its members'
    let mut e = get(&conn, public).unwrap().unwrap();
    e.show_on_feed = false;
    update(&conn, &e, 0).unwrap();
    assert_eq!(ids(&conn, Some(4), &Scope::All, &all, 0), [private]);
    assert_eq!(ids(&conn, Some(1), &Scope::All, &all, 0), [public, private, hidden]);
    e.deleted = true;
    update(&conn, &e, 0).unwrap();
    assert!(!sees(public, Some(1)));
}

/// The triggers keep both counters through joins, answers and departures, and the
/// check agrees.
#[test]
fn counters_follow_members_and_answers() {
    let conn = crate::db::migrate::test_db();
    for id in 1..=4 {
        user(&conn, id);
    }
    let id = event(&conn, "e", EventPrivacy::Public, true, DAY);
    let counters = || {
        let e = get(&conn, id).unwrap().unwrap();
        (e.subscribers_counter, e.goings_counter)
    };
    assert_eq!(counters(), (1, 1), "the creator is a member, going");
    members::set(&conn, Roster::Event, id, 2, JoinStatus::Joined, 0).unwrap();
    members::set(&conn, Roster::Event, id, 3, JoinStatus::Invited, 0).unwrap();
    answer(&conn, id, 2, Some(true)).unwrap();
    answer(&conn, id, 3, Some(true)).unwrap();
    assert_eq!(counters(), (2, 2), "an invited user does not answer");
    answer(&conn, id, 2, Some(false)).unwrap();
    assert_eq!(counters(), (2, 1));
    assert_eq!(answered(&conn, id, false, 10, 0).unwrap().0, 1);
    answer(&conn, id, 2, Some(true)).unwrap();
    members::remove(&conn, Roster::Event, id, 2).unwrap();
    assert_eq!(counters(), (1, 1));
    assert_eq!(status(&conn, id, Some(1)).unwrap(), Some((JoinStatus::Creator, Some(true))));
    let problems = crate::db::check::problems(&conn).unwrap();
    assert!(problems.iter().all(|p| !p.check.starts_with("event")), "{problems:?}");
}

/// Lists: soonest first, past ones after (latest first); the date filters see a
/// recurring event's later occurrences; text and location narrow.
#[test]
fn lists_order_and_filter_by_occurrence() {
    let conn = crate::db::migrate::test_db();
    user(&conn, 1);
    let now = 100 * DAY;
    let past = event(&conn, "past", EventPrivacy::Public, true, 50 * DAY);
    let older = event(&conn, "older", EventPrivacy::Public, true, 40 * DAY);
    let soon = event(&conn, "soon", EventPrivacy::Public, true, now + DAY + HOUR);
    let weekly = event(&conn, "weekly meetup", EventPrivacy::Public, true, 30 * DAY + HOUR);
    let mut w = get(&conn, weekly).unwrap().unwrap();
    w.recurring = Recurrence::Weekly;
    update(&conn, &w, 0).unwrap();
    let all = Filters::default();
    // weekly: day 30 + 7k; next after day 100 is day 100 (30 + 70) at 01:00
    assert_eq!(ids(&conn, None, &Scope::All, &all, now), [weekly, soon, past, older]);
    let f = |d| Filters { date: Some(d), ..Filters::default() };
    assert_eq!(ids(&conn, None, &Scope::All, &f(DateFilter::Today), now), [weekly]);
    assert_eq!(ids(&conn, None, &Scope::All, &f(DateFilter::Tomorrow), now), [soon]);
    assert_eq!(ids(&conn, None, &Scope::All, &f(DateFilter::NotPast), now), [weekly, soon]);
    assert_eq!(ids(&conn, None, &Scope::All, &f(DateFilter::Past), now), [weekly, past, older]);
    let text = Filters { text: Some("MEET".into()), ..Filters::default() };
    assert_eq!(ids(&conn, None, &Scope::All, &text, now), [weekly]);
    let wild = Filters { text: Some("%".into()), ..Filters::default() };
    assert!(ids(&conn, None, &Scope::All, &wild, now).is_empty());
    let online =
        Filters { location: Some(crate::model::event::Location::Online), ..Filters::default() };
    assert!(ids(&conn, None, &Scope::All, &online, now).is_empty());
    let mine =
        Scope::MemberOf { user: 1, statuses: JoinStatus::MEMBERS.to_vec(), going: Some(true) };
    assert_eq!(ids(&conn, Some(1), &mine, &all, now).len(), 4);
    assert!(ids(&conn, Some(1), &Scope::NotIn, &all, now).is_empty());
    let (count, page2) = page(&conn, None, &Scope::All, &all, now, 2, 2).unwrap();
    assert_eq!((count, page2), (4, vec![past, older]));
}
