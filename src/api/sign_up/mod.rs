//! `/api/v2/account/...` (SPEC §10 People): sign-up with a mailed code, and password
//! recovery. Both need the SMTP relay (`serve --smtp-url`); without one, `create` and
//! `recover` answer 403 saying so and change nothing.
//!
//! - `create` keeps the new account in `account_code` until its address is proven;
//!   `verify` makes the user and signs it in (a JWT, as the kit's `AccountVerify` wants).
//! - `recover` answers 204 whether or not the address has an account (only the owner
//!   of the address learns, by mail); `verify/validation_code` and `reset` use the code.
//! - A code is 128 random bits, kept hashed, used once, valid 24 hours (sign-up) or one
//!   hour (recovery). Mails caused are limited per client address and per mail address
//!   (`--mail-rate` an hour); wrong codes count as failed sign-ins per address (the
//!   login limit). Passwords are hashed off the async workers, as sign-ins are.

mod bodies;
mod change_email;
mod mails;

use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::account::{PASSWORD_MAX, PASSWORD_MIN};
use crate::api::call::{Call, anonymous};
use crate::clock::SECOND;
use crate::db::account_codes::{self, Code, Purpose};
use crate::error::{ApiError, Unavailable};
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response};
use crate::limits::AddrKey;
use crate::limits::login::{LimitKey, Reservation};
use crate::model::field::FieldError;
use crate::token::{self, password};
use bodies::{PasswordReset, Recovery, SignUp, ValidationCode};

/// The largest body these routes read: a few short fields.
const BODY_LIMIT: usize = 4 * 1024;
/// How long a sign-up code works.
const SIGNUP_TTL: i64 = 24 * 3600 * SECOND;
/// How long a recovery code works.
const RECOVER_TTL: i64 = 3600 * SECOND;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        anonymous(Method::POST, "/api/v2/account/create/", "accountCreate", create)
            .body_limit(BODY_LIMIT)
            .body::<SignUp>(),
        anonymous(Method::POST, "/api/v2/account/verify/", "accountVerify", verify)
            .body_limit(BODY_LIMIT)
            .body::<ValidationCode>(),
        anonymous(
            Method::POST,
            "/api/v2/account/verify/validation_code/",
            "accountVerifyValidationCode",
            validation_code,
        )
        .read_only()
        .body_limit(BODY_LIMIT)
        .body::<ValidationCode>(),
        anonymous(Method::POST, "/api/v2/account/recover/", "accountRecover", recover)
            .body_limit(BODY_LIMIT)
            .body::<Recovery>(),
        anonymous(Method::POST, "/api/v2/account/reset/", "accountReset", reset)
            .body_limit(BODY_LIMIT)
            .body::<PasswordReset>(),
    ]
    .into_iter()
    .chain(change_email::endpoints())
    .collect()
}

/// Why the routes that mail are off.
const NO_RELAY: &str =
    "Sign-up, password recovery and address changes are off on this community: it sends no mail.";

/// The body as an object of only `allowed` fields.
async fn body(
    call: &mut Call<Option<Principal>>,
    allowed: &[&str],
) -> Result<Map<String, Value>, ApiError> {
    call.req.body.public();
    let body = call.object().await?;
    if let Some(e) = FieldError::first_unknown(&body, allowed) {
        return Err(ApiError::Invalid(vec![e]));
    }
    Ok(body)
}

/// A required non-empty string field.
fn text(body: &Map<String, Value>, key: &str) -> Result<String, ApiError> {
    match body.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
        _ => Err(ApiError::field(key, "required", "This field is required.")),
    }
}

/// A new password's length rule (as `change_password`'s).
fn new_password(body: &Map<String, Value>) -> Result<String, ApiError> {
    let pw = match body.get("password") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => return Err(ApiError::field("password", "required", "This field is required.")),
    };
    if !(PASSWORD_MIN..=PASSWORD_MAX).contains(&pw.chars().count()) {
        return Err(ApiError::field(
            "password",
            "invalid",
            format!("A password has {PASSWORD_MIN} to {PASSWORD_MAX} characters."),
        ));
    }
    Ok(pw)
}

/// One mail's place under `--mail-rate`, for the client and for the address.
fn mail_slot(call: &Call<Option<Principal>>, email: &str) -> Result<Reservation, ApiError> {
    let state = call.state();
    let keys =
        [LimitKey::Addr(AddrKey::of(call.req.client_addr())), LimitKey::Mail(email.to_lowercase())];
    state.mail_limiter.reserve(&keys, state.clock.now()).map_err(ApiError::Throttled)
}

