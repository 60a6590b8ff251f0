//! The bodies of the account routes, as the types their handlers read them into: each
//! type's schema is the route's documented request body, its doc comments the
//! descriptions. A handler first refuses a key outside the type's `FIELDS` (400 on that
//! key, before anything else is checked), then reads the fields in order, stopping at
//! the first fault.

use serde_json::{Map, Value};

use super::{new_password, text};
use crate::error::ApiError;
use crate::model::user::{validate_email, validate_username};

/// The body of `POST /api/v2/account/create/` (`AccountCreate`). A `_` field documents a
/// key the parser checks but keeps nothing of.
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = AccountCreate,
    description = "A new account, made once its address is proven (a code goes to it by mail). Any other key is 400; the first fault is reported."
)]
pub(super) struct SignUp {
    /// Required: 1-150 letters, digits and @.+-_ (trimmed); 400 unique when taken.
    #[schema(min_length = 1, max_length = 150)]
    pub username: String,
    /// Required: a mail address, at most 254 characters (trimmed).
    #[schema(max_length = 254)]
    pub email: String,
    /// Required: 8-128 characters.
    #[schema(min_length = 8, max_length = 128)]
    pub password: String,
    /// `invite_code` (described by [`no_code`]).
    #[schema(rename = "invite_code", schema_with = no_code, required = false)]
    _invite_code: (),
    /// `promo_code` (described by [`no_code`]).
    #[schema(rename = "promo_code", schema_with = no_code, required = false)]
    _promo_code: (),
}

/// `invite_code`, `promo_code`: refused unless null or empty.
fn no_code() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some("This community has no such codes: 400 unless null or empty."))
        .build()
}

impl SignUp {
    /// The keys the body may hold.
    pub const FIELDS: &[&str] = &["username", "email", "password", "invite_code", "promo_code"];

    /// The codes (none may be given), then `username`, `email`, `password`.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        for key in ["invite_code", "promo_code"] {
            if body.get(key).is_some_and(|v| !v.is_null() && v != "") {
                return Err(ApiError::field(key, "invalid", "This community has no such codes."));
            }
        }
        let username = text(body, "username")?;
        validate_username(&username).map_err(|m| ApiError::field("username", "invalid", m))?;
        let email = text(body, "email")?;
        validate_email(&email).map_err(|m| ApiError::field("email", "invalid", m))?;
        let password = new_password(body)?;
        Ok(SignUp { username, email, password, _invite_code: (), _promo_code: () })
    }
}

/// The body of `POST /api/v2/account/verify/` and `.../verify/validation_code/`
/// (`AccountValidationCode`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = AccountValidationCode, description = "A mailed code; any other key is 400.")]
pub(super) struct ValidationCode {
    /// Required: the code from the mail (trimmed). A wrong, used or expired one counts
    /// as a failed sign-in of the client.
    #[schema(min_length = 1)]
    pub validation_code: String,
}

impl ValidationCode {
    /// The keys the body may hold.
    pub const FIELDS: &[&str] = &["validation_code"];

    /// `validation_code`: 400 required when missing or blank.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        Ok(ValidationCode { validation_code: text(body, "validation_code")? })
    }
}

/// The body of `POST /api/v2/account/recover/` (`AccountRecover`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = AccountRecover, description = "The address to recover; any other key is 400.")]
pub(super) struct Recovery {
    /// Required: a mail address, at most 254 characters (trimmed). The answer is the
    /// same whether or not a member has it.
    #[schema(max_length = 254)]
    pub email: String,
}

impl Recovery {
    /// The keys the body may hold.
    pub const FIELDS: &[&str] = &["email"];

    /// `email`: required, a valid address.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let email = text(body, "email")?;
        validate_email(&email).map_err(|m| ApiError::field("email", "invalid", m))?;
        Ok(Recovery { email })
    }
}

/// The body of `POST /api/v2/account/reset/` (`AccountReset`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = AccountReset,
    description = "A recovery code and the new password; any other key is 400. The first fault is reported."
)]
pub(super) struct PasswordReset {
    /// Required: the code from the mail (trimmed).
    #[schema(min_length = 1)]
    pub validation_code: String,
    /// Required: the new password, 8-128 characters.
    #[schema(min_length = 8, max_length = 128)]
    pub password: String,
}

impl PasswordReset {
    /// The keys the body may hold.
    pub const FIELDS: &[&str] = &["validation_code", "password"];

    /// `validation_code`, then `password`.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let validation_code = text(body, "validation_code")?;
        Ok(PasswordReset { validation_code, password: new_password(body)? })
    }
}

