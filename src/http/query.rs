//! Query strings: parsed once, with typed getters that answer SPEC §3's 400s.

use crate::error::ApiError;

/// A parsed query string (later duplicates win, like DRF's `query_params.get`).
#[derive(Debug, Clone, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// Parses `a=1&b=2` (percent-decoding, `+` as space).
    pub fn parse(raw: &str) -> Self {
        Query(serde_urlencoded::from_str::<Vec<(String, String)>>(raw).unwrap_or_default())
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

#[cfg(test)]
mod tests {
    use super::*;

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
