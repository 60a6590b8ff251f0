//! Static files built into the binary: the reaction images and the default avatar,
//! cover and course images. (`/media/...`, the images stored in the database, is served
//! by the handler layer: `api::media`.)

use warp::Filter;
use warp::http::{HeaderValue, StatusCode, header};

use super::{Route, bytes_response};
use crate::error::ApiError;

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
        "default/category.svg",
        "image/svg+xml",
        include_bytes!("../../static/default/category.svg"),
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
