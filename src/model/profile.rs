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

/// The changes of one edit: each field present is set. Its schema is the request body
/// of `PATCH`/`PUT /api/v2/user/{id}/` (`UserProfileWrite`); the doc comments are its
/// descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = UserProfileWrite,
    description = "The fields a member changes on their own profile, as JSON or as multipart/form-data text fields; PUT and PATCH both change only the fields given. Text fields are plain text (no control characters but line breaks and tabs; null is empty). The read-only fields of User JSON (id, username, email, date_joined, avatar, cover) are ignored; any other key is 400. All errors are reported at once."
)]
pub struct ProfileEdit {
    /// Trimmed; at most 255 characters.
    #[schema(max_length = 255)]
    pub real_name: Option<String>,
    /// At most 5000 characters.
    #[schema(max_length = 5000)]
    pub bio: Option<String>,
    /// At most 5000 characters.
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// At most 255 characters.
    #[schema(max_length = 255)]
    pub location: Option<String>,
    /// An http(s) URL or a path that starts with /; empty clears it. At most 2048
    /// characters.
    #[schema(max_length = 2048)]
    pub website: Option<String>,
    /// `gender` (described by [`gender_field`]).
    #[schema(schema_with = gender_field)]
    pub gender: Option<String>,
    /// YYYY-MM-DD; null or empty clears it.
    // `Some(None)`: cleared.
    #[schema(value_type = Option<String>, format = Date, nullable)]
    pub date_of_birth: Option<Option<String>>,
    /// At most 255 characters.
    #[schema(max_length = 255)]
    pub company_name: Option<String>,
    /// At most 255 characters.
    #[schema(max_length = 255)]
    pub company_role: Option<String>,
    /// A form's empty `cover`: back to the default cover (set by the handler, which
    /// reads the form's `cover`; described by [`cover_field`]).
    #[schema(rename = "cover", schema_with = cover_field, required = false)]
    pub clear_cover: bool,
}

/// `gender`: one of the three.
fn gender_field() -> utoipa::openapi::schema::Object {
    let mut o = super::field::one_of(&["Male", "Female", "Unspecified"]);
    o.description = Some("One of Male, Female, Unspecified (400 invalid_choice otherwise).".into());
    o
}

/// `cover`: a file in a multipart form, ignored in JSON.
fn cover_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .description(Some(
            "In multipart/form-data only: the cover picture file (an empty field: back to \
             the default cover). In JSON it is read-only and ignored.",
        ))
        .schema_type(Type::String)
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Binary,
        )))
        .build()
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

    /// `cover` is read by the handler from a form (a file, or empty for the default);
    /// in JSON it is read-only, so the parser ignores it.
    #[test]
    fn every_documented_field_is_read() {
        let unread = crate::model::field::unread_properties::<ProfileEdit>(|m| {
            parse(m).err().unwrap_or_default()
        });
        assert_eq!(unread, ["cover"]);
    }
}
