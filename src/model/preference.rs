//! Dynamic preferences: typed values (boolean, integer, string).

use serde_json::Value;

/// The type of a preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefKind {
    /// JSON true/false.
    Boolean,
    /// JSON integer.
    Integer,
    /// JSON string.
    String,
}

impl PrefKind {
    /// Parses the name used in `preferences.tsv` and the database.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "boolean" => Some(PrefKind::Boolean),
            "integer" => Some(PrefKind::Integer),
            "string" => Some(PrefKind::String),
            _ => None,
        }
    }

    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            PrefKind::Boolean => "boolean",
            PrefKind::Integer => "integer",
            PrefKind::String => "string",
        }
    }

    /// Checks a JSON value against this type (the API's PATCH): a boolean preference
    /// takes a JSON boolean only, never text (see [`super::boolean`]).
    pub fn check_json(self, v: &Value) -> Result<Value, String> {
        match (self, v) {
            (PrefKind::Boolean, Value::Bool(_)) => Ok(v.clone()),
            (PrefKind::Integer, Value::Number(n)) if n.is_i64() => Ok(v.clone()),
            (PrefKind::String, Value::String(_)) => Ok(v.clone()),
            _ => Err(format!("expected a {} value", self.as_str())),
        }
    }

    /// Parses a command-line or TSV text into a value of this type.
    pub fn parse_text(self, s: &str) -> Result<Value, String> {
        match self {
            PrefKind::Boolean => super::boolean::parse_arg(s).map(Value::Bool),
            PrefKind::Integer => {
                s.parse::<i64>().map(Value::from).map_err(|_| format!("{s:?} is not an integer"))
            }
            PrefKind::String => Ok(Value::String(s.to_owned())),
        }
    }
}

/// One preference row.
#[derive(Debug, Clone, PartialEq)]
pub struct Pref {
    /// Row id.
    pub id: i64,
    /// Section, e.g. `configurations`.
    pub section: String,
    /// Name within the section.
    pub name: String,
    /// Its type.
    pub kind: PrefKind,
    /// Its value, of `kind`.
    pub value: Value,
}

/// Dynamic Preference JSON: `{"id", "section", "name", "value"}`, `value` typed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
#[schema(as = DynamicPreference)]
pub struct PrefJson {
    pub id: i64,
    pub section: String,
    pub name: String,
    /// Carries the preference's own JSON type.
    pub value: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_parsing() {
        assert_eq!(PrefKind::Boolean.parse_text("FALSE"), Ok(json!(false)));
        assert!(PrefKind::Boolean.parse_text("yes").is_err());
        assert_eq!(PrefKind::Integer.parse_text("-3"), Ok(json!(-3)));
        assert!(PrefKind::Integer.parse_text("3.5").is_err());
        assert_eq!(PrefKind::String.parse_text("false"), Ok(json!("false")));
    }

    #[test]
    fn json_checks() {
        assert!(PrefKind::Boolean.check_json(&json!("false")).is_err());
        assert!(PrefKind::Integer.check_json(&json!(1.5)).is_err());
        assert!(PrefKind::String.check_json(&json!(1)).is_err());
        assert!(PrefKind::Integer.check_json(&json!(2)).is_ok());
    }
}
