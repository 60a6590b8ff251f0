//! Query strings (and form bodies, which share the encoding): parsed once, with typed
//! getters that answer SPEC §3's 400s. Every pass over the parameters is linear: a
//! client that sends thousands of them is refused on a count taken before anything is
//! decoded ([`Query::parse_at_most`]), and what is accepted is never compared pairwise.

use std::collections::HashSet;

use crate::error::ApiError;

/// A parsed query string (later duplicates win, like DRF's `query_params.get`).
#[derive(Debug, Clone, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// Parses `a=1&b=2` (percent-decoding, `+` as space). Unbounded: only for text
    /// hearth wrote itself and tests; what a client sends goes through
    /// [`Query::parse_at_most`].
    pub fn parse(raw: &str) -> Self {
        Query(serde_urlencoded::from_str::<Vec<(String, String)>>(raw).unwrap_or_default())
    }

    /// Parses as [`Query::parse`], with at most `max` parameters: more is
    /// [`ApiError::TooManyParameters`], decided by one scan for `&` before anything is
    /// decoded or allocated (empty segments are no parameter, as for the decoder).
    pub fn parse_at_most(raw: &str, max: usize) -> Result<Self, ApiError> {
        check_count(raw, max)?;
        Ok(Self::parse(raw))
    }

    /// The first parameter name that appears more than once (RFC 6749 §3.1, §3.2), in
    /// one pass with a set.
    pub fn repeated(&self) -> Option<&str> {
        let mut seen = HashSet::with_capacity(self.0.len());
        self.0.iter().map(|(k, _)| k.as_str()).find(|k| !seen.insert(*k))
    }

    /// The first of `names` that appears more than once, in one pass over the pairs.
    pub fn repeated_among<'a>(&self, names: &[&'a str]) -> Option<&'a str> {
        let mut seen = HashSet::with_capacity(names.len());
        self.0.iter().find_map(|(k, _)| {
            let name = names.iter().find(|n| **n == k.as_str())?;
            (!seen.insert(*name)).then_some(*name)
        })
    }

    /// The pairs in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// The last value of a parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A non-empty text parameter.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|v| !v.is_empty())
    }

    /// A boolean parameter: `true/false/1/0` in any case ([`crate::model::boolean`]);
    /// anything else is 400.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => crate::model::boolean::parse(v).map(Some).ok_or_else(|| {
                ApiError::field(name, "invalid", "Must be a valid boolean (true, false, 1 or 0).")
            }),
        }
    }

    /// A list of integer ids: comma-separated, the parameter repeated, or written
    /// `name[]=1&name[]=2` (how axios, the platform SDK's HTTP client, encodes a list).
    /// Empty parts are skipped and no id at all is `None`, like an absent parameter
    /// (`categories=` filters nothing); anything else is 400 on `name`.
    pub fn ids(&self, name: &str) -> Result<Option<Vec<i64>>, ApiError> {
        let bracketed = format!("{name}[]");
        let mut out = Vec::new();
        for (_, v) in self.0.iter().filter(|(k, _)| *k == name || *k == bracketed) {
            for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                out.push(part.parse().map_err(|_| {
                    ApiError::field(
                        name,
                        "invalid",
                        "Must be a comma-separated list of integer ids.",
                    )
                })?);
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }

    /// The query string without `names` (for pagination links), re-encoded.
    pub fn without(&self, names: &[&str]) -> Vec<(String, String)> {
        self.0.iter().filter(|(k, _)| !names.contains(&k.as_str())).cloned().collect()
    }
}

/// 400 ([`ApiError::TooManyParameters`]) when `raw` has more than `max` parameters.
pub fn check_count(raw: &str, max: usize) -> Result<(), ApiError> {
    if raw.split('&').filter(|s| !s.is_empty()).nth(max).is_some() {
        return Err(ApiError::TooManyParameters(max));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_before_decoding() {
        let raw = (0..257).map(|i| format!("p{i}=1")).collect::<Vec<_>>().join("&");
        assert!(matches!(Query::parse_at_most(&raw, 256), Err(ApiError::TooManyParameters(256))));
        assert!(Query::parse_at_most(&raw, 257).is_ok());
        // empty segments are not parameters
        assert!(Query::parse_at_most("a=1&&&&b=2&", 2).is_ok());
        assert!(Query::parse_at_most("", 0).is_ok());
    }

    #[test]
    fn repeats_found_in_one_pass() {
        let q = Query::parse("a=1&b=2&c=3&b=4");
        assert_eq!(q.repeated(), Some("b"));
        assert_eq!(Query::parse("a=1&b=2").repeated(), None);
        assert_eq!(q.repeated_among(&["a", "c"]), None);
        assert_eq!(q.repeated_among(&["c", "b"]), Some("b"));
    }

    /// Linear, not quadratic: 8,000 distinct parameters (the attack's form) take a
    /// single pass. A pairwise check takes 64M comparisons here, far past the bound.
    #[test]
    fn eight_thousand_distinct_parameters_are_cheap() {
        let raw = (0..8000).map(|i| format!("p{i}=1")).collect::<Vec<_>>().join("&");
        let start = crate::clock::instant();
        let q = Query::parse(&raw);
        assert_eq!(q.repeated(), None);
        assert!(start.elapsed() < std::time::Duration::from_millis(200), "{:?}", start.elapsed());
    }

    #[test]
    fn booleans() {
        let q = Query::parse("a=TRUE&b=0&c=yes&d=");
        assert_eq!(q.bool("a").ok(), Some(Some(true)));
        assert_eq!(q.bool("b").ok(), Some(Some(false)));
        assert!(q.bool("c").is_err());
        assert!(q.bool("d").is_err());
        assert_eq!(q.bool("missing").ok(), Some(None));
    }

    #[test]
    fn decoding_and_last_wins() {
        let q = Query::parse("search=a+b%2Cc&x=1&x=2");
        assert_eq!(q.get("search"), Some("a b,c"));
        assert_eq!(q.get("x"), Some("2"));
    }

    #[test]
    fn id_lists() {
        let q = Query::parse("c=1,2,%203&d=1,x&e[]=4&e=5,&e[]=6&f=&f=,");
        assert_eq!(q.ids("c").ok(), Some(Some(vec![1, 2, 3])));
        assert!(q.ids("d").is_err());
        assert_eq!(q.ids("e").ok(), Some(Some(vec![4, 5, 6])));
        assert_eq!(q.ids("f").ok(), Some(None), "empty: no filter");
        assert_eq!(q.ids("g").ok(), Some(None));
    }
}