/// The `--mail-rate` key of a mail address.
fn mail_key(email: &str) -> LimitKey {
    LimitKey::Mail(email.to_lowercase())
}

/// One code check's place under the login limit, for the client.
fn code_slot(call: &Call<Option<Principal>>) -> Result<Reservation, ApiError> {
    let state = call.state();
    let keys = [LimitKey::Addr(AddrKey::of(call.req.client_addr()))];
    state.login_limiter.reserve(&keys, state.clock.now()).map_err(ApiError::Throttled)
}

fn wrong_code() -> ApiError {
    ApiError::field("validation_code", "invalid", "The code is wrong, used or expired.")
}

/// `POST /api/v2/account/create/`: `{username, email, password}` (the `invite_code` and
/// `promo_code` the types name: this community has none, so 400 when given). Mails a
/// code to the address and answers 201 `{username, email}`; the account is made by
/// `verify`. An address that already has an account gets a mail that says so instead,
/// and the answer is the same: the form does not tell who is a member.
async fn create(mut call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let body = body(&mut call, SignUp::FIELDS).await?;
    let mailer = call.state().mailer.clone().ok_or(ApiError::Refused(NO_RELAY))?;
    let SignUp { username, email, password: pw, .. } = SignUp::parse(&body)?;
    let name = username.clone();
    let taken = call
        .read(move |c, _| Ok::<_, ApiError>(crate::db::users::username_taken(c, &name)?))
        .await?;
    if taken {
        return Err(ApiError::field(
            "username",
            "unique",
            "A user with that username already exists.",
        ));
    }
    mail_slot(&call, &email)?.failed();
    let state = call.state().clone();
    let hash = state
        .hash_blocking(move || password::hash(&pw, password::DEFAULT_ITERATIONS))
        .await
        .ok_or_else(|| ApiError::internal("password hashing stopped"))?;
    let code = token::random_string(16);
    let (now, stored) = (state.clock.now(), token::storage_hash(&code));
    let pending =
        Code { user_id: None, username: Some(username.clone()), email, password: Some(hash) };
    let (member, links, email) = call
        .write(move |tx, _| {
            let member = crate::db::users::by_email(tx, &pending.email)?;
            if member.is_none() {
                account_codes::put(tx, &stored, Purpose::Signup, &pending, now, SIGNUP_TTL)?;
            }
            Ok::<_, ApiError>((member, mails::Links::read(tx)?, pending.email))
        })
        .await?;
    let mail = match member {
        Some(existing) => mails::already_member(&existing.username, &state),
        None => mails::sign_up(&username, &code, &links, &state),
    };
    mailer
        .send(&email, &mail.subject, mail.body)
        .map_err(|_| ApiError::Unavailable(Unavailable::Mail))?;
    Ok(json_response(StatusCode::CREATED, &json!({ "username": username, "email": email })))
}

/// `POST /api/v2/account/verify/`: `{validation_code}` of a sign-up. Makes the account
/// (400 on `username` or `email` if either was taken meanwhile) and answers 200
/// `{"user_awaiting_approval": false, "token": {access_token, token_type, expires_in}}`:
/// a JWT for the new member, valid `--token-ttl`. While staff approve new members
/// (`configurations.users_approval_enabled`), the account waits for `hearth user
/// approve` instead: `{"user_awaiting_approval": true, "token": null}`. A wrong, used or expired code is 400
/// on `validation_code` and counts as a failed sign-in of the client.
async fn verify(mut call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let body = body(&mut call, ValidationCode::FIELDS).await?;
    let hash = token::storage_hash(&ValidationCode::parse(&body)?.validation_code);
    let slot = code_slot(&call)?;
    let state = call.state().clone();
    let (now, ttl) =
        (state.clock.now(), i64::try_from(state.config.token_ttl.as_secs()).unwrap_or(3600));
    let made = call
        .write(move |tx, _| {
            let Some(code) = account_codes::take(tx, &hash, Purpose::Signup, now)? else {
                return Ok(None);
            };
            let secret = crate::db::jwt::current_secret(tx)?
                .ok_or_else(|| ApiError::internal("the database has no JWT secret"))?;
            let new = crate::db::users::NewUser {
                username: code.username.unwrap_or_default(),
                email: Some(code.email),
                password_hash: code.password,
                date_joined: now,
                ..Default::default()
            };
            if crate::db::users::username_taken(tx, &new.username)? {
                return Err(ApiError::field(
                    "username",
                    "unique",
                    "A user with that username already exists.",
                ));
            }
            if crate::db::users::email_taken(tx, new.email.as_deref().unwrap_or_default())? {
                return Err(ApiError::field(
                    "email",
                    "unique",
                    "This address already has an account.",
                ));
            }
            let id = crate::db::users::insert(tx, &new)?;
            // staff approve new members first: no sign-in until they do
            let waits = crate::db::users::approval_required(tx)?;
            if waits {
                crate::db::users::set_approved(tx, id, false)?;
            }
            Ok(Some((id, secret, waits)))
        })
        .await?;
    let Some((id, secret, waits)) = made else {
        slot.failed();
        return Err(wrong_code());
    };
    slot.cancelled();
    if waits {
        return Ok(json_response(
            StatusCode::OK,
            &json!({"user_awaiting_approval": true, "token": null}),
        ));
    }
    let jwt = token::jwt::mint(id, None, now / SECOND, ttl, &secret);
    Ok(json_response(
        StatusCode::OK,
        &json!({
            "user_awaiting_approval": false,
            "token": { "access_token": jwt, "token_type": "Bearer", "expires_in": ttl },
        }),
    ))
}

