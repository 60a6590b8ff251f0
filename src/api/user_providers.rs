//! Identities elsewhere linked to a member (`/api/v2/user/{id}/provider/`, issue 32;
//! the kit's account settings list them, `UserSocialAssociation`). hearth has no
//! social sign-in of its own, so it cannot check that a member owns an account
//! elsewhere: staff link identities (an SSO integration's ids, a known profile), the
//! member and staff read them, and either removes one. Why, in docs/decisions.md
//! ("Provider associations and SSO").

use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, staff, user, write};
use crate::db::user_providers::{self, Association, Refused};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::field::FieldError;
use crate::model::user_provider;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    const PATH: &str = "/api/v2/user/{id}/provider/";
    vec![
        user(Method::GET, PATH, "listUserProviders", list),
        staff(Method::POST, PATH, "createUserProvider", create)
            .body_limit(8 * 1024)
            .body::<Association>(),
        write(Method::DELETE, PATH, "deleteUserProvider", delete)
            .body_limit(1024)
            .body::<ProviderRef>(),
    ]
}

/// `SCUserProviderAssociationType`.
fn association_json(a: &Association) -> Value {
    json!({
        "user_id": a.user_id,
        "provider": a.provider,
        "ext_id": a.ext_id,
        "profile_url": a.profile_url,
        "show_in_profile": a.show_in_profile,
        "metadata": a.metadata.as_deref().and_then(|m| serde_json::from_str::<Value>(m).ok()),
    })
}

/// `{id}` is the caller or the caller is staff (403 otherwise), and a live member (404).
fn own_or_staff(c: &rusqlite::Connection, who: &Principal, id: i64) -> Result<(), ApiError> {
    if who.user_id != id && !who.is_staff {
        return Err(ApiError::PermissionDenied);
    }
    if !crate::db::users::is_live(c, id)? {
        return Err(ApiError::NotFound);
    }
    Ok(())
}

/// `GET /api/v2/user/{id}/provider/` (auth: the member or staff): a plain array of the
/// member's identities, by provider.
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let all = call
        .read(move |c, who| {
            own_or_staff(c, &who, id)?;
            Ok::<_, ApiError>(user_providers::of_user(c, id)?)
        })
        .await?;
    Ok(ok(&all.iter().map(association_json).collect::<Vec<_>>()))
}

/// A body's `provider` ([`user_provider::check_provider`]).
fn provider(body: &Map<String, Value>) -> Result<String, ApiError> {
    match body.get("provider").and_then(Value::as_str) {
        None => Err(ApiError::field("provider", "required", "This field is required.")),
        Some(p) => {
            user_provider::check_provider(p)
                .map_err(|m| ApiError::field("provider", "invalid", m))?;
            Ok(p.to_owned())
        }
    }
}

/// A body's `user_id`, when given, is `{id}` (400 on the field otherwise).
fn same_user(body: &Map<String, Value>, id: i64) -> Result<(), ApiError> {
    match body.get("user_id") {
        None | Some(Value::Null) => Ok(()),
        Some(v) if v.as_i64() == Some(id) || v.as_str() == Some(id.to_string().as_str()) => Ok(()),
        Some(_) => Err(ApiError::field("user_id", "invalid", "user_id is the member of the URL.")),
    }
}

/// A body's external id ([`user_provider::ext_id`]); `None` when absent or null.
pub fn ext_id(body: &Map<String, Value>, field: &str) -> Result<Option<String>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            user_provider::ext_id(v).map(Some).map_err(|m| ApiError::field(field, "invalid", m))
        }
    }
}

/// The identity a `POST` body describes (for member `id`).
fn parse(body: &Map<String, Value>, id: i64) -> Result<Association, ApiError> {
    let allowed = ["user_id", "provider", "ext_id", "profile_url", "show_in_profile", "metadata"];
    if let Some(e) = FieldError::first_unknown(body, &allowed) {
        return Err(ApiError::Invalid(vec![e]));
    }
    same_user(body, id)?;
    let provider = provider(body)?;
    let ext_id = ext_id(body, "ext_id")?
        .ok_or_else(|| ApiError::field("ext_id", "required", "This field is required."))?;
    let profile_url = match body.get("profile_url") {
        None | Some(Value::Null) => None,
        Some(Value::String(u)) if u.is_empty() => None,
        Some(Value::String(u)) if user_provider::check_profile_url(u).is_ok() => Some(u.clone()),
        Some(_) => {
            return Err(ApiError::field(
                "profile_url",
                "invalid",
                "profile_url is an http(s) URL.",
            ));
        }
    };
    let show_in_profile = match body.get("show_in_profile") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ApiError::field("show_in_profile", "invalid", "Must be a valid boolean."));
        }
    };
    let metadata = match body.get("metadata") {
        None | Some(Value::Null) => None,
        Some(m) => Some(
            user_provider::metadata(m).map_err(|e| ApiError::field("metadata", "invalid", e))?,
        ),
    };
    Ok(Association { user_id: id, provider, ext_id, profile_url, show_in_profile, metadata })
}

