//! A member's own profile edit (`PATCH`/`PUT /api/v2/user/{id}/`, SPEC §10 People, the
//! kit's settings page): the fields a member may change, each checked on its own, all
//! errors reported at once. Text fields are plain text (the kit shows them as text);
//! `website` is a link by [`super::link`]'s rule.

use serde_json::{Map, Value};

use super::field::FieldError;

/// Longest `real_name`, `location`, `company_name`, `company_role`, in characters.
pub const SHORT_MAX: usize = 255;
/// Longest `bio` and `description`, in characters.
pub const LONG_MAX: usize = 5000;

/// The changes of one edit: each field present is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileEdit {
    pub real_name: Option<String>,
    pub bio: Option<String>,
    pub description: Option<String>,
    pub location: Option<String>,
    pub website: Option<String>,
    pub gender: Option<String>,
    /// `Some(None)`: cleared.
    pub date_of_birth: Option<Option<String>>,
    pub company_name: Option<String>,
    pub company_role: Option<String>,
}

/// Fields of User JSON a member cannot change here: ignored, as Django REST framework
/// ignores read-only fields (clients send back the object they read). The username
/// and e-mail change through their own routes (SPEC §10 People).
const READ_ONLY: [&str; 6] = ["id", "username", "email", "date_joined", "avatar", "cover"];

/// Checks an edit body; every field error at once.
pub fn parse(body: &Map<String, Value>) -> Result<ProfileEdit, Vec<FieldError>> {
    let mut e = ProfileEdit::default();
    let mut errors = Vec::new();
    for (key, value) in body {
        let text = |max: usize, errors: &mut Vec<FieldError>| -> Option<String> {
            match value {
                Value::String(s) if s.chars().count() > max => {
                    errors.push(FieldError::new(
                        key,
                        "max_length",
                        format!("Ensure this field has no more than {max} characters."),
                    ));
                    None
                }
                Value::String(s)
                    if s.chars().any(|c| c.is_control() && c != '\n' && c != '\r' && c != '\t') =>
                {
                    errors.push(FieldError::new(
                        key,
                        "invalid",
                        "Control characters are not allowed.",
                    ));
                    None
                }
                Value::String(s) => Some(s.clone()),
                Value::Null => Some(String::new()),
                _ => {
                    errors.push(FieldError::new(key, "invalid", "Not a valid string."));
                    None
                }
            }
        };
        match key.as_str() {
            "real_name" => e.real_name = text(SHORT_MAX, &mut errors).map(|s| s.trim().to_owned()),
            "location" => e.location = text(SHORT_MAX, &mut errors),
            "company_name" => e.company_name = text(SHORT_MAX, &mut errors),
            "company_role" => e.company_role = text(SHORT_MAX, &mut errors),
            "bio" => e.bio = text(LONG_MAX, &mut errors),
            "description" => e.description = text(LONG_MAX, &mut errors),
            "website" => {
                if let Some(w) = text(super::link::LINK_MAX, &mut errors) {
                    match super::link::check_optional("website", w.trim()) {
                        Ok(()) => e.website = Some(w.trim().to_owned()),
                        Err(why) => errors.push(FieldError::new("website", "invalid", why)),
                    }
                }
            }
            "gender" => match value.as_str() {
                Some(g @ ("Male" | "Female" | "Unspecified")) => e.gender = Some(g.to_owned()),
                _ => errors.push(FieldError::new(
                    "gender",
                    "invalid_choice",
                    "One of Male, Female, Unspecified.",
                )),
            },
            "date_of_birth" => match value {
                Value::Null => e.date_of_birth = Some(None),
                Value::String(s) if s.is_empty() => e.date_of_birth = Some(None),
                Value::String(s)
                    if time::Date::parse(
                        s,
                        time::macros::format_description!("[year]-[month]-[day]"),
                    )
                    .is_ok() =>
                {
                    e.date_of_birth = Some(Some(s.clone()));
                }
                _ => errors.push(FieldError::new(
                    "date_of_birth",
                    "invalid",
                    "Date has wrong format. Use YYYY-MM-DD.",
                )),
            },
            k if READ_ONLY.contains(&k) => {}
            _ => {
                errors.push(FieldError::new(key, "invalid", "Not a field a member can edit here."))
            }
        }
    }
    if errors.is_empty() { Ok(e) } else { Err(errors) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errs(v: Value) -> Vec<String> {
        let map = v.as_object().cloned().unwrap_or_default();
        match parse(&map) {
            Ok(_) => Vec::new(),
            Err(e) => {
                e.into_iter().map(|e| format!("{}:{}", e.field, e.messages[0].code)).collect()
            }
        }
    }

    #[test]
    fn each_field_is_checked_on_its_own() {
        assert!(errs(json!({"real_name": "Ann", "bio": "<b>hi</b>\nthere", "website": "https://a.example",
                            "gender": "Female", "date_of_birth": "1990-02-03", "location": "Rome"})).is_empty());
        assert_eq!(errs(json!({"website": "javascript:alert(1)"})), ["website:invalid"]);
        assert_eq!(errs(json!({"date_of_birth": "03/02/1990", "gender": "x"})).len(), 2);
        assert_eq!(errs(json!({"bio": "x".repeat(LONG_MAX + 1)})), ["bio:max_length"]);
        assert_eq!(errs(json!({"real_name": "a\u{0}b"})), ["real_name:invalid"]);
        assert_eq!(errs(json!({"is_staff": true})), ["is_staff:invalid"]);
        assert_eq!(errs(json!({"bio": 3})), ["bio:invalid"]);
        assert!(errs(json!({"username": "whatever", "id": 1})).is_empty(), "read-only: ignored");
        let map = json!({"date_of_birth": null, "website": ""});
        let e = parse(map.as_object().unwrap_or(&Map::new())).unwrap_or_default();
        assert_eq!((e.date_of_birth, e.website), (Some(None), Some(String::new())));
    }
}