/// The body of `PATCH /api/v2/user/{id}/change_email/` (`UserChangeMail`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = UserChangeMail,
    description = "The new address, proven by a mailed code before it is the member's. Any other key is 400; the first fault is reported."
)]
pub(super) struct EmailChange {
    /// Required: a mail address, at most 254 characters (trimmed); 400 unique when
    /// another account has it.
    #[schema(max_length = 254)]
    pub new_email: String,
    /// `confirm` (described by [`confirm_field`]).
    #[schema(rename = "confirm", schema_with = confirm_field, required = false)]
    _confirm: (),
    /// `send_email` (described by [`send_email_field`]).
    #[schema(rename = "send_email", schema_with = send_email_field, required = false)]
    _send_email: (),
}

/// `confirm`: false is refused.
fn confirm_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Boolean)
        .description(Some(
            "false (change without a mail) is 400: this community proves every address.",
        ))
        .build()
}

/// `send_email`: taken, not read.
fn send_email_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Boolean)
        .description(Some("Accepted and ignored: the code is always mailed."))
        .build()
}

impl EmailChange {
    /// The keys the body may hold.
    pub const FIELDS: &[&str] = &["new_email", "confirm", "send_email"];

    /// `confirm` (false refused), then `new_email`.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        if body.get("confirm").is_some_and(|v| v == &Value::Bool(false)) {
            return Err(ApiError::field(
                "confirm",
                "invalid",
                "A new address is confirmed by mail on this community.",
            ));
        }
        let new_email = text(body, "new_email")?;
        validate_email(&new_email).map_err(|m| ApiError::field("new_email", "invalid", m))?;
        Ok(EmailChange { new_email, _confirm: (), _send_email: () })
    }
}

/// The body of `POST /api/v2/user/{id}/confirm_email/` (`UserConfirmMail`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = UserConfirmMail,
    description = "The new address and its mailed code; any other key is 400. The first fault is reported."
)]
pub(super) struct EmailConfirmation {
    /// Required: the address the code was mailed to (trimmed; compared
    /// case-insensitively).
    #[schema(max_length = 254)]
    pub new_email: String,
    /// Required: the code from the mail (trimmed); a wrong one counts as a failed
    /// sign-in.
    #[schema(min_length = 1)]
    pub validation_code: String,
}

impl EmailConfirmation {
    /// The keys the body may hold.
    pub const FIELDS: &[&str] = &["new_email", "validation_code"];

    /// `new_email`, then `validation_code`.
    pub fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        let new_email = text(body, "new_email")?;
        Ok(EmailConfirmation { new_email, validation_code: text(body, "validation_code")? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_beside};
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    /// The first fault only: each property is tried beside a valid body.
    #[test]
    fn every_documented_field_is_read() {
        let valid = obj(json!({"username": "ann", "email": "a@b.org", "password": "12345678"}));
        let unread =
            unread_properties_beside::<SignUp>(&valid, |m| invalid_fields(SignUp::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
        let valid = obj(json!({"validation_code": "c"}));
        let unread = unread_properties_beside::<ValidationCode>(&valid, |m| {
            invalid_fields(ValidationCode::parse(m))
        });
        assert!(unread.is_empty(), "{unread:?}");
        let valid = obj(json!({"email": "a@b.org"}));
        let unread =
            unread_properties_beside::<Recovery>(&valid, |m| invalid_fields(Recovery::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
        let valid = obj(json!({"validation_code": "c", "password": "12345678"}));
        let unread = unread_properties_beside::<PasswordReset>(&valid, |m| {
            invalid_fields(PasswordReset::parse(m))
        });
        assert!(unread.is_empty(), "{unread:?}");
        let valid = obj(json!({"new_email": "a@b.org", "validation_code": "c"}));
        let unread = unread_properties_beside::<EmailConfirmation>(&valid, |m| {
            invalid_fields(EmailConfirmation::parse(m))
        });
        assert!(unread.is_empty(), "{unread:?}");
    }

    /// `confirm` takes any value but false, and `send_email` is accepted and ignored, so
    /// an object is no fault in either: `confirm` is shown read by its one refused value.
    #[test]
    fn every_documented_change_mail_field_is_read() {
        let valid = obj(json!({"new_email": "a@b.org"}));
        let unread = unread_properties_beside::<EmailChange>(&valid, |m| {
            invalid_fields(EmailChange::parse(m))
        });
        assert_eq!(unread, ["confirm", "send_email"]);
        let refused = obj(json!({"new_email": "a@b.org", "confirm": false}));
        let e = invalid_fields(EmailChange::parse(&refused));
        assert_eq!(e.first().map(|e| e.field.as_str()), Some("confirm"));
        for key in EmailChange::FIELDS {
            let schema = serde_json::to_value(<EmailChange as utoipa::PartialSchema>::schema());
            assert!(schema.is_ok_and(|s| s["properties"].get(key).is_some()), "{key}");
        }
    }
}
