//! Polls on discussions and posts (SPEC §10 People; `SCPollType`): what a create body's
//! `poll` may hold, and the JSON the kit's `FeedObject` poll reads.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::clock::Timestamp;
use crate::model::field::FieldError;

/// The longest poll title and choice, in characters (the kit's composer allows 160).
pub const TEXT_MAX: usize = 160;
/// The fewest and most choices a poll has (the kit's composer asks for at least 2).
pub const CHOICES: std::ops::RangeInclusive<usize> = 2..=20;

/// A poll as a create body gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct PollInput {
    pub title: String,
    pub multiple_choices: bool,
    pub expiration_at: Option<Timestamp>,
    pub choices: Vec<String>,
}

/// A poll as stored and shown (choices in order, with the viewer's votes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PollJson {
    pub id: i64,
    pub title: String,
    pub multiple_choices: bool,
    pub added_at: String,
    pub modified_at: String,
    pub closed: bool,
    pub expiration_at: Option<String>,
    pub hidden: bool,
    pub choices: Vec<ChoiceJson>,
}

/// One choice (`SCPollChoiceType`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChoiceJson {
    pub id: i64,
    pub choice: String,
    pub order: i64,
    pub added_at: String,
    pub deleted: bool,
    pub vote_count: i64,
    pub voted: bool,
}

/// Parses a create body's `poll` (`{title, multiple_choices, expiration_at, choices:
/// [{choice}]}`); errors name `poll`.
/// Whether the poll closes by `expiration_at` is checked at the write, against the
/// clock.
pub fn parse(v: &Value) -> Result<PollInput, FieldError> {
    let bad = |m: &str| FieldError::new("poll", "invalid", m.to_owned());
    let o: &Map<String, Value> = v.as_object().ok_or_else(|| bad("A poll is an object."))?;
    let text = |s: Option<&Value>, what: &str| -> Result<String, FieldError> {
        let t = s.and_then(Value::as_str).map(str::trim).unwrap_or("");
        if t.is_empty() || t.chars().count() > TEXT_MAX {
            return Err(bad(&format!("A poll's {what} has 1 to {TEXT_MAX} characters.")));
        }
        Ok(t.to_owned())
    };
    let title = text(o.get("title"), "title")?;
    let multiple_choices = match o.get("multiple_choices") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("multiple_choices is true or false.")),
    };
    let expiration_at = match o.get("expiration_at") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(
            crate::clock::parse_rfc3339(s)
                .ok_or_else(|| bad("expiration_at is a date and time (RFC 3339)."))?,
        ),
        Some(_) => return Err(bad("expiration_at is a date and time (RFC 3339).")),
    };
    let items =
        o.get("choices").and_then(Value::as_array).ok_or_else(|| bad("A poll has choices."))?;
    if !CHOICES.contains(&items.len()) {
        return Err(bad(&format!("A poll has {} to {} choices.", CHOICES.start(), CHOICES.end())));
    }
    let choices =
        items.iter().map(|c| text(c.get("choice"), "choice")).collect::<Result<Vec<_>, _>>()?;
    Ok(PollInput { title, multiple_choices, expiration_at, choices })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_poll_needs_a_title_and_two_to_twenty_choices() {
        let ok = json!({"title": "Rye or wheat?", "multiple_choices": false, "choices": [{"choice": "rye"}, {"choice": "wheat"}]});
        assert_eq!(parse(&ok).map(|p| p.choices.len()), Ok(2));
        for bad in [
            json!({"title": "", "choices": [{"choice": "a"}, {"choice": "b"}]}),
            json!({"title": "q", "choices": [{"choice": "a"}]}),
            json!({"title": "q", "choices": [{"choice": "a"}, {"choice": ""}]}),
            json!({"title": "q", "choices": [{"choice": "a"}, {"choice": "b"}], "expiration_at": "yesterday"}),
            json!({"title": "x".repeat(161), "choices": [{"choice": "a"}, {"choice": "b"}]}),
            json!("a poll"),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