/// `POST /api/v2/account/verify/validation_code/`: `{validation_code}` of a recovery:
/// 200 `{"is_valid": bool}` (the kit's `AccountReset` asks before showing its form).
/// Changes nothing; a wrong code counts as a failed sign-in of the client.
async fn validation_code(mut call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let body = body(&mut call, ValidationCode::FIELDS).await?;
    let hash = token::storage_hash(&ValidationCode::parse(&body)?.validation_code);
    let slot = code_slot(&call)?;
    let now = call.state().clock.now();
    let valid = call
        .read(move |c, _| {
            Ok::<_, ApiError>(account_codes::peek(c, &hash, Purpose::Recover, now)?.is_some())
        })
        .await?;
    if valid {
        slot.cancelled()
    } else {
        slot.failed()
    }
    Ok(json_response(StatusCode::OK, &json!({ "is_valid": valid })))
}

/// `POST /api/v2/account/recover/`: `{email}`. 204 whatever the address: when a member
/// has it, a recovery code goes to it by mail (valid one hour; a newer one replaces it).
async fn recover(mut call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let body = body(&mut call, Recovery::FIELDS).await?;
    let mailer = call.state().mailer.clone().ok_or(ApiError::Refused(NO_RELAY))?;
    let Recovery { email } = Recovery::parse(&body)?;
    mail_slot(&call, &email)?.failed();
    let state = call.state().clone();
    let code = token::random_string(16);
    let (now, stored) = (state.clock.now(), token::storage_hash(&code));
    let member = call
        .write(move |tx, _| {
            let Some(member) = crate::db::users::by_email(tx, &email)? else { return Ok(None) };
            let open = Code {
                user_id: Some(member.id),
                username: None,
                email: member.email.clone().unwrap_or_default(),
                password: None,
            };
            account_codes::put(tx, &stored, Purpose::Recover, &open, now, RECOVER_TTL)?;
            Ok::<_, ApiError>(Some((member, mails::Links::read(tx)?)))
        })
        .await?;
    if let Some((member, links)) = member {
        let mail = mails::recover(&member.username, &code, &links, &state);
        mailer
            .send(member.email.as_deref().unwrap_or_default(), &mail.subject, mail.body)
            .map_err(|_| ApiError::Unavailable(Unavailable::Mail))?;
    }
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `POST /api/v2/account/reset/`: `{validation_code, password}`. Sets the member's
/// password, ends every sign-in it had (OAuth grants, browser sessions) and every open
/// code; 204. A wrong, used or expired code is 400 on `validation_code`.
async fn reset(mut call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let body = body(&mut call, PasswordReset::FIELDS).await?;
    let PasswordReset { validation_code, password: pw } = PasswordReset::parse(&body)?;
    let hash = token::storage_hash(&validation_code);
    let slot = code_slot(&call)?;
    let state = call.state().clone();
    let now = state.clock.now();
    // a code is checked before a password is hashed for it
    let open = call
        .read(move |c, _| {
            Ok::<_, ApiError>(account_codes::peek(c, &hash, Purpose::Recover, now)?.is_some())
        })
        .await?;
    if !open {
        slot.failed();
        return Err(wrong_code());
    }
    slot.cancelled();
    let new = state
        .hash_blocking(move || password::hash(&pw, password::DEFAULT_ITERATIONS))
        .await
        .ok_or_else(|| ApiError::internal("password hashing stopped"))?;
    call.write(move |tx, _| {
        let code = account_codes::take(tx, &hash, Purpose::Recover, now)?.ok_or_else(wrong_code)?;
        let id = code.user_id.ok_or_else(wrong_code)?;
        crate::db::users::set_password(tx, id, Some(&new))?;
        account_codes::forget_user(tx, id)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}
