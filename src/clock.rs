//! The only place that reads the system time. Everything else takes a [`Timestamp`]
//! from a [`Clock`], so expiry and rate limits are tested without sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// Microseconds since the Unix epoch, UTC (the unit of every time column).
pub type Timestamp = i64;

/// One second in [`Timestamp`] units.
pub const SECOND: Timestamp = 1_000_000;

/// A source of the current time: the system clock, or a manual clock for tests.
#[derive(Clone, Debug)]
pub struct Clock(Arc<Source>);

#[derive(Debug)]
enum Source {
    System,
    Manual(AtomicI64),
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Clock(Arc::new(Source::System))
    }

    /// A clock that stands still at `start` until [`Clock::advance`] moves it.
    pub fn manual(start: Timestamp) -> Self {
        Clock(Arc::new(Source::Manual(AtomicI64::new(start))))
    }

    /// The current time in microseconds.
    pub fn now(&self) -> Timestamp {
        match &*self.0 {
            Source::System => wall(),
            Source::Manual(t) => t.load(Ordering::SeqCst),
        }
    }

    /// The current time in whole seconds (JWT NumericDate).
    pub fn now_secs(&self) -> i64 {
        self.now().div_euclid(SECOND)
    }

    /// Moves a manual clock forward; the system clock ignores it.
    pub fn advance(&self, by: Timestamp) {
        if let Source::Manual(t) = &*self.0 {
            t.fetch_add(by, Ordering::SeqCst);
        }
    }
}

/// The system clock's now, for what records when it happened rather than decides
/// anything (log lines' times); logic takes a [`Clock`].
pub fn wall() -> Timestamp {
    #[expect(clippy::disallowed_methods, reason = "the one reading of the system clock")]
    let since =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_micros()).unwrap_or(i64::MAX)
}

/// The monotonic clock's now, for durations only: timeouts and deadlines, and how long
/// something took (metrics, logs). Never stored, nor compared with [`Clock::now`]; logic
/// whose outcome depends on it takes the instant as a parameter (`server::memory`'s
/// quiet spell, the Litestream and replica lags), so its tests pass their own.
#[expect(clippy::disallowed_methods, reason = "the one reading of the monotonic clock")]
pub fn instant() -> std::time::Instant {
    std::time::Instant::now()
}

/// Formats a timestamp as RFC 3339 in UTC with microseconds: `2026-11-22T10:15:30.123456Z`.
///
/// Digits are written into a fixed buffer: every date of every list item goes through
/// here, and `format!` with seven padded fields was ~4% of the CPU of a followings page
/// (issue 17). Years outside 0..=9999 (never stored by hearth) keep the general path.
pub fn rfc3339(ts: Timestamp) -> String {
    let secs = ts.div_euclid(SECOND);
    let micros = ts.rem_euclid(SECOND);
    let Ok(t) = time::OffsetDateTime::from_unix_timestamp(secs) else {
        return String::from("1970-01-01T00:00:00.000000Z");
    };
    let (Ok(year), Ok(micros)) = (u32::try_from(t.year()), u32::try_from(micros)) else {
        return rfc3339_slow(&t, micros);
    };
    if year > 9999 {
        return rfc3339_slow(&t, i64::from(micros));
    }
    let mut out = *b"0000-00-00T00:00:00.000000Z";
    for (range, value) in [
        (0..4, year),
        (5..7, u32::from(u8::from(t.month()))),
        (8..10, u32::from(t.day())),
        (11..13, u32::from(t.hour())),
        (14..16, u32::from(t.minute())),
        (17..19, u32::from(t.second())),
        (20..26, micros),
    ] {
        let mut v = value;
        for d in out[range].iter_mut().rev() {
            *d = b'0' + u8::try_from(v % 10).unwrap_or(0);
            v /= 10;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn rfc3339_slow(t: &time::OffsetDateTime, micros: i64) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        micros
    )
}

/// `20261123T150102Z`: the UTC time, to the second, in file names (a replaced database,
/// a dated backup); names with it sort in time order.
pub fn compact_utc(ts: Timestamp) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(ts.div_euclid(SECOND))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// Parses an RFC 3339 time (any offset, optional fraction) into a timestamp.
pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
    let t = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()?;
    i64::try_from(t.unix_timestamp_nanos() / 1000).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_path_writes_what_format_writes() {
        // a spread of instants from 1970 to 9999, plus edges of days and years
        let mut ts: Vec<Timestamp> =
            vec![0, 1, 999_999, SECOND - 1, 253_402_300_799 * SECOND + 999_999];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ts.push(i64::try_from(x % 253_402_300_800_000_000).unwrap_or(0));
        }
        for t in ts {
            let dt = time::OffsetDateTime::from_unix_timestamp(t.div_euclid(SECOND))
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
            assert_eq!(rfc3339(t), rfc3339_slow(&dt, t.rem_euclid(SECOND)), "{t}");
        }
        // before 1970 (negative timestamps) too
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999999Z");
    }

    #[test]
    fn formats_with_microseconds_in_utc() {
        assert_eq!(rfc3339(1_795_342_530_123_456), "2026-11-22T10:15:30.123456Z");
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000Z");
    }

    #[test]
    fn compact_stamps_are_utc_to_the_second() {
        assert_eq!(compact_utc(1_795_446_062 * SECOND + 999_999), "20261123T150102Z");
        assert_eq!(compact_utc(0), "19700101T000000Z");
    }

    #[test]
    fn parses_what_it_formats_and_offsets() {
        assert_eq!(parse_rfc3339("2026-11-22T10:15:30.123456Z"), Some(1_795_342_530_123_456));
        assert_eq!(parse_rfc3339("2026-11-22T11:15:30+01:00"), Some(1_795_342_530_000_000));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn manual_clock_advances() {
        let c = Clock::manual(10 * SECOND);
        c.advance(5 * SECOND);
        assert_eq!(c.now_secs(), 15);
    }
}
