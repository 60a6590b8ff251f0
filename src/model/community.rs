//! The community itself and what visitors send its staff (SPEC §10, "Community info" and
//! "Contact us"). A hearth is one community: `/api/v2/community/` lists it alone, with
//! its name (`text.application_name`) and its public URL; it sells nothing (payments
//! are not in turn 3), so it has no paywalls. A contact request is a message to staff,
//! kept for `hearth contact list` and mailed to staff when a relay is configured.

use serde::Serialize;
use serde_json::{Map, Value};

use super::field::FieldError;
use crate::clock::{Timestamp, rfc3339};

/// The one community's id.
pub const COMMUNITY_ID: i64 = 1;

/// `SCCommunityType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Community)]
pub struct CommunityJson {
    /// Always 1: a hearth is one community
    pub id: i64,
    /// The community's name (the preference `text.application_name`)
    pub name: String,
    /// Where its API is served (`serve --public-url`)
    pub url: String,
    /// Always empty: this community sells nothing (no payments in hearth)
    #[schema(value_type = Vec<Object>)]
    pub paywalls: Vec<Value>,
    /// Always empty, as `paywalls`
    pub product_ids: Vec<i64>,
    /// Always null: nothing was bought
    #[schema(value_type = Option<Object>)]
    pub payment_order: Option<Value>,
    /// Always true: there is no paywall to pass
    pub paywall_community_passed: bool,
}

impl CommunityJson {
    /// The community named `name`, served at `url`.
    pub fn new(name: String, url: String) -> Self {
        CommunityJson {
            id: COMMUNITY_ID,
            name,
            url,
            paywalls: Vec::new(),
            product_ids: Vec::new(),
            payment_order: None,
            paywall_community_passed: true,
        }
    }
}

/// Longest name or surname, in characters.
pub const NAME_MAX: usize = 150;
/// Longest message, in characters.
pub const MESSAGE_MAX: usize = 5000;

/// A contact request as stored (plain text: it is mailed and printed, never rendered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContactRequest {
    pub id: i64,
    /// The member who sent it (None: a visitor, or an account deleted since).
    pub user_id: Option<i64>,
    pub name: String,
    pub surname: String,
    pub email: String,
    pub message: String,
    pub created_at: Timestamp,
}

/// `SCContactUsRequestType`, as the request's answer.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = ContactRequest)]
pub struct ContactJson {
    pub id: i64,
    pub name: String,
    pub surname: String,
    pub email: String,
    /// Plain text, as sent
    pub message: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Always null: staff do not edit requests
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

impl ContactRequest {
    /// Its JSON.
    pub fn to_json(&self) -> ContactJson {
        ContactJson {
            id: self.id,
            name: self.name.clone(),
            surname: self.surname.clone(),
            email: self.email.clone(),
            message: self.message.clone(),
            created_at: rfc3339(self.created_at),
            updated_at: None,
        }
    }

    /// The mail staff receive: who wrote, from where, and the message as plain text.
    pub fn mail_body(&self, community: &str) -> String {
        let who = format!("{} {}", self.name, self.surname);
        let member =
            self.user_id.map_or_else(|| "a visitor".to_owned(), |id| format!("member {id}"));
        format!(
            "A contact request to {community} (number {}, {}):\n\nFrom: {} <{}>, {member}\n\n{}\n",
            self.id,
            rfc3339(self.created_at),
            who.trim(),
            self.email,
            self.message
        )
    }
}

/// What a contact request's body holds, checked. Its schema is the request body of
/// `POST /api/v2/contact/request/` (`ContactRequestWrite`); the doc comments are its
/// descriptions.
#[derive(Debug, Clone, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = ContactRequestWrite,
    description = "A message to staff. Every field is plain text, trimmed; any other key is 400. The first fault is reported, by field."
)]
pub struct ContactInput {
    /// The sender's name (null or absent: empty); at most 150 characters, no control
    /// characters.
    #[schema(required = false, nullable, max_length = 150)]
    pub name: String,
    /// The sender's surname (null or absent: empty); at most 150 characters, no control
    /// characters.
    #[schema(required = false, nullable, max_length = 150)]
    pub surname: String,
    /// Where staff answer: a valid address, at most 254 characters. Null, absent or
    /// empty: the signed-in caller's own address (400 required when the account has
    /// none).
    #[schema(nullable, max_length = 254)]
    pub email: Option<String>,
    /// The message: required (not blank), at most 5000 characters; line breaks and tabs
    /// allowed, other control characters not.
    #[schema(min_length = 1, max_length = 5000)]
    pub message: String,
}

