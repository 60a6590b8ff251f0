//! Limit/offset pagination shared by every list (SPEC §3): defaults, clamping, 400s, and
//! the `{"count", "next", "previous", "results"}` envelope with absolute links that keep
//! every other query parameter.
//!
//! `offset` is capped at [`MAX_OFFSET`] (issue 27 item 4): SQLite's `OFFSET` reads and
//! discards every row it skips, so a page's cost grows with its offset (measured on
//! 200k discussions: 218 ms at offset 199,000, against well under 1 ms for the first
//! page), and an anonymous client looping on a deep page slowed every other request.
//! Past the cap a request is 400 (`max_value` on `offset`) before any query runs, and
//! `next` is null where the next page would start past it. Keyset pagination (a cursor
//! in `next`) would make every page cheap, but each list has its own ordering and
//! filters; the cap, in this one place, bounds every list now, and a list that needs
//! deeper pages gets a cursor of its own (search and filters narrow a list meanwhile).

use serde::Serialize;

use super::query::Query;
use crate::error::ApiError;

/// Default page size.
pub const DEFAULT_LIMIT: i64 = 20;
/// Largest page size.
pub const MAX_LIMIT: i64 = 100;
/// Largest `offset` (see the module's notes): a deeper page is 400.
pub const MAX_OFFSET: i64 = 10_000;

/// A requested page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Rows per page (clamped).
    pub limit: i64,
    /// Rows to skip.
    pub offset: i64,
}

crate::query_params! {
    /// A list's page (SPEC §3).
    pub struct Paging {
        /// Results per page: default 20, values above 100 are clamped to 100; 0, negative,
        /// empty or non-integer is 400. (A list that says so returns all its rows when
        /// `limit` is absent.)
        #[param(value_type = Option<i64>, minimum = 1)]
        limit: Option<String>,
        /// Index of the first result, at most 10000: above it (or negative, empty or
        /// non-integer) is 400 on offset (code max_value past the cap). Why a cap and not
        /// cursors: SQLite's OFFSET reads every row it skips, so a deep page costs what it
        /// skips (218 ms at offset 199000 of 200k discussions, against under 1 ms for the
        /// first page); the cap bounds every list in one place, and next is null where the
        /// next page would start past it. Filters and search narrow a list meanwhile.
        #[param(value_type = Option<i64>, minimum = 0, maximum = 10000)]
        offset: Option<String>,
    }
}

impl Page {
    /// Reads `limit`/`offset` with the usual defaults (20, max 100).
    pub fn from_query(q: &Query) -> Result<Page, ApiError> {
        Self::from_query_with(q, Some(DEFAULT_LIMIT), MAX_LIMIT)
    }

    /// Reads `limit`/`offset`; `default` is the limit when none is given (`None`: all
    /// rows, i.e. `i64::MAX`), `max` the clamp.
    pub fn from_query_with(q: &Query, default: Option<i64>, max: i64) -> Result<Page, ApiError> {
        let paging = Paging::read(q)?;
        let limit = match paging.limit.as_deref() {
            None => default.unwrap_or(i64::MAX),
            Some(v) => match parse_count(v) {
                Some(n) if n > 0 => n.min(max),
                _ => {
                    return Err(ApiError::field("limit", "invalid", "Must be a positive integer."));
                }
            },
        };
        let offset = match paging.offset.as_deref() {
            None => 0,
            Some(v) => match parse_count(v) {
                Some(n) if n <= MAX_OFFSET => n,
                Some(_) => {
                    return Err(ApiError::field(
                        "offset",
                        "max_value",
                        format!(
                            "Ensure this value is less than or equal to {MAX_OFFSET}: deeper pages are not served; narrow the list with its filters or search instead."
                        ),
                    ));
                }
                _ => {
                    return Err(ApiError::field(
                        "offset",
                        "invalid",
                        "Must be a non-negative integer.",
                    ));
                }
            },
        };
        Ok(Page { limit, offset })
    }
}

/// A non-negative decimal integer (an optional `+`, then digits). One too large for an
/// i64 is still an integer: it saturates, so a huge `limit` is clamped like any limit
/// above the maximum (and a huge `offset` is past [`MAX_OFFSET`]: a 400 `max_value`,
/// not `invalid`).
fn parse_count(v: &str) -> Option<i64> {
    let digits = v.strip_prefix('+').unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<i64>().unwrap_or(i64::MAX))
}

