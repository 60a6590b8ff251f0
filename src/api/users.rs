//! `/api/v2/user/...`: the caller, users, followings and followers.

use warp::Filter;
use warp::http::Method;

use crate::error::ApiError;
use crate::http::{Req, Route, auth, method_not_allowed, ok, request, respond, slash};
use crate::state::AppState;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    me(state)
}

/// `GET /api/v2/user/me/`: the caller as User JSON plus `email`.
fn me(state: AppState) -> Route {
    warp::path!("api" / "v2" / "user" / "me")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            if req.method != Method::GET && req.method != Method::HEAD {
                return method_not_allowed("GET, HEAD");
            }
            respond(get_me(req).await)
        })
        .boxed()
}

async fn get_me(req: Req) -> Result<warp::reply::Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let base = req.state.config.public_url.clone();
    let json = req
        .state
        .db
        .read(move |c| {
            let who = auth::require(c, &creds, now)?;
            let user =
                crate::db::users::get(c, who.user_id)?.ok_or(ApiError::AuthenticationFailed)?;
            let mut j = user.to_json(&base, false, crate::db::users::tags(c, user.id)?);
            j.email = Some(user.email.clone().unwrap_or_default());
            Ok::<_, ApiError>(j)
        })
        .await?;
    Ok(ok(&json))
}