/// A plain-text field: a string (or null/absent: empty) of at most `max` characters,
/// without control characters (line breaks and tabs too, unless `multiline`).
fn plain(
    body: &Map<String, Value>,
    key: &str,
    max: usize,
    multiline: bool,
) -> Result<String, FieldError> {
    let s = match body.get(key) {
        None | Some(Value::Null) => return Ok(String::new()),
        Some(Value::String(s)) => s.trim(),
        Some(_) => return Err(FieldError::new(key, "invalid", "Not a valid string.")),
    };
    if s.chars().count() > max {
        return Err(FieldError::new(
            key,
            "max_length",
            format!("Ensure this field has no more than {max} characters."),
        ));
    }
    let allowed = |c: char| multiline && matches!(c, '\n' | '\r' | '\t');
    if s.chars().any(|c| c.is_control() && !allowed(c)) {
        return Err(FieldError::new(key, "invalid", "Control characters are not allowed."));
    }
    Ok(s.to_owned())
}

impl ContactInput {
    /// Reads `{name, surname, email, message}`: `message` is required; `email` is
    /// required of an anonymous caller (`signed_in` false), else optional. Every field
    /// is plain text; any other key is 400. The first fault, by field.
    pub fn parse(body: &Map<String, Value>, signed_in: bool) -> Result<ContactInput, FieldError> {
        if let Some(e) = FieldError::first_unknown(body, &["name", "surname", "email", "message"]) {
            return Err(e);
        }
        let name = plain(body, "name", NAME_MAX, false)?;
        let surname = plain(body, "surname", NAME_MAX, false)?;
        let email = plain(body, "email", super::user::EMAIL_MAX, false)?;
        let email = if email.is_empty() {
            if !signed_in {
                return Err(FieldError::required("email"));
            }
            None
        } else {
            super::user::validate_email(&email)
                .map_err(|m| FieldError::new("email", "invalid", m))?;
            Some(email)
        };
        let message = plain(body, "message", MESSAGE_MAX, true)?;
        if message.is_empty() {
            return Err(FieldError::required("message"));
        }
        Ok(ContactInput { name, surname, email, message })
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;
    use serde_json::json;

    fn parse(v: Value, signed_in: bool) -> Result<ContactInput, String> {
        ContactInput::parse(v.as_object().unwrap(), signed_in).map_err(|e| e.field)
    }

    #[test]
    fn fields_are_checked_one_by_one() {
        let ok = parse(json!({"email": "a@b.org", "message": " Hello\nthere "}), false).unwrap();
        assert_eq!((ok.email.as_deref(), ok.message.as_str()), (Some("a@b.org"), "Hello\nthere"));
        assert_eq!(parse(json!({"message": "hi"}), true).unwrap().email, None);
        assert_eq!(parse(json!({"message": "hi"}), false), Err("email".into()));
        assert_eq!(parse(json!({"email": "nope", "message": "hi"}), true), Err("email".into()));
        assert_eq!(parse(json!({"email": "a@b.org"}), false), Err("message".into()));
        assert_eq!(parse(json!({"message": "  "}), true), Err("message".into()));
        assert_eq!(
            parse(json!({"message": "x".repeat(MESSAGE_MAX + 1)}), true),
            Err("message".into())
        );
        assert_eq!(parse(json!({"message": "a\u{1b}[2J"}), true), Err("message".into()));
        assert_eq!(parse(json!({"message": "hi", "name": "a\nb"}), true), Err("name".into()));
        assert_eq!(parse(json!({"message": "hi", "surname": 3}), true), Err("surname".into()));
        assert_eq!(parse(json!({"message": "hi", "phone": "1"}), true), Err("phone".into()));
    }

    /// The first fault only: each property is tried alone.
    #[test]
    fn every_documented_field_is_read() {
        let unread = crate::model::field::unread_properties_each::<ContactInput>(|m| {
            ContactInput::parse(m, true).err().into_iter().collect()
        });
        assert!(unread.is_empty(), "{unread:?}");
    }
}
