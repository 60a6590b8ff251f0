//! Lists of ids in request bodies (SPEC §3: `categories`, `users`, `managers`, `joined`,
//! `unjoined`, `sections_order`): at most [`MAX_ITEMS`] items, each a JSON integer or a
//! numeric string. Every function here is one pass over the list, and none needs the
//! database, so handlers run them before their write transaction.

use std::collections::HashSet;

use serde_json::Value;

use super::field::FieldError;

/// Most items in a list in a body (SPEC §6).
pub const MAX_ITEMS: usize = 1000;

/// Why a list was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListError {
    /// More than [`MAX_ITEMS`] items.
    TooMany,
    /// An item that is not an integer id.
    NotAnId,
}

impl ListError {
    /// The error on `field`: `max_length` in DRF's words, or `invalid` with
    /// `not_an_id`, which says what the items must be.
    pub fn on(self, field: &str, not_an_id: &str) -> FieldError {
        match self {
            ListError::TooMany => too_many(field),
            ListError::NotAnId => FieldError::new(field, "invalid", not_an_id),
        }
    }
}

/// The schema of an id in a body as [`id_value`] reads it: a JSON integer or a numeric
/// string (a field's type for its documentation only: the parsers read `Value`s).
pub struct NumericId;

impl utoipa::PartialSchema for NumericId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Integer))
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some(r"^\s*-?[0-9]+\s*$")))
            .description(Some("An integer id, or a numeric string"))
            .into()
    }
}

impl utoipa::ToSchema for NumericId {}

/// An id given as a JSON integer or a numeric string.
pub fn id_value(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The ids of a JSON array; its length is checked before any item is read.
pub fn from_values(items: &[Value]) -> Result<Vec<i64>, ListError> {
    if items.len() > MAX_ITEMS {
        return Err(ListError::TooMany);
    }
    items.iter().map(|v| id_value(v).ok_or(ListError::NotAnId)).collect()
}

/// The ids of comma-separated text (`"1, 2,3"`); the number of parts is checked first.
pub fn from_text(s: &str) -> Result<Vec<i64>, ListError> {
    if s.split(',').count() > MAX_ITEMS {
        return Err(ListError::TooMany);
    }
    s.split(',').map(|p| p.trim().parse().map_err(|_| ListError::NotAnId)).collect()
}

/// The ids without repeats, each where it first appeared.
pub fn dedup(mut ids: Vec<i64>) -> Vec<i64> {
    let mut seen = HashSet::with_capacity(ids.len());
    ids.retain(|id| seen.insert(*id));
    ids
}

/// The first id that appears twice, if any.
pub fn first_repeat(ids: &[i64]) -> Option<i64> {
    let mut seen = HashSet::with_capacity(ids.len());
    ids.iter().copied().find(|id| !seen.insert(*id))
}

/// `items` in the order `order` gives their ids (`id` reads one's); the items it does
/// not name go last, in the order they came. One pass over each (a map of positions).
pub fn in_given_order<T>(mut items: Vec<T>, id: impl Fn(&T) -> i64, order: &[i64]) -> Vec<T> {
    let rank: std::collections::HashMap<i64, usize> =
        order.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    items.sort_by_key(|t| rank.get(&id(t)).copied().unwrap_or(usize::MAX));
    items
}

/// The error on a list field with more than [`MAX_ITEMS`] items, in DRF's words.
pub fn too_many(field: impl Into<String>) -> FieldError {
    FieldError::new(
        field,
        "max_length",
        format!("Ensure this field has no more than {MAX_ITEMS} elements."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_and_text() {
        assert_eq!(from_values(&[json!(1), json!(" 2 ")]), Ok(vec![1, 2]));
        assert_eq!(from_values(&[json!(1.5)]), Err(ListError::NotAnId));
        assert_eq!(from_values(&[json!(null)]), Err(ListError::NotAnId));
        assert_eq!(from_text("3, 4,5"), Ok(vec![3, 4, 5]));
        assert_eq!(from_text("3,,5"), Err(ListError::NotAnId));
    }

    #[test]
    fn at_most_max_items() {
        let ok = vec![json!(1); MAX_ITEMS];
        assert_eq!(from_values(&ok).map(|v| v.len()), Ok(MAX_ITEMS));
        // the length is refused before the items are looked at
        let over = vec![json!("x"); MAX_ITEMS + 1];
        assert_eq!(from_values(&over), Err(ListError::TooMany));
        let text = vec!["1"; MAX_ITEMS + 1].join(",");
        assert_eq!(from_text(&text), Err(ListError::TooMany));
        assert_eq!(too_many("users").messages[0].code, "max_length");
    }

    #[test]
    fn repeats() {
        assert_eq!(dedup(vec![3, 1, 3, 2, 1]), vec![3, 1, 2]);
        assert_eq!(first_repeat(&[3, 1, 2, 1, 3]), Some(1));
        assert_eq!(first_repeat(&[3, 1, 2]), None);
    }

    #[test]
    fn items_follow_the_given_order_and_the_unnamed_go_last_as_they_came() {
        let items = vec![5, 1, 9, 3, 7];
        assert_eq!(super::in_given_order(items, |i| *i, &[3, 5, 42]), [3, 5, 1, 9, 7]);
    }
}
