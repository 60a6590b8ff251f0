//! `/media/...`: images stored in the database (user avatars and covers, course
//! images), served by path.

use warp::http::{HeaderValue, Method, StatusCode, header};
use warp::reply::Response;

use crate::api::call::{Call, anonymous};
use crate::db;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::bytes_response;
use crate::http::route::Endpoint;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![anonymous(Method::GET, "/media/{*path}", "getMedia", get_media)]
}

/// `GET /media/<path>`: images stored in the database. Media paths carry a version, so
/// they are cached for a year as immutable. No caller is resolved: a bearer token is
/// ignored.
async fn get_media(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let path = call.params.tail().to_owned();
    let (ct, body) = call
        .state()
        .db
        .read(move |c| db::media::get(c, &path).map_err(ApiError::from))
        .await?
        .ok_or(ApiError::NotFound)?;
    let mut r = bytes_response(StatusCode::OK, "application/octet-stream", body);
    if let Ok(v) = HeaderValue::from_str(&ct) {
        r.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    r.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    Ok(r)
}