/// `POST /api/v2/user/{id}/provider/` (staff): links an identity
/// (`{provider, ext_id, profile_url?, show_in_profile?, metadata?}`; `user_id`, when
/// sent, is `{id}`); 201 with it. The member's second identity at a provider, an
/// external id linked already, and a member's 17th identity are 400.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let (id, now) = (call.id(), call.now);
    call.read(move |c, who| own_or_staff(c, &who, id)).await?;
    let a = parse(&body?, id)?;
    let a = call
        .write(move |tx, who| {
            own_or_staff(tx, &who, id)?;
            match user_providers::insert(tx, &a, now)? {
                Ok(()) => Ok(a),
                Err(Refused::Linked) => Err(ApiError::field(
                    "provider",
                    "unique",
                    "This member has an identity at this provider already.",
                )),
                Err(Refused::Taken) => Err(ApiError::field(
                    "ext_id",
                    "unique",
                    "This identity is linked to a member already.",
                )),
                Err(Refused::Full) => Err(ApiError::field(
                    "provider",
                    "invalid",
                    format!(
                        "A member has at most {} linked identities.",
                        user_providers::MAX_PER_USER
                    ),
                )),
            }
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &association_json(&a)))
}

/// The body of an unlink (`UserProviderRef`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = UserProviderRef, description = "The identity to unlink; any other key is 400.")]
struct ProviderRef {
    /// Required: the provider (1-32 of a-z, 0-9, _ and -).
    #[schema(min_length = 1, max_length = 32, pattern = "^[a-z0-9_-]{1,32}$")]
    provider: String,
    /// The member of the URL, when sent (400 otherwise).
    #[schema(rename = "user_id", required = false)]
    _user_id: i64,
}

impl ProviderRef {
    /// The identity of member `id` a `DELETE` body names.
    fn parse(body: &Map<String, Value>, id: i64) -> Result<Self, ApiError> {
        if let Some(e) = FieldError::first_unknown(body, &["user_id", "provider"]) {
            return Err(ApiError::Invalid(vec![e]));
        }
        same_user(body, id)?;
        Ok(ProviderRef { provider: provider(body)?, _user_id: id })
    }
}

/// `DELETE /api/v2/user/{id}/provider/` (auth, write: the member or staff):
/// `{provider}` (and `user_id`, when sent, `{id}`) unlinks that identity; 204, or 404
/// when there is none.
async fn delete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let id = call.id();
    call.read(move |c, who| own_or_staff(c, &who, id)).await?;
    let ProviderRef { provider, .. } = ProviderRef::parse(&body?, id)?;
    call.write(move |tx, who| {
        own_or_staff(tx, &who, id)?;
        if user_providers::delete(tx, id, &provider)? { Ok(()) } else { Err(ApiError::NotFound) }
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_beside};

    /// The first fault only: each property is tried beside a valid body. `metadata`
    /// takes an object, so the object every other property refuses is no fault there: it
    /// is shown read by a refused array.
    #[test]
    fn every_documented_field_is_read() {
        let valid = json!({"provider": "google", "ext_id": "g-1"});
        let valid = valid.as_object().cloned().unwrap_or_default();
        let unread =
            unread_properties_beside::<Association>(&valid, |m| invalid_fields(parse(m, 1)));
        assert_eq!(unread, ["metadata"]);
        let mut bad = valid.clone();
        bad.insert("metadata".into(), json!([]));
        let e = invalid_fields(parse(&bad, 1));
        assert_eq!(e.first().map(|e| e.field.as_str()), Some("metadata"));
        let unread = unread_properties_beside::<ProviderRef>(&valid_ref(), |m| {
            invalid_fields(ProviderRef::parse(m, 1))
        });
        assert!(unread.is_empty(), "{unread:?}");
    }

    fn valid_ref() -> Map<String, Value> {
        json!({"provider": "google"}).as_object().cloned().unwrap_or_default()
    }
}