/// The list envelope.
#[derive(Debug, Serialize)]
pub struct Paginated<T> {
    /// Total matching rows.
    pub count: i64,
    /// Absolute URL of the next page, or null.
    pub next: Option<String>,
    /// Absolute URL of the previous page, or null.
    pub previous: Option<String>,
    /// This page.
    pub results: Vec<T>,
}

/// Builds the envelope. `base` is the absolute URL of the list without its query
/// (public URL + path).
pub fn envelope<T>(base: &str, q: &Query, page: Page, count: i64, results: Vec<T>) -> Paginated<T> {
    let link = |offset: Option<i64>| {
        let mut pairs = q.without(&["limit", "offset"]);
        if page.limit != i64::MAX {
            pairs.push(("limit".into(), page.limit.to_string()));
        }
        if let Some(o) = offset {
            pairs.push(("offset".into(), o.to_string()));
        }
        let qs = serde_urlencoded::to_string(&pairs).unwrap_or_default();
        if qs.is_empty() { base.to_owned() } else { format!("{base}?{qs}") }
    };
    // no link to a page past the cap: it would be a 400
    let following = page.offset.saturating_add(page.limit);
    let next = (page.limit != i64::MAX && following < count && following <= MAX_OFFSET)
        .then(|| link(Some(following)));
    let previous = if page.offset <= 0 {
        None
    } else if page.offset <= page.limit {
        // DRF drops `offset` for the first page
        Some(link(None))
    } else {
        Some(link(Some(page.offset - page.limit)))
    };
    Paginated { count, next, previous, results }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(qs: &str) -> Result<Page, ApiError> {
        Page::from_query(&Query::parse(qs))
    }

    #[test]
    fn defaults_and_clamping() {
        assert_eq!(page("").ok(), Some(Page { limit: 20, offset: 0 }));
        assert_eq!(page("limit=500&offset=3").ok(), Some(Page { limit: 100, offset: 3 }));
    }

    #[test]
    fn bad_values_are_400() {
        for qs in [
            "limit=0",
            "limit=-1",
            "limit=x",
            "limit=",
            "offset=-1",
            "offset=",
            "offset=1.5",
            "limit=-99999999999999999999",
            "limit=%205",
            "offset=+",
        ] {
            assert!(page(qs).is_err(), "{qs}");
        }
    }

    #[test]
    fn huge_integers_saturate() {
        assert_eq!(
            page("limit=99999999999999999999&offset=10").ok(),
            Some(Page { limit: 100, offset: 10 })
        );
    }

    #[test]
    fn offsets_past_the_cap_are_400_and_never_linked() {
        let at = format!("offset={MAX_OFFSET}");
        assert_eq!(page(&at).ok(), Some(Page { limit: 20, offset: MAX_OFFSET }));
        for qs in [format!("offset={}", MAX_OFFSET + 1), "offset=99999999999999999999".into()] {
            let e = page(&qs).err();
            let text = format!("{e:?}");
            assert!(matches!(e, Some(ApiError::Invalid(_))), "{qs}: {text}");
            assert!(text.contains("max_value") && text.contains("10000"), "{qs}: {text}");
        }
        // the page ending at the cap links no further, though more rows exist
        let q = Query::parse("limit=100&offset=9900");
        let p = Page::from_query(&q).unwrap_or(Page { limit: 0, offset: 0 });
        let e = envelope("http://h/x/", &q, p, 50_000, vec![1]);
        assert_eq!(e.next.as_deref(), Some("http://h/x/?limit=100&offset=10000"));
        let q = Query::parse("limit=100&offset=9901");
        let p = Page::from_query(&q).unwrap_or(Page { limit: 0, offset: 0 });
        assert_eq!(envelope("http://h/x/", &q, p, 50_000, vec![1]).next, None);
    }

    #[test]
    fn links_keep_other_parameters() {
        let q = Query::parse("search=a b&limit=2&offset=2");
        let p = Page::from_query(&q).unwrap_or(Page { limit: 0, offset: 0 });
        let e = envelope("http://h/api/v2/x/", &q, p, 5, vec![1, 2]);
        assert_eq!(e.next.as_deref(), Some("http://h/api/v2/x/?search=a+b&limit=2&offset=4"));
        assert_eq!(e.previous.as_deref(), Some("http://h/api/v2/x/?search=a+b&limit=2"));
        let e = envelope("http://h/x/", &q, Page { limit: 2, offset: 4 }, 5, vec![5]);
        assert_eq!(e.next, None);
        assert_eq!(e.previous.as_deref(), Some("http://h/x/?search=a+b&limit=2&offset=2"));
    }
}
