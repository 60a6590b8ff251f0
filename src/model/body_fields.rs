//! Reading a request body's fields one by one (a JSON object, or multipart text fields
//! turned into one): each field's type checked, DRF's messages for the ones that are
//! not, every problem kept so that all are reported at once.

use serde_json::{Map, Value};

use super::field::FieldError;
use super::ids::{self, ListError};

/// A body being read: its fields and the problems found so far (in the order found).
/// A course's bodies ([`super::course_input`]) and its lessons' ([`super::course_lesson`])
/// read through it.
pub(super) struct Fields<'a> {
    map: &'a Map<String, Value>,
    pub(super) errors: Vec<FieldError>,
}

impl<'a> Fields<'a> {
    /// A body to read, no problem found yet.
    pub(super) fn new(map: &'a Map<String, Value>) -> Self {
        Fields { map, errors: Vec::new() }
    }

    /// Reads `field` when the body has it: `null` is DRF's `null` error, any other
    /// value goes to `read`; an error is recorded and the field left out.
    pub(super) fn read<T>(
        &mut self,
        field: &'static str,
        read: impl FnOnce(&Value) -> Result<T, FieldError>,
    ) -> Option<T> {
        let got = match self.map.get(field)? {
            Value::Null => Err(FieldError::new(field, "null", "This field may not be null.")),
            v => read(v),
        };
        got.map_err(|err| self.errors.push(err)).ok()
    }

    pub(super) fn text(&mut self, field: &'static str) -> Option<String> {
        self.read(field, |v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| FieldError::new(field, "invalid", "Not a valid string."))
        })
    }

    pub(super) fn boolean(&mut self, field: &'static str) -> Option<bool> {
        self.read(field, |v| {
            match v {
                Value::Bool(b) => Some(*b),
                // multipart fields are text: DRF's BooleanField grammar (see model::boolean)
                Value::String(s) => super::boolean::parse_field(s),
                Value::Number(n) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => {
                    Some(n.as_i64() == Some(1))
                }
                _ => None,
            }
            .ok_or_else(|| FieldError::new(field, "invalid", "Must be a valid boolean."))
        })
    }

    /// A list of ids: integers or numeric strings; a JSON-encoded array in a string (how
    /// multipart clients send `sections_order`); a comma-separated string. At most
    /// [`ids::MAX_ITEMS`] (else `max_length`), read in one pass.
    pub(super) fn id_list(&mut self, field: &'static str) -> Option<Vec<i64>> {
        self.read(field, |v| {
            match v {
                Value::Array(items) => ids::from_values(items),
                Value::String(s) if s.trim().starts_with('[') => {
                    match serde_json::from_str::<Value>(s) {
                        Ok(Value::Array(items)) => ids::from_values(&items),
                        _ => Err(ListError::NotAnId),
                    }
                }
                Value::String(s) if s.trim().is_empty() => Ok(Vec::new()),
                Value::String(s) => ids::from_text(s),
                Value::Number(n) => n.as_i64().map(|i| vec![i]).ok_or(ListError::NotAnId),
                _ => Err(ListError::NotAnId),
            }
            .map_err(|e| e.on(field, "Must be a list of integer ids."))
        })
    }
}
