//! Validation messages about the fields of a request (`{"field", "messages"}`), which
//! the model's parsers produce and the API answers 400 with.

use serde::Serialize;

/// A validation message about one field (`{"code", "message"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldMessage {
    /// `required`, `invalid`, `invalid_choice`, `unique`, `max_length`, ...
    pub code: &'static str,
    /// Human-readable explanation.
    pub message: String,
}

/// All validation messages about one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// The body field or query parameter.
    pub field: String,
    /// What is wrong with it.
    pub messages: Vec<FieldMessage>,
}

impl FieldError {
    /// The field is missing: code `required`, DRF's message.
    pub fn required(field: impl Into<String>) -> Self {
        FieldError::new(field, "required", "This field is required.")
    }

    /// A key a body may not hold: code `invalid`.
    pub fn unknown(field: impl Into<String>) -> Self {
        FieldError::new(field, "invalid", "Not a field of this request.")
    }

    /// The first key of `body` that is not one of `allowed`, as [`Self::unknown`].
    pub fn first_unknown(
        body: &serde_json::Map<String, serde_json::Value>,
        allowed: &[&str],
    ) -> Option<Self> {
        body.keys().find(|k| !allowed.contains(&k.as_str())).map(|k| Self::unknown(k.as_str()))
    }

    /// One field, one message.
    pub fn new(field: impl Into<String>, code: &'static str, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            messages: vec![FieldMessage { code, message: message.into() }],
        }
    }
}

/// The schema of a text field or parameter that takes one of `values` (its `enum`): for
/// `#[schema(schema_with = f)]` and `#[param(schema_with = f)]`, with `f` naming the
/// values its parser takes.
pub fn one_of(values: &[&str]) -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(values.iter().copied()))
        .build()
}

/// The schema of an image field of a body (`#[schema(schema_with = f)]`, `f` giving its
/// `description`): null in JSON (back to the default), a binary file in a multipart form.
pub fn image_schema(description: &str) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .description(Some(description))
        .schema_type(SchemaType::from_iter([Type::Null, Type::String]))
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Binary,
        )))
        .build()
}

/// The properties `T`'s schema declares (for the tests below).
#[cfg(test)]
fn properties<T: utoipa::ToSchema>() -> Vec<String> {
    let schema = serde_json::to_value(T::schema()).unwrap_or_default();
    let names: Vec<String> =
        schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default();
    assert!(!names.is_empty(), "{schema}");
    names
}

/// For a body type's tests: every property `T`'s schema declares is one that `parse`
/// reads under that name. A body with each set to an object (which no field takes) must
/// give an error on each; returns the properties that gave none.
#[cfg(test)]
pub(crate) fn unread_properties<T: utoipa::ToSchema>(
    parse: impl Fn(&serde_json::Map<String, serde_json::Value>) -> Vec<FieldError>,
) -> Vec<String> {
    let names = properties::<T>();
    let body = names.iter().map(|n| (n.clone(), serde_json::json!({}))).collect();
    let errors = parse(&body);
    names.into_iter().filter(|n| !errors.iter().any(|e| e.field == *n)).collect()
}

/// For the tests of a PATCH-able body type: every documented property is read, and none
/// is required (a PATCH may leave each out; a `bool` field's derive would mark it).
#[cfg(test)]
pub(crate) fn assert_patch_body<T: utoipa::ToSchema>(
    parse: impl Fn(&serde_json::Map<String, serde_json::Value>) -> Vec<FieldError>,
) {
    let unread = unread_properties::<T>(parse);
    assert!(unread.is_empty(), "{unread:?}");
    let schema = serde_json::to_value(T::schema()).unwrap_or_default();
    assert_eq!(schema["required"], serde_json::Value::Null, "{schema}");
}

/// [`unread_properties`] for a parser that stops at its first fault: each property is set
/// to an object alone (the others absent), and must give an error on itself.
#[cfg(test)]
pub(crate) fn unread_properties_each<T: utoipa::ToSchema>(
    parse: impl Fn(&serde_json::Map<String, serde_json::Value>) -> Vec<FieldError>,
) -> Vec<String> {
    unread_properties_beside::<T>(&serde_json::Map::new(), parse)
}

/// [`unread_properties_each`] for a parser that needs other fields right before it reads
/// a later one: each property is set to an object in a copy of `valid`.
#[cfg(test)]
pub(crate) fn unread_properties_beside<T: utoipa::ToSchema>(
    valid: &serde_json::Map<String, serde_json::Value>,
    parse: impl Fn(&serde_json::Map<String, serde_json::Value>) -> Vec<FieldError>,
) -> Vec<String> {
    properties::<T>()
        .into_iter()
        .filter(|n| {
            let mut body = valid.clone();
            body.insert(n.clone(), serde_json::json!({}));
            !parse(&body).iter().any(|e| e.field == *n)
        })
        .collect()
}

/// For a body type's tests whose parser answers an [`crate::error::ApiError`]: the
/// field errors of a 400, none otherwise.
#[cfg(test)]
pub(crate) fn invalid_fields<T>(r: Result<T, crate::error::ApiError>) -> Vec<FieldError> {
    match r {
        Err(crate::error::ApiError::Invalid(e)) => e,
        _ => Vec::new(),
    }
}
