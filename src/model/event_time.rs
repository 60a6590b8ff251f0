//! An event's times (SPEC §10 "events"): the start and end stored as UTC
//! ([`Timestamp`]s) beside the IANA zone the event was planned in, the recurrence the
//! kit offers (`never`, `daily`, `weekly`, `monthly`: no end to a recurrence, as the
//! kit has none), and the kit's date filters. A recurring event repeats at the same
//! wall-clock time in its zone (a 19:00 weekly meeting in Europe/Rome stays at 19:00
//! across daylight saving time), each occurrence as long as the first; a monthly one on
//! the same day of the month, or the month's last day when it has no such day (the
//! 31st: 28 February, 31 March).

use jiff::tz::TimeZone;
use jiff::{Span, Zoned, civil};

use super::course_enums::Recurrence;
use crate::clock::{SECOND, Timestamp};

/// Longest zone name (the longest IANA names are about 30 characters).
pub const ZONE_MAX: usize = 64;

/// The zone named `name` (an IANA name such as `Europe/Rome`, or `UTC`), from the zone
/// database built into hearth.
pub fn zone(name: &str) -> Option<TimeZone> {
    if name.is_empty() || name.len() > ZONE_MAX {
        return None;
    }
    TimeZone::get(name).ok()
}

/// When an event happens: its first occurrence, its zone and its recurrence.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub start: Timestamp,
    pub end: Timestamp,
    pub zone: TimeZone,
    pub recurring: Recurrence,
}

/// One occurrence: [start, end).
pub type Occurrence = (Timestamp, Timestamp);

fn zoned(t: Timestamp, zone: &TimeZone) -> Option<Zoned> {
    Some(jiff::Timestamp::from_microsecond(t).ok()?.to_zoned(zone.clone()))
}

fn micros(z: &Zoned) -> Timestamp {
    z.timestamp().as_microsecond()
}

/// The most steps [`Schedule::first_ending_after`] takes from its estimate.
const STEPS: usize = 8;

impl Schedule {
    /// The `k`th occurrence (0: the first), or `None` past the calendar's range or for
    /// `k > 0` of an event that does not recur.
    pub fn nth(&self, k: i64) -> Option<Occurrence> {
        let length = self.end - self.start;
        let span = match self.recurring {
            Recurrence::Never if k == 0 => return Some((self.start, self.end)),
            Recurrence::Never => return None,
            // calendar days in the zone: not always 24 hours
            Recurrence::Daily => Span::new().try_days(k).ok()?,
            Recurrence::Weekly => Span::new().try_weeks(k).ok()?,
            // from the first each time, so that a clamped month does not drift
            Recurrence::Monthly => Span::new().try_months(k).ok()?,
        };
        let start = micros(&zoned(self.start, &self.zone)?.checked_add(span).ok()?);
        Some((start, start.checked_add(length)?))
    }

    /// The average length of a period, for a first guess of which occurrence is near
    /// a time.
    fn period(&self) -> Option<i64> {
        const DAY: i64 = 86_400 * SECOND;
        match self.recurring {
            Recurrence::Never => None,
            Recurrence::Daily => Some(DAY),
            Recurrence::Weekly => Some(7 * DAY),
            // 365.2425 / 12 days
            Recurrence::Monthly => Some(2_629_746 * SECOND),
        }
    }

    /// The first occurrence that ends after `t` (the one running at `t`, else the next
    /// one): `None` for an event that does not recur and ended by `t`.
    pub fn first_ending_after(&self, t: Timestamp) -> Option<Occurrence> {
        self.nth_ending_after(t).map(|(_, occ)| occ)
    }

    /// [`Schedule::first_ending_after`] with its index (0: the first occurrence), so
    /// that the one before it is `nth(k - 1)`.
    pub fn nth_ending_after(&self, t: Timestamp) -> Option<(i64, Occurrence)> {
        if self.end > t {
            return Some((0, (self.start, self.end)));
        }
        let period = self.period()?;
        // a guess from the average period, then a few exact steps either way
        let mut k = ((t - self.end) / period).max(0);
        for _ in 0..STEPS {
            if k == 0 || self.nth(k - 1)?.1 <= t {
                break;
            }
            k -= 1;
        }
        for _ in 0..STEPS {
            let occ = self.nth(k)?;
            if occ.1 > t {
                return Some((k, occ));
            }
            k += 1;
        }
        None
    }

