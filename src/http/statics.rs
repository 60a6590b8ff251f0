//! Static files built into the binary: the reaction images and the default avatar,
//! cover and course images. (`/media/...`, the images stored in the database, is served
//! by the handler layer: `api::media`.)

use warp::http::{HeaderValue, Method, StatusCode, header};
use warp::reply::Response;

use super::bytes_response;
use super::route::{Auth, Endpoint};
use crate::error::ApiError;

/// (path under /static/, content type, bytes)
const FILES: &[(&str, &str, &[u8])] = &[
    ("reactions/like.svg", "image/svg+xml", include_bytes!("../../static/reactions/like.svg")),
    ("reactions/love.svg", "image/svg+xml", include_bytes!("../../static/reactions/love.svg")),
    ("reactions/haha.svg", "image/svg+xml", include_bytes!("../../static/reactions/haha.svg")),
    ("reactions/wow.svg", "image/svg+xml", include_bytes!("../../static/reactions/wow.svg")),
    ("reactions/sad.svg", "image/svg+xml", include_bytes!("../../static/reactions/sad.svg")),
    ("reactions/angry.svg", "image/svg+xml", include_bytes!("../../static/reactions/angry.svg")),
    (
        "reactions/default.svg",
        "image/svg+xml",
        include_bytes!("../../static/reactions/default.svg"),
    ),
    ("default/avatar.svg", "image/svg+xml", include_bytes!("../../static/default/avatar.svg")),
    ("default/cover.svg", "image/svg+xml", include_bytes!("../../static/default/cover.svg")),
    ("default/course.svg", "image/svg+xml", include_bytes!("../../static/default/course.svg")),
    ("default/category.svg", "image/svg+xml", include_bytes!("../../static/default/category.svg")),
    ("default/app.svg", "image/svg+xml", include_bytes!("../../static/default/app.svg")),
    ("default/logo.svg", "image/svg+xml", include_bytes!("../../static/default/logo.svg")),
];

/// The endpoints of this module (declared here, below the API layer: nothing of it is
/// needed to serve a built-in file).
pub fn endpoints() -> Vec<Endpoint> {
    vec![Endpoint::new(
        Method::GET,
        "/static/{*path}",
        Auth::None,
        "getStaticFile",
        |_req, params| async move { file(params.tail()) },
    )]
}

/// `GET /static/<path>`: built-in files, cached for a day.
fn file(path: &str) -> Response {
    match FILES.iter().find(|(p, ..)| *p == path) {
        Some((_, ct, body)) => {
            let mut r = bytes_response(StatusCode::OK, ct, *body);
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=86400"));
            r
        }
        None => ApiError::NotFound.to_response(),
    }
}
