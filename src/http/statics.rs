//! Static files built into the binary: the reaction images and the default avatar,
//! cover and course images. And `/media/...`: images stored in the database.

use warp::Filter;
use warp::http::{HeaderValue, StatusCode, header};

use super::{Route, bytes_response, respond};
use crate::error::ApiError;
use crate::state::AppState;

/// (path under /static/, content type, bytes)
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "reactions/like.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/like.svg"),
    ),
    (
        "reactions/love.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/love.svg"),
    ),
    (
        "reactions/haha.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/haha.svg"),
    ),
    (
        "reactions/wow.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/wow.svg"),
    ),
    (
        "reactions/sad.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/sad.svg"),
    ),
    (
        "reactions/angry.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/angry.svg"),
    ),
    (
        "reactions/default.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/default.svg"),
    ),
    (
        "default/avatar.svg",
        "image/svg+xml",
        include_bytes!("../../static/default/avatar.svg"),
    ),
    (
        "default/cover.svg",
        "image/svg+xml",
        include_bytes!("../../static/default/cover.svg"),
    ),
    (
        "default/course.svg",
        "image/svg+xml",
        include_bytes!("../../static/default/course.svg"),
    ),
    (
        "default/app.svg",
        "image/svg+xml",
        include_bytes!("../../static/default/app.svg"),
    ),
];

/// `GET /static/<path>`: built-in files, cached for a day.
pub fn static_files() -> Route {
    warp::path("static")
        .and(warp::path::tail())
        .and(super::no_slash())
        .and(warp::method())
        .map(|tail: warp::path::Tail, method: warp::http::Method| {
            if method != warp::http::Method::GET && method != warp::http::Method::HEAD {
                return super::method_not_allowed("GET, HEAD");
            }
            match FILES.iter().find(|(p, ..)| *p == tail.as_str()) {
                Some((_, ct, body)) => {
                    let mut r = bytes_response(StatusCode::OK, ct, *body);
                    r.headers_mut().insert(
                        header::CACHE_CONTROL,
                        HeaderValue::from_static("public, max-age=86400"),
                    );
                    r
                }
                None => ApiError::NotFound.to_response(),
            }
        })
        .boxed()
}

/// `GET /media/<path>`: images stored in the database. Media paths carry a version, so
/// they are cached for a year as immutable.
pub fn media(state: AppState) -> Route {
    warp::path("media")
        .and(warp::path::tail())
        .and(super::no_slash())
        .and(warp::method())
        .then(move |tail: warp::path::Tail, method: warp::http::Method| {
            let state = state.clone();
            let path = tail.as_str().to_owned();
            async move {
                if method != warp::http::Method::GET && method != warp::http::Method::HEAD {
                    return super::method_not_allowed("GET, HEAD");
                }
                respond(
                    state
                        .db
                        .read(move |c| crate::db::media::get(c, &path).map_err(ApiError::from))
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
