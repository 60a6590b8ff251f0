//! Single sign-on for an integration (`/api/v2/sso/`, issue 32; api-services'
//! `SSOService`). A site that has its own members makes their accounts here
//! (`signup`, staff: an admin token of the integration), mints their JWTs with the
//! community's shared secret (SPEC §4, `hearth jwt`), and a browser holding such a
//! token asks who it is (`signin`). `ext_id` is the member's id in the integration:
//! one live member's at most.

use rusqlite::Connection;
use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::account::{PASSWORD_MAX, PASSWORD_MIN};
use crate::api::call::{Call, staff, write};
use crate::api::user_providers::ext_id;
use crate::db;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{json_response, ok};
use crate::model::field::FieldError;
use crate::model::user::{role, validate_email, validate_username};
use crate::token::password;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::POST, "/api/v2/sso/signin/", "ssoSignIn", sign_in).body_limit(1024),
        staff(Method::POST, "/api/v2/sso/signup/", "ssoSignUp", sign_up)
            .body_limit(8 * 1024)
            .body::<SignUp>(),
    ]
}

/// The most tags a sign-up gives.
const TAGS_MAX: usize = 50;

/// An `ext_id` as the types have it: a number when it is one, else the text.
fn ext_id_json(ext: Option<&str>) -> Value {
    match ext {
        None => Value::Null,
        Some(e) => e.parse::<i64>().map_or_else(|_| json!(e), |n| json!(n)),
    }
}

/// `SSOSignInType` / `SSOSignUpType` of member `id` (with `email` for a sign-up).
fn member_json(c: &Connection, id: i64, with_email: bool) -> Result<Value, ApiError> {
    let u = db::users::get(c, id)?.ok_or(ApiError::NotFound)?;
    let tags: Vec<i64> = db::users::tags(c, id)?.iter().map(|t| t.id).collect();
    let mut j = json!({
        "id": u.id,
        "ext_id": ext_id_json(u.ext_id.as_deref()),
        "username": u.username,
        "role": role(u.is_staff),
        "tags": tags,
    });
    if with_email {
        j["email"] = json!(u.email);
    }
    Ok(j)
}

/// `POST /api/v2/sso/signin/` (auth, write: the house rule for a POST, though it
/// changes nothing): who the token's member is, as `SSOSignInType`
/// (`{id, ext_id, username, role, tags}`: the ids of the tags staff gave them). Takes
/// no body.
async fn sign_in(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.no_body().await;
    // the caller first: a bad token is 401 whatever the body
    let j = call.read(|c, who| member_json(c, who.user_id, false)).await?;
    body?;
    Ok(ok(&j))
}

/// What a sign-up body asks for (`SsoSignUp`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(
    as = SsoSignUp,
    description = "A member an SSO integration makes. The rules of the sign-up form hold; any other key is 400; the first fault is reported."
)]
struct SignUp {
    /// Required: 1-150 letters, digits and @.+-_ (trimmed); 400 unique when taken.
    #[schema(min_length = 1, max_length = 150)]
    username: String,
    /// Required: a mail address, at most 254 characters (trimmed); 400 unique when
    /// taken.
    #[schema(max_length = 254)]
    email: String,
    /// 8-128 characters; absent or null: the member signs in with the integration's
    /// JWTs only (or recovers a password by mail).
    #[schema(min_length = 8, max_length = 128, nullable)]
    password: Option<String>,
    /// `ext_id` (described by [`crate::model::user_provider::ext_id_or_null`]).
    #[schema(schema_with = crate::model::user_provider::ext_id_or_null)]
    ext_id: Option<String>,
    /// `role` (described by [`role_field`]): true for "admin".
    #[schema(rename = "role", schema_with = role_field, required = false)]
    staff: bool,
    /// Tag ids given to the member, at most 50; each must exist (400 otherwise).
    #[schema(max_items = 50, required = false, nullable)]
    tags: Vec<i64>,
}

/// `role`: "admin" or null.
fn role_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some([Some("admin"), None]))
        .description(Some(
            "\"admin\" (staff) or null (a member, the default): hearth has one staff role; \
             anything else is 400 invalid_choice.",
        ))
        .build()
}

