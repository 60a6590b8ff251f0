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
    /// What it is (the OpenAPI description).
    pub about: &'static str,
}

const ON_OFF: &[(i64, &str)] = &[(0, "off"), (1, "on")];

/// Every setting, in the order of the JSON object.
pub const SETTINGS: [Setting; 5] = [
    Setting {
        name: "qa_frequency",
        default: 1,
        choices: &[(-1, "immediately"), (0, "never"), (1, "daily")],
        about: "Email notifications of interactions: -1 at once, 1 a daily digest, 0 never.",
    },
    Setting {
        name: "email_notification_not_qa",
        default: 1,
        choices: ON_OFF,
        about: "Private messages also by email: 1 on, 0 off.",
    },
    Setting {
        name: "mobile_notifications_scmty",
        default: 1,
        choices: ON_OFF,
        about: "Mobile app / PWA notifications: 1 on, 0 off.",
    },
    Setting {
        name: "show_toast_notifications",
        default: 1,
        choices: ON_OFF,
        about: "A toast when a notification arrives: 1 on, 0 off.",
    },
    Setting {
        name: "toast_notifications_emit_sound",
        default: 1,
        choices: ON_OFF,
        about: "A sound with the toast: 1 on, 0 off.",
    },
];

/// The settings object's schema, from [`SETTINGS`]: every setting's choices, default
/// and description; `whole`: every key present (the answer), else any subset and no
/// other key (a PATCH body, what [`validate`] takes).
fn schema(whole: bool) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    let mut o = ObjectBuilder::new().schema_type(Type::Object);
    for s in SETTINGS {
        let choices = s.choices.iter().map(|(c, _)| *c);
        let property = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .enum_values(Some(choices))
            .default(Some(s.default.into()))
            .description(Some(format!("{} Default {}.", s.about, s.default)));
        o = o.property(s.name, property);
        if whole {
            o = o.required(s.name);
        }
    }
    let o = if whole {
        o.description(Some(
            "A member's settings (the SDK's SCUserSettingsType), each its stored value or its default.",
        ))
    } else {
        o.description(Some("Any subset of the settings; another key is 400 on that key."))
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
    };
    o.into()
}

/// The schema of a member's settings (`UserSettings`), from [`SETTINGS`].
pub struct SettingsJson;

impl utoipa::PartialSchema for SettingsJson {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        schema(true)
    }
}

impl utoipa::ToSchema for SettingsJson {
    fn name() -> std::borrow::Cow<'static, str> {
        "UserSettings".into()
    }
}

/// The schema of a PATCH body (`UserSettingsPatch`): what [`validate`] reads.
pub struct SettingsPatch;

impl utoipa::PartialSchema for SettingsPatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        schema(false)
    }
}

impl utoipa::ToSchema for SettingsPatch {
    fn name() -> std::borrow::Cow<'static, str> {
        "UserSettingsPatch".into()
    }
}

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

    /// Every documented setting is one `validate` reads, and the answer lists them all.
    #[test]
    fn the_documented_settings_are_the_table() {
        let unread = crate::model::field::unread_properties::<SettingsPatch>(|m| {
            validate(m).err().unwrap_or_default()
        });
        assert!(unread.is_empty(), "{unread:?}");
        let whole = serde_json::to_value(<SettingsJson as utoipa::PartialSchema>::schema());
        let whole = whole.unwrap_or_default();
        assert_eq!(whole["required"].as_array().map(Vec::len), Some(SETTINGS.len()));
        assert_eq!(whole["properties"]["qa_frequency"]["enum"], json!([-1, 0, 1]));
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
