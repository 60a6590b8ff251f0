//! Per-user settings the UI kit keeps (SPEC §8; the SDK's `SCUserSettingsType`).
//! hearth sends no notifications yet: the values are stored for the front-end (its
//! settings page shows and edits them) and for later.

use serde_json::{Map, Value};

use super::field::FieldError;

/// One setting: its name, its default, and the values it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The JSON key.
    pub name: &'static str,
    /// The value of a user who never changed it.
    pub default: i64,
    /// Every accepted value, with what it means (the kit's settings page offers these).
    pub choices: &'static [(i64, &'static str)],
}

const ON_OFF: &[(i64, &str)] = &[(0, "off"), (1, "on")];

/// Every setting, in the order of the JSON object.
pub const SETTINGS: [Setting; 5] = [
    // email notifications of interactions: -1 at once, 1 a daily digest, 0 never
    Setting {
        name: "qa_frequency",
        default: 1,
        choices: &[(-1, "immediately"), (0, "never"), (1, "daily")],
    },
    // private messages also by email
    Setting { name: "email_notification_not_qa", default: 1, choices: ON_OFF },
    // mobile app / PWA notifications
    Setting { name: "mobile_notifications_scmty", default: 1, choices: ON_OFF },
    // a toast when a notification arrives
    Setting { name: "show_toast_notifications", default: 1, choices: ON_OFF },
    // a sound with the toast
    Setting { name: "toast_notifications_emit_sound", default: 1, choices: ON_OFF },
];

/// The JSON object of a user's settings: every setting, its stored value or default.
pub fn to_json(stored: &[(String, i64)]) -> Map<String, Value> {
    SETTINGS
        .iter()
        .map(|s| {
            let v = stored.iter().find(|(n, _)| n == s.name).map_or(s.default, |(_, v)| *v);
            (s.name.to_owned(), Value::from(v))
        })
        .collect()
}

/// Checks a PATCH body: every key a setting, every value an integer it accepts. All
/// errors at once; on success the `(name, value)` pairs to store.
pub fn validate(body: &Map<String, Value>) -> Result<Vec<(&'static str, i64)>, Vec<FieldError>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (key, value) in body {
        let Some(s) = SETTINGS.iter().find(|s| s.name == key) else {
            errors.push(FieldError::new(
                key.clone(),
                "invalid",
                format!(
                    "Unknown setting; the settings are {}.",
                    SETTINGS.map(|s| s.name).join(", ")
                ),
            ));
            continue;
        };
        let Some(v) = value.as_i64() else {
            errors.push(FieldError::new(key.clone(), "invalid", "A valid integer is required."));
            continue;
        };
        if !s.choices.iter().any(|(c, _)| *c == v) {
            let allowed: Vec<String> = s.choices.iter().map(|(c, _)| c.to_string()).collect();
            errors.push(FieldError::new(
                key.clone(),
                "invalid_choice",
                format!("\"{v}\" is not a valid choice ({}).", allowed.join(", ")),
            ));
            continue;
        }
        out.push((s.name, v));
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(body: Value) -> Vec<String> {
        let map = body.as_object().cloned().unwrap_or_default();
        match validate(&map) {
            Ok(_) => Vec::new(),
            Err(e) => {
                e.into_iter().map(|e| format!("{}:{}", e.field, e.messages[0].code)).collect()
            }
        }
    }

    #[test]
    fn defaults_fill_what_is_not_stored() {
        let j = to_json(&[("qa_frequency".into(), -1)]);
        assert_eq!(
            Value::Object(j),
            json!({"qa_frequency": -1, "email_notification_not_qa": 1,
                   "mobile_notifications_scmty": 1, "show_toast_notifications": 1,
                   "toast_notifications_emit_sound": 1})
        );
        for s in SETTINGS {
            assert!(s.choices.iter().any(|(c, _)| *c == s.default), "{}", s.name);
        }
    }

    #[test]
    fn each_key_and_value_is_checked() {
        assert!(codes(json!({})).is_empty());
        assert!(codes(json!({"qa_frequency": -1, "show_toast_notifications": 0})).is_empty());
        assert_eq!(codes(json!({"nope": 1})), ["nope:invalid"]);
        assert_eq!(codes(json!({"qa_frequency": "1"})), ["qa_frequency:invalid"]);
        assert_eq!(codes(json!({"qa_frequency": 1.5})), ["qa_frequency:invalid"]);
        assert_eq!(codes(json!({"qa_frequency": true})), ["qa_frequency:invalid"]);
        assert_eq!(codes(json!({"qa_frequency": null})), ["qa_frequency:invalid"]);
        assert_eq!(codes(json!({"qa_frequency": 7})), ["qa_frequency:invalid_choice"]);
        assert_eq!(
            codes(json!({"show_toast_notifications": -1, "x": 0})),
            ["show_toast_notifications:invalid_choice", "x:invalid"]
        );
        let map = json!({"toast_notifications_emit_sound": 0});
        assert_eq!(
            validate(map.as_object().unwrap_or(&Map::new())).ok(),
            Some(vec![("toast_notifications_emit_sound", 0)])
        );
    }
}