fn parse(body: &Map<String, Value>) -> Result<SignUp, ApiError> {
    let allowed = ["username", "email", "password", "ext_id", "role", "tags"];
    if let Some(e) = FieldError::first_unknown(body, &allowed) {
        return Err(ApiError::Invalid(vec![e]));
    }
    let text = |key: &str| match body.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
        _ => Err(ApiError::field(key, "required", "This field is required.")),
    };
    let username = text("username")?;
    validate_username(&username).map_err(|m| ApiError::field("username", "invalid", m))?;
    let email = text("email")?;
    validate_email(&email).map_err(|m| ApiError::field("email", "invalid", m))?;
    let password = match body.get("password") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if (PASSWORD_MIN..=PASSWORD_MAX).contains(&p.chars().count()) => {
            Some(p.clone())
        }
        Some(_) => {
            return Err(ApiError::field(
                "password",
                "invalid",
                format!("A password has {PASSWORD_MIN} to {PASSWORD_MAX} characters."),
            ));
        }
    };
    let staff = match body.get("role") {
        None | Some(Value::Null) => false,
        Some(Value::String(r)) if r == "admin" => true,
        Some(_) => {
            return Err(ApiError::field(
                "role",
                "invalid_choice",
                "role is \"admin\" (staff) or null: hearth has one staff role.",
            ));
        }
    };
    let tags = match body.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) if a.len() <= TAGS_MAX => a
            .iter()
            .map(Value::as_i64)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| ApiError::field("tags", "invalid", "tags is a list of tag ids."))?,
        Some(_) => {
            return Err(ApiError::field(
                "tags",
                "invalid",
                format!("tags is a list of at most {TAGS_MAX} tag ids."),
            ));
        }
    };
    Ok(SignUp { username, email, password, ext_id: ext_id(body, "ext_id")?, staff, tags })
}

/// `POST /api/v2/sso/signup/` (staff): makes a member
/// (`{username, email, password?, ext_id?, role?, tags?}`) and answers 201
/// `SSOSignUpType`. The rules of the sign-up form hold (SPEC §4 usernames, mail
/// addresses, password length); a taken username, address or `ext_id` is 400 on its
/// field; `role` is `"admin"` (staff) or null; each tag must exist. Without a password
/// the member signs in with the integration's JWTs only (or recovers one by mail).
async fn sign_up(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    call.read(|_, _| Ok::<_, ApiError>(())).await?;
    let s = parse(&body?)?;
    let state = call.state().clone();
    let hash = match s.password.clone() {
        None => None,
        Some(pw) => Some(
            state
                .hash_blocking(move || password::hash(&pw, password::DEFAULT_ITERATIONS))
                .await
                .ok_or_else(|| ApiError::internal("password hashing stopped"))?,
        ),
    };
    let now = call.now;
    let j = call
        .write(move |tx, _| {
            if db::users::username_taken(tx, &s.username)? {
                return Err(ApiError::field(
                    "username",
                    "unique",
                    "A user with that username already exists.",
                ));
            }
            if db::users::email_taken(tx, &s.email)? {
                return Err(ApiError::field(
                    "email",
                    "unique",
                    "A user with that email already exists.",
                ));
            }
            if let Some(e) = &s.ext_id
                && db::user_providers::ext_id_owner(tx, e)?.is_some()
            {
                return Err(ApiError::field(
                    "ext_id",
                    "unique",
                    "A member with that ext_id already exists.",
                ));
            }
            for t in &s.tags {
                if db::tags::get(tx, *t)?.is_none_or(|t| t.deleted) {
                    return Err(ApiError::field("tags", "invalid", format!("No tag has id {t}.")));
                }
            }
            let id = db::users::insert(
                tx,
                &db::users::NewUser {
                    id: None,
                    username: s.username,
                    email: Some(s.email),
                    real_name: String::new(),
                    password_hash: hash,
                    is_staff: s.staff,
                    ext_id: s.ext_id,
                    date_joined: now,
                },
            )?;
            for t in &s.tags {
                db::tags::assign(tx, *t, id)?;
            }
            member_json(tx, id, true)
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &j))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_beside};

    /// The first fault only: each property is tried beside a valid body.
    #[test]
    fn every_documented_field_is_read() {
        let valid = json!({"username": "ann", "email": "a@b.org"});
        let unread =
            unread_properties_beside::<SignUp>(valid.as_object().unwrap_or(&Map::new()), |m| {
                invalid_fields(parse(m))
            });
        assert!(unread.is_empty(), "{unread:?}");
    }
}
