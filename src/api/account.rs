//! `PATCH /api/v2/user/{id}/change_password/` (SPEC §10 People, the kit's account
//! settings): a member changes their password with the current one, checked as a
//! sign-in is (`oauth::password::check`: the same brute-force limit, the hashing off
//! the async workers).

use serde_json::{Map, Value};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, write};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::empty;
use crate::http::route::Endpoint;
use crate::oauth::password::{Outcome, check};
use crate::token::password;

/// The shortest new password, in characters.
pub const PASSWORD_MIN: usize = 8;
/// The longest new password, in characters (hashing cost grows with it).
pub const PASSWORD_MAX: usize = 128;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(
            Method::PATCH,
            "/api/v2/user/{id}/change_password/",
            "changeUserPassword",
            change_password,
        )
        .body::<PasswordChange>(),
    ]
}

/// The body of a password change (`PasswordChange`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = PasswordChange,
    description = "The current password and the new one; any other key is 400. The first fault is reported."
)]
struct PasswordChange {
    /// Required: the current password (a wrong one is 400 and counts as a failed
    /// sign-in).
    #[schema(min_length = 1)]
    password: String,
    /// Required: 8-128 characters, not the current password.
    #[schema(min_length = 8, max_length = 128)]
    new_password: String,
}

impl PasswordChange {
    /// The two fields of the body.
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        if let Some(e) =
            crate::model::field::FieldError::first_unknown(body, &["password", "new_password"])
        {
            return Err(ApiError::Invalid(vec![e]));
        }
        let text = |k: &str| match body.get(k) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(ApiError::field(k, "required", "This field is required.")),
        };
        let (current, new) = (text("password")?, text("new_password")?);
        let n = new.chars().count();
        if !(PASSWORD_MIN..=PASSWORD_MAX).contains(&n) {
            return Err(ApiError::field(
                "new_password",
                "invalid",
                format!("A password has {PASSWORD_MIN} to {PASSWORD_MAX} characters."),
            ));
        }
        if new == current {
            return Err(ApiError::field("new_password", "invalid", "It is the current password."));
        }
        Ok(PasswordChange { password: current, new_password: new })
    }
}

/// `PATCH /api/v2/user/{id}/change_password/` (auth, write): `{"password": current,
/// "new_password": ...}`; one's own id only (403). A wrong current password is 400 on
/// `password` and counts as a failed sign-in (429 past the limit). On success the
/// member's other sign-ins end (OAuth grants, browser sessions), as `hearth user
/// set-password` does. 204.
async fn change_password(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, addr) = (call.id(), call.req.client_addr());
    let body = call.object().await;
    // the caller first (401 for a token that no longer holds), then a body that is no
    // JSON object (415, 400) as for every typed body, then whose password it is: all
    // before any password work
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    let PasswordChange { password: current, new_password: new } = PasswordChange::parse(&body?)?;
    if who.user_id != id {
        return Err(ApiError::PermissionDenied);
    }
    let name = call
        .read(move |c, _| {
            let u = crate::db::users::get(c, id)?.ok_or(ApiError::NotFound)?;
            Ok(u.username)
        })
        .await?;
    let state = call.state().clone();
    match check(&state, addr, &name, &current).await? {
        Outcome::Ok(found) if found == id => {}
        Outcome::Throttled(secs) => return Err(ApiError::Throttled(secs)),
        _ => return Err(ApiError::field("password", "invalid", "The current password is wrong.")),
    }
    let hash = state
        .hash_blocking(move || password::hash(&new, password::DEFAULT_ITERATIONS))
        .await
        .ok_or_else(|| ApiError::internal("password hashing stopped"))?;
    call.write(move |tx, who| {
        crate::db::users::set_password(tx, who.user_id, Some(&hash))?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::invalid_fields;

    /// The first fault only, and `password` is read before `new_password`: each property
    /// is tried beside a valid body.
    #[test]
    fn every_documented_field_is_read() {
        let valid = serde_json::json!({"password": "current", "new_password": "new secret"});
        let unread = crate::model::field::unread_properties_beside::<PasswordChange>(
            valid.as_object().unwrap_or(&Map::new()),
            |m| invalid_fields(PasswordChange::parse(m)),
        );
        assert!(unread.is_empty(), "{unread:?}");
    }
}
