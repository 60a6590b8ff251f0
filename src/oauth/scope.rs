//! Scopes: a subset of `read write`, always written in that order.

/// What a `scope` that [`Scope::parse`] refuses is told (RFC 6749 §3.3).
pub const NOT_A_SUBSET: &str = "scope must be a subset of \"read write\".";

/// A set of scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// `read`.
    pub read: bool,
    /// `write`.
    pub write: bool,
}

impl Scope {
    /// `read write`.
    pub const ALL: Scope = Scope { read: true, write: true };

    /// Parses a `scope` parameter (space-separated, RFC 6749 §3.3); absent or empty
    /// means `default`. `None` for an unknown scope name.
    pub fn parse(s: Option<&str>, default: Scope) -> Option<Scope> {
        let Some(s) = s.filter(|s| !s.trim().is_empty()) else {
            return Some(default);
        };
        let mut out = Scope { read: false, write: false };
        for name in s.split(' ').filter(|n| !n.is_empty()) {
            match name {
                "read" => out.read = true,
                "write" => out.write = true,
                _ => return None,
            }
        }
        Some(out)
    }

    /// Whether every scope of `self` is in `other`.
    pub fn within(self, other: Scope) -> bool {
        (!self.read || other.read) && (!self.write || other.write)
    }

    /// `read write`, `read` or `write`.
    pub fn as_str(self) -> &'static str {
        match (self.read, self.write) {
            (true, true) => "read write",
            (true, false) => "read",
            (false, true) => "write",
            (false, false) => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_order() {
        assert_eq!(Scope::parse(None, Scope::ALL), Some(Scope::ALL));
        assert_eq!(Scope::parse(Some(""), Scope::ALL), Some(Scope::ALL));
        assert_eq!(
            Scope::parse(Some("write read"), Scope::ALL).map(Scope::as_str),
            Some("read write")
        );
        assert_eq!(Scope::parse(Some("read"), Scope::ALL).map(Scope::as_str), Some("read"));
        assert_eq!(Scope::parse(Some("read admin"), Scope::ALL), None);
        let read = Scope { read: true, write: false };
        assert!(read.within(Scope::ALL));
        assert!(!Scope::ALL.within(read));
    }
}
