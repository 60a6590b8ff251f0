//! A member's new mail address, proven by a mailed code (SPEC §10 People: "email change
//! needs confirmation by mail"): `PATCH /user/{id}/change_email/` mails a code to the
//! new address; `POST /user/{id}/confirm_email/` with it makes the change;
//! `GET /user/{id}/check_email_token/` says whether a code is open. One's own id only.

use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::bodies::{EmailChange, EmailConfirmation};
use super::{NO_RELAY, mail_key, mails, wrong_code};
use crate::api::call::{Call, write};
use crate::clock::SECOND;
use crate::db::account_codes::{self, Code, Purpose};
use crate::error::{ApiError, Unavailable};
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response};
use crate::limits::AddrKey;
use crate::limits::login::LimitKey;
use crate::model::field::FieldError;
use crate::token;

/// How long an address-change code works.
const EMAIL_TTL: i64 = 24 * 3600 * SECOND;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::PATCH, "/api/v2/user/{id}/change_email/", "changeUserMail", change)
            .body_limit(super::BODY_LIMIT)
            .body::<EmailChange>(),
        write(Method::POST, "/api/v2/user/{id}/confirm_email/", "confirmUserChangeMail", confirm)
            .body_limit(super::BODY_LIMIT)
            .body::<EmailConfirmation>(),
        crate::api::call::user(
            Method::GET,
            "/api/v2/user/{id}/check_email_token/",
            "checkEmailToken",
            check,
        )
        .query::<EmailToken>(),
    ]
}

/// The body (only `allowed` fields), after the caller; then whether {id} is the caller.
async fn own_body(
    call: &mut Call<Principal>,
    allowed: &[&str],
) -> Result<Map<String, Value>, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    let body = body?;
    if let Some(e) = FieldError::first_unknown(&body, allowed) {
        return Err(ApiError::Invalid(vec![e]));
    }
    if who.user_id != call.id() {
        return Err(ApiError::PermissionDenied);
    }
    Ok(body)
}

/// `PATCH /api/v2/user/{id}/change_email/`: `{new_email, confirm, send_email}` (the
/// kit's). The address is checked (400 `new_email`: malformed, or another member's:
/// `unique`) and a code goes to it; the address changes only at `confirm_email/`. A
/// `confirm` of false (skip the mail) is 400: this community proves every address.
/// Needs the relay (403 without); mails count against `--mail-rate`. 204.
async fn change(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let body = own_body(&mut call, EmailChange::FIELDS).await?;
    let EmailChange { new_email: email, .. } = EmailChange::parse(&body)?;
    let mailer = call.state().mailer.clone().ok_or(ApiError::Refused(NO_RELAY))?;
    let state = call.state().clone();
    let keys = [LimitKey::Addr(AddrKey::of(call.req.client_addr())), mail_key(&email)];
    state.mail_limiter.reserve(&keys, state.clock.now()).map_err(ApiError::Throttled)?.failed();
    let code = token::random_string(16);
    let (now, stored, id) = (state.clock.now(), token::storage_hash(&code), call.id());
    let name = call
        .write(move |tx, who| {
            if crate::db::users::email_taken(tx, &email)? {
                return Err(ApiError::field(
                    "new_email",
                    "unique",
                    "Another account has this address.",
                ));
            }
            let open =
                Code { user_id: Some(id), username: None, email: email.clone(), password: None };
            account_codes::put(tx, &stored, Purpose::Email, &open, now, EMAIL_TTL)?;
            let me = crate::db::users::get(tx, who.user_id)?.ok_or(ApiError::NotFound)?;
            Ok((me.username, email))
        })
        .await?;
    let (username, email) = name;
    let mail = mails::new_address(&username, &code, &state);
    mailer
        .send(&email, &mail.subject, mail.body)
        .map_err(|_| ApiError::Unavailable(Unavailable::Mail))?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `POST /api/v2/user/{id}/confirm_email/`: `{new_email, validation_code}` (what the
/// kit's `AccountChangeMailValidation` sends). The code must be the caller's open one
/// for that address (else 400 on `validation_code`, counted as a failed sign-in);
/// the address becomes the member's (400 `new_email` `unique` if another account took
/// it meanwhile). 204.
async fn confirm(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let body = own_body(&mut call, EmailConfirmation::FIELDS).await?;
    let EmailConfirmation { new_email: email, validation_code } = EmailConfirmation::parse(&body)?;
    let hash = token::storage_hash(&validation_code);
    let state = call.state().clone();
    let keys = [LimitKey::Addr(AddrKey::of(call.req.client_addr()))];
    let slot =
        state.login_limiter.reserve(&keys, state.clock.now()).map_err(ApiError::Throttled)?;
    let now = state.clock.now();
    let done = call
        .write(move |tx, who| {
            let open = account_codes::peek(tx, &hash, Purpose::Email, now)?;
            let ours = open.is_some_and(|c| {
                c.user_id == Some(who.user_id) && c.email.eq_ignore_ascii_case(&email)
            });
            if !ours {
                return Ok(false);
            }
            account_codes::take(tx, &hash, Purpose::Email, now)?;
            if crate::db::users::email_taken(tx, &email)? {
                return Err(ApiError::field(
                    "new_email",
                    "unique",
                    "Another account has this address.",
                ));
            }
            crate::db::users::set_email(tx, who.user_id, &email)?;
            Ok(true)
        })
        .await?;
    if !done {
        slot.failed();
        return Err(wrong_code());
    }
    slot.cancelled();
    Ok(empty(StatusCode::NO_CONTENT))
}

crate::query_params! {
    /// The address-change code a check asks about.
    struct EmailToken {
        /// The code the address-change mail carried; absent or empty: never one open
        /// (`is_valid` false).
        email_token: Option<String>,
    }
}

/// `GET /api/v2/user/{id}/check_email_token/?email_token=`: 200 `{"is_valid": bool}`,
/// whether the caller has that address-change code open. Changes nothing.
async fn check(call: Call<Principal>) -> Result<Response, ApiError> {
    let code = EmailToken::read(&call.query()?)?.email_token.unwrap_or_default();
    let (id, now) = (call.id(), call.state().clock.now());
    let hash = token::storage_hash(&code);
    let valid = call
        .read(move |c, who| {
            if who.user_id != id {
                return Err(ApiError::PermissionDenied);
            }
            let open = account_codes::peek(c, &hash, Purpose::Email, now)?;
            Ok(open.is_some_and(|c| c.user_id == Some(id)))
        })
        .await?;
    Ok(json_response(StatusCode::OK, &json!({ "is_valid": valid })))
}