    /// The occurrence running at `t`, if one is.
    pub fn running_at(&self, t: Timestamp) -> Option<Occurrence> {
        self.first_ending_after(t).filter(|o| o.0 <= t)
    }

    /// The first occurrence that starts after `t`.
    pub fn next_after(&self, t: Timestamp) -> Option<Occurrence> {
        let first = self.first_ending_after(t)?;
        if first.0 > t {
            return Some(first);
        }
        // the running one's successor
        self.first_ending_after(first.1)
    }

    /// Whether an occurrence overlaps [from, to) (`None`: unbounded on that side).
    pub fn overlaps(&self, from: Option<Timestamp>, to: Option<Timestamp>) -> bool {
        let occ = match from {
            Some(f) => self.first_ending_after(f),
            None => Some((self.start, self.end)),
        };
        occ.is_some_and(|(s, _)| to.is_none_or(|to| s < to))
    }
}

/// The kit's `date_filter` (`SCEventDateFilterType`; `all` is no filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateFilter {
    Today,
    Tomorrow,
    ThisWeek,
    NextWeek,
    ThisMonth,
    NotPast,
    Past,
}

impl DateFilter {
    /// The names [`DateFilter::parse`] takes.
    pub const NAMES: [&'static str; 8] =
        ["all", "today", "tomorrow", "this_week", "next_week", "this_month", "not_past", "past"];

    /// The filter named `s`: `Ok(None)` for `all`, `Err` for an unknown name.
    pub fn parse(s: &str) -> Result<Option<Self>, String> {
        Ok(Some(match s {
            "all" => return Ok(None),
            "today" => Self::Today,
            "tomorrow" => Self::Tomorrow,
            "this_week" => Self::ThisWeek,
            "next_week" => Self::NextWeek,
            "this_month" => Self::ThisMonth,
            "not_past" => Self::NotPast,
            "past" => Self::Past,
            _ => {
                return Err(format!(
                    "\"{s}\" is not a valid choice (all, today, tomorrow, this_week, \
                     next_week, this_month, not_past, past)."
                ));
            }
        }))
    }

    /// The range of time it keeps the events of, at `now` in `zone` (days and weeks,
    /// from Monday, as the zone counts them): an event is kept when one of its
    /// occurrences overlaps the range; `Past` keeps those with an occurrence that ended
    /// by `now` (see [`matches`]).
    pub fn range(self, now: Timestamp, zone: &TimeZone) -> (Option<Timestamp>, Option<Timestamp>) {
        let Some(today) = zoned(now, zone).map(|z| z.date()) else {
            return (None, None);
        };
        let at = |d: Option<civil::Date>| {
            d.and_then(|d| d.to_zoned(zone.clone()).ok()).map(|z| micros(&z))
        };
        let add = |d: civil::Date, days: i64| d.checked_add(Span::new().try_days(days).ok()?).ok();
        let monday = add(today, -i64::from(today.weekday().to_monday_zero_offset()));
        match self {
            Self::Today => (at(Some(today)), at(add(today, 1))),
            Self::Tomorrow => (at(add(today, 1)), at(add(today, 2))),
            Self::ThisWeek => (at(monday), at(monday.and_then(|m| add(m, 7)))),
            Self::NextWeek => {
                (at(monday.and_then(|m| add(m, 7))), at(monday.and_then(|m| add(m, 14))))
            }
            Self::ThisMonth => {
                let first = today.first_of_month();
                (at(Some(first)), at(first.checked_add(Span::new().months(1)).ok()))
            }
            Self::NotPast => (Some(now), None),
            Self::Past => (None, Some(now)),
        }
    }

    /// Whether `schedule` passes the filter at `now` in `zone`.
    pub fn matches(self, schedule: &Schedule, now: Timestamp, zone: &TimeZone) -> bool {
        match self {
            // an occurrence over by now: the first one ended
            Self::Past => schedule.end <= now,
            _ => {
                let (from, to) = self.range(now, zone);
                schedule.overlaps(from, to)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use crate::clock::parse_rfc3339;

    fn t(s: &str) -> Timestamp {
        parse_rfc3339(s).unwrap()
    }

    fn weekly_rome() -> Schedule {
        // Tuesday 2026-03-24 19:00 in Rome (UTC+1), two hours
        Schedule {
            start: t("2026-03-24T18:00:00Z"),
            end: t("2026-03-24T20:00:00Z"),
            zone: zone("Europe/Rome").unwrap(),
            recurring: Recurrence::Weekly,
        }
    }

    #[test]
    fn zones_are_iana_names() {
        assert!(zone("Europe/Rome").is_some());
        assert!(zone("UTC").is_some());
        assert!(zone("America/Argentina/Buenos_Aires").is_some());
        for bad in ["", "Mars/Olympus", "../../etc/passwd", "Europe/Rome\n", &"A".repeat(65)] {
            assert!(zone(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_weekly_event_keeps_its_wall_clock_hour_across_daylight_saving() {
        let s = weekly_rome();
        // Rome moves to UTC+2 on 2026-03-29: the next meeting is 17:00 UTC
        assert_eq!(s.nth(1), Some((t("2026-03-31T17:00:00Z"), t("2026-03-31T19:00:00Z"))));
        let at = t("2026-04-07T17:30:00Z");
        assert_eq!(s.running_at(at), Some((t("2026-04-07T17:00:00Z"), t("2026-04-07T19:00:00Z"))));
        assert_eq!(s.next_after(at), Some((t("2026-04-14T17:00:00Z"), t("2026-04-14T19:00:00Z"))));
        // a year on, still Tuesday 19:00 local
        let later = s.first_ending_after(t("2027-01-01T00:00:00Z")).unwrap();
        assert_eq!(later.0, t("2027-01-05T18:00:00Z"));
    }

    #[test]
    fn monthly_events_clamp_to_the_end_of_short_months_without_drifting() {
        let s = Schedule {
            start: t("2026-01-31T09:00:00Z"),
            end: t("2026-01-31T10:00:00Z"),
            zone: zone("UTC").unwrap(),
            recurring: Recurrence::Monthly,
        };
        assert_eq!(s.nth(1).unwrap().0, t("2026-02-28T09:00:00Z"));
        assert_eq!(s.nth(2).unwrap().0, t("2026-03-31T09:00:00Z"));
        assert_eq!(
            s.first_ending_after(t("2026-04-01T00:00:00Z")).unwrap().0,
            t("2026-04-30T09:00:00Z")
        );
    }

    #[test]
    fn a_single_event_runs_once_and_then_is_past() {
        let s = Schedule { recurring: Recurrence::Never, ..weekly_rome() };
        assert!(s.running_at(t("2026-03-24T19:00:00Z")).is_some());
        assert_eq!(s.next_after(t("2026-03-24T19:00:00Z")), None);
        assert_eq!(s.first_ending_after(t("2026-03-25T00:00:00Z")), None);
        let z = zone("UTC").unwrap();
        let now = t("2026-03-30T12:00:00Z");
        assert!(DateFilter::Past.matches(&s, now, &z));
        assert!(!DateFilter::NotPast.matches(&s, now, &z));
        // the week of Monday 2026-03-23
        assert!(DateFilter::ThisWeek.matches(&s, t("2026-03-23T00:00:00Z"), &z));
        assert!(!DateFilter::NextWeek.matches(&s, t("2026-03-23T00:00:00Z"), &z));
    }

    #[test]
    fn date_filters_find_the_occurrences_of_recurring_events() {
        let s = weekly_rome();
        let z = zone("Europe/Rome").unwrap();
        // Wednesday 2026-06-10: this week's Tuesday is over, next week's is ahead
        let now = t("2026-06-10T10:00:00Z");
        assert!(DateFilter::ThisWeek.matches(&s, now, &z));
        assert!(DateFilter::NextWeek.matches(&s, now, &z));
        assert!(!DateFilter::Today.matches(&s, now, &z));
        assert!(!DateFilter::Tomorrow.matches(&s, now, &z));
        assert!(DateFilter::Today.matches(&s, t("2026-06-16T06:00:00Z"), &z));
        assert!(DateFilter::ThisMonth.matches(&s, now, &z));
        assert!(DateFilter::NotPast.matches(&s, now, &z));
        assert_eq!(DateFilter::parse("all"), Ok(None));
        assert!(DateFilter::parse("yesterday").is_err());
    }
}
