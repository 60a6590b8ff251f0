//! A member's identity elsewhere (`SCUserProviderAssociationType`, issue 32): the rules
//! its fields follow, one definition for the API (`api::user_providers`, `api::sso`)
//! and the importer (`{"record":"user_provider", ...}`).

use serde::Deserialize;
use serde_json::Value;

use crate::clock::Timestamp;

/// The most characters of an external id.
pub const EXT_ID_MAX: usize = 255;
/// The most bytes of an identity's `metadata` (as JSON).
pub const METADATA_MAX: usize = 4096;

/// One linked identity. Its schema is the request body of `POST
/// /api/v2/user/{id}/provider/` (`UserProviderAssociation`, the kit's
/// `SCUserProviderAssociationType`); the doc comments are its descriptions.
#[derive(Debug, Clone, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = UserProviderAssociation,
    description = "An identity elsewhere to link to the member of the URL (SCUserProviderAssociationType). Any other key is 400; the first fault is reported. A second identity of the member at a provider, an external id linked already and a member's 17th identity are 400."
)]
pub struct Association {
    /// The member of the URL, when sent (400 otherwise).
    #[schema(required = false)]
    pub user_id: i64,
    /// Required: the provider (1-32 of a-z, 0-9, _ and -), e.g. google, facebook.
    #[schema(min_length = 1, max_length = 32, pattern = "^[a-z0-9_-]{1,32}$")]
    pub provider: String,
    /// `ext_id` (described by [`ext_id_field`]); required here.
    #[schema(schema_with = ext_id_field, required = true)]
    pub ext_id: String,
    /// An http(s) URL of the member's profile there; null or empty: none.
    #[schema(nullable)]
    pub profile_url: Option<String>,
    /// Shown on the member's profile (default false).
    #[schema(required = false)]
    pub show_in_profile: bool,
    /// A JSON object of at most 4096 bytes (as JSON), or null.
    // stored as the object's text
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<String>,
}

/// A provider's name: 1 to 32 of `a-z`, `0-9`, `_`, `-` (the kit's are `google`,
/// `facebook`, `twitter`, `linkedin`; an SSO integration names its own).
pub fn check_provider(p: &str) -> Result<(), String> {
    let ok = (1..=32).contains(&p.len())
        && p.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if ok { Ok(()) } else { Err("A provider is 1 to 32 of a-z, 0-9, _ and -.".into()) }
}

/// An external id: a string or a whole number, 1 to [`EXT_ID_MAX`] characters, no
/// control characters.
pub fn ext_id(v: &Value) -> Result<String, String> {
    let s = match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        _ => return Err("An id is a string or a number.".into()),
    };
    if s.is_empty() || s.chars().count() > EXT_ID_MAX || s.chars().any(char::is_control) {
        return Err(format!("An id has 1 to {EXT_ID_MAX} characters and no control characters."));
    }
    Ok(s)
}

/// A profile's address: an http(s) URL (SPEC §10's link rule, never a path here).
pub fn check_profile_url(u: &str) -> Result<(), String> {
    if super::link::is_safe(u) && !u.starts_with('/') {
        Ok(())
    } else {
        Err("profile_url is an http(s) URL.".into())
    }
}

/// `metadata`: a JSON object of at most [`METADATA_MAX`] bytes, as text.
pub fn metadata(v: &Value) -> Result<String, String> {
    if !v.is_object() {
        return Err("metadata is a JSON object.".into());
    }
    let text = v.to_string();
    if text.len() > METADATA_MAX {
        return Err(format!("metadata is at most {METADATA_MAX} bytes of JSON."));
    }
    Ok(text)
}

/// `{"record":"user_provider","user":2,"provider":"google","ext_id":"g-1",
/// "profile_url":...,"show_in_profile":...,"metadata":{...},"created_at":...}`: an
/// identity linked to user 2, by the API's rules.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserProviderLine {
    pub user: i64,
    pub provider: String,
    pub ext_id: Value,
    #[serde(default)]
    pub profile_url: Option<String>,
    #[serde(default)]
    pub show_in_profile: bool,
    #[serde(default)]
    pub metadata: Option<Value>,
    #[serde(default, deserialize_with = "super::import::time")]
    pub created_at: Option<Timestamp>,
}

impl UserProviderLine {
    /// The identity, or what is wrong with the line.
    pub fn to_association(&self) -> Result<Association, String> {
        check_provider(&self.provider).map_err(|e| format!("provider: {e}"))?;
        let ext_id = ext_id(&self.ext_id).map_err(|e| format!("ext_id: {e}"))?;
        let profile_url = match self.profile_url.as_deref() {
            None | Some("") => None,
            Some(u) => {
                check_profile_url(u).map_err(|e| format!("profile_url: {e}"))?;
                Some(u.to_owned())
            }
        };
        let metadata = match &self.metadata {
            None | Some(Value::Null) => None,
            Some(m) => Some(metadata(m).map_err(|e| format!("metadata: {e}"))?),
        };
        Ok(Association {
            user_id: self.user,
            provider: self.provider.clone(),
            ext_id,
            profile_url,
            show_in_profile: self.show_in_profile,
            metadata,
        })
    }
}

/// An external id's schema: a string or a whole number.
pub fn ext_id_field() -> utoipa::openapi::schema::Object {
    ext_id_schema(false)
}

/// [`ext_id_field`] where null (none) is taken too.
pub fn ext_id_or_null() -> utoipa::openapi::schema::Object {
    ext_id_schema(true)
}

fn ext_id_schema(null: bool) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let mut types = vec![Type::String, Type::Integer];
    if null {
        types.push(Type::Null);
    }
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter(types))
        .description(Some(
            "The member's id at the integration: a string (trimmed) or a whole number, 1-255 \
             characters, no control characters; 400 unique when linked to a member already.",
        ))
        .build()
}
