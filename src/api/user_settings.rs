//! `GET|PATCH /api/v2/user/{id}/settings/` (SPEC §8): the caller's own settings
//! (`model::settings` has them, their defaults and what each accepts).

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::db::user_settings;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::route::Endpoint;
use crate::model::settings;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/user/{id}/settings/", "getUserSettings", get),
        write(Method::PATCH, "/api/v2/user/{id}/settings/", "updateUserSettings", update)
            .body::<settings::SettingsPatch>(),
    ]
}

/// Only the caller's own settings: 403 for any other id (whether or not it exists).
fn own(id: i64, who: Principal) -> Result<Principal, ApiError> {
    if id == who.user_id { Ok(who) } else { Err(ApiError::PermissionDenied) }
}

/// `GET /api/v2/user/{id}/settings/` (auth, own id).
async fn get(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            own(id, who)?;
            Ok::<_, ApiError>(settings::to_json(&user_settings::stored(c, id)?))
        })
        .await?;
    Ok(ok(&json))
}

/// `PATCH /api/v2/user/{id}/settings/` (auth, write, own id): each key must be a
/// setting and its value an integer the setting accepts, else 400 on that key; all or
/// nothing; 200 with the whole object.
async fn update(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    // whose settings these are is answered before anything about the body
    let who = call.read(move |_c, who| own(id, who)).await?;
    call.req.body.authorised(&who);
    let checked = settings::validate(&call.object().await?).map_err(ApiError::Invalid)?;
    let json = call
        .write(move |tx, who| {
            own(id, who)?;
            user_settings::set(tx, id, &checked)?;
            Ok::<_, ApiError>(settings::to_json(&user_settings::stored(tx, id)?))
        })
        .await?;
    Ok(ok(&json))
}
