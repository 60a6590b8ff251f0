//! Booleans written as text. One grammar wherever a person or a URL writes one: SPEC
//! §3's `true/false/1/0`, in any case. Query parameters, `pref set` and the preference
//! table, and the CLI's `true|false` options all use [`parse`].
//!
//! Two places differ on purpose, because what they read is not this text:
//! - JSON bodies take JSON booleans (a preference's `value` must be `true`/`false`, not
//!   `"true"`): JSON has its own booleans, and the SDK sends them.
//! - Course fields ([`parse_field`]) follow DRF's `BooleanField`, which the platform's
//!   course form was written against: multipart fields are text, and DRF takes
//!   `on/off/yes/no` there too (an HTML checkbox posts `on`).

/// SPEC §3: `true/false/1/0`, any case; anything else is `None`.
pub fn parse(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("true") || s == "1" {
        Some(true)
    } else if s.eq_ignore_ascii_case("false") || s == "0" {
        Some(false)
    } else {
        None
    }
}

/// [`parse`] as a clap value parser: the one-line error names the grammar.
pub fn parse_arg(s: &str) -> Result<bool, String> {
    parse(s).ok_or_else(|| format!("{s:?} is not a boolean (true/false)"))
}

/// A course field as text (DRF `BooleanField`): [`parse`], and `on/off/yes/no` in any
/// case.
pub fn parse_field(s: &str) -> Option<bool> {
    parse(s).or_else(|| {
        if s.eq_ignore_ascii_case("on") || s.eq_ignore_ascii_case("yes") {
            Some(true)
        } else if s.eq_ignore_ascii_case("off") || s.eq_ignore_ascii_case("no") {
            Some(false)
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_grammar_and_course_fields() {
        // text, parse, parse_field
        for (s, spec, field) in [
            ("true", Some(true), Some(true)),
            ("TRUE", Some(true), Some(true)),
            ("1", Some(true), Some(true)),
            ("FaLsE", Some(false), Some(false)),
            ("0", Some(false), Some(false)),
            ("on", None, Some(true)),
            ("YES", None, Some(true)),
            ("Off", None, Some(false)),
            ("no", None, Some(false)),
            ("y", None, None),
            ("", None, None),
            (" true", None, None),
            ("01", None, None),
        ] {
            assert_eq!(parse(s), spec, "{s:?}");
            assert_eq!(parse_field(s), field, "{s:?}");
        }
        assert!(parse_arg("maybe").is_err_and(|e| e.contains("maybe")));
    }
}
