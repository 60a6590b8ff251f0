//! Polls in the import format (SPEC §2): a discussion's or post's `poll`, and the
//! `poll_vote` record. A migrated community keeps its polls, their choices' ids (which
//! its votes name) and who voted what.

use serde::Deserialize;
use serde_json::Value;

use super::poll::PollInput;
use crate::clock::Timestamp;

/// A discussion's or post's `poll` in an import line: the API's create body
/// (`model::poll::parse`: title, `multiple_choices`, `expiration_at`, 2 to 20 choices),
/// plus `closed` and, for each choice, an optional `id` that `poll_vote` lines name. An
/// `expiration_at` in the past is history, not an error.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedPoll {
    pub poll: PollInput,
    pub closed: bool,
    /// Each choice's id, in order (`None`: the database picks one).
    pub ids: Vec<Option<i64>>,
}

impl ImportedPoll {
    /// Reads a line's `poll`; the error says what is wrong with it.
    pub fn parse(v: &Value) -> Result<ImportedPoll, String> {
        let poll = super::poll::parse(v).map_err(|e| {
            let said: Vec<&str> = e.messages.iter().map(|m| m.message.as_str()).collect();
            format!("poll: {}", said.join(" "))
        })?;
        let closed = match v.get("closed") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err("poll: closed is true or false".into()),
        };
        let mut ids = Vec::with_capacity(poll.choices.len());
        for c in v.get("choices").and_then(Value::as_array).into_iter().flatten() {
            let id = match c.get("id") {
                None | Some(Value::Null) => None,
                Some(n) => match n.as_i64() {
                    Some(id) if id >= 1 => Some(id),
                    _ => return Err(format!("poll: choice id {n} is not a positive integer")),
                },
            };
            if id.is_some() && ids.contains(&id) {
                return Err(format!("poll: choice id {} is given twice", id.unwrap_or_default()));
            }
            ids.push(id);
        }
        Ok(ImportedPoll { poll, closed, ids })
    }
}

/// `{"record":"poll_vote","user":3,"choice":12}`: a member's vote for a poll's choice
/// (a choice id of an earlier item line's poll), optional `voted_at`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollVoteLine {
    pub user: i64,
    pub choice: i64,
    #[serde(default, deserialize_with = "super::import::time")]
    pub voted_at: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_poll_is_the_api_body_with_closed_and_choice_ids() {
        let v = json!({"title": "Rye?", "closed": true, "expiration_at": "2001-01-01T00:00:00Z",
                       "choices": [{"id": 7, "choice": "yes"}, {"choice": "no"}]});
        let p = ImportedPoll::parse(&v).unwrap();
        assert_eq!((p.closed, p.ids, p.poll.choices.len()), (true, vec![Some(7), None], 2));
        for bad in [
            json!({"title": "q", "choices": [{"choice": "a"}]}),
            json!({"title": "q", "closed": "no", "choices": [{"choice": "a"}, {"choice": "b"}]}),
            json!({"title": "q", "choices": [{"id": 0, "choice": "a"}, {"choice": "b"}]}),
            json!({"title": "q", "choices": [{"id": 3, "choice": "a"}, {"id": 3, "choice": "b"}]}),
        ] {
            assert!(ImportedPoll::parse(&bad).is_err(), "{bad}");
        }
    }
}
