//! `/media/...`: images stored in the database (user avatars and covers, course
//! images), served by path.

use warp::Filter;
use warp::http::{HeaderValue, StatusCode, header};

use crate::db;
use crate::error::ApiError;
use crate::http::{Route, bytes_response, method_not_allowed, no_slash, respond};
use crate::state::AppState;

/// `GET /media/<path>`: images stored in the database. Media paths carry a version, so
/// they are cached for a year as immutable.
pub fn routes(state: AppState) -> Route {
    warp::path("media")
        .and(warp::path::tail())
        .and(no_slash())
        .and(warp::method())
        .then(move |tail: warp::path::Tail, method: warp::http::Method| {
            let state = state.clone();
            let path = tail.as_str().to_owned();
            async move {
                if method != warp::http::Method::GET && method != warp::http::Method::HEAD {
                    return method_not_allowed("GET, HEAD");
                }
                respond(
                    state
                        .db
                        .read(move |c| db::media::get(c, &path).map_err(ApiError::from))
                        .await
                        .and_then(|m| m.ok_or(ApiError::NotFound))
                        .map(|(ct, body)| {
                            let mut r =
                                bytes_response(StatusCode::OK, "application/octet-stream", body);
                            if let Ok(v) = HeaderValue::from_str(&ct) {
                                r.headers_mut().insert(header::CONTENT_TYPE, v);
                            }
                            r.headers_mut().insert(
                                header::CACHE_CONTROL,
                                HeaderValue::from_static("public, max-age=31536000, immutable"),
                            );
                            r
                        }),
                )
            }
        })
        .boxed()
}
