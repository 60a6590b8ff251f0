//! Form bodies (`application/x-www-form-urlencoded`): the OAuth token and revocation
//! endpoints and the browser pages' forms. One reader for all of them, with the body
//! limits of [`super::body`]; each caller decides how its failures look (an HTML page
//! for the browser pages, RFC 6749 JSON for the token and revocation endpoints).

use warp::http::HeaderMap;

use crate::config::MAX_OAUTH_PARAMS;
use crate::error::ApiError;
use crate::http::Req;
use crate::http::body::{Body, FORM_LIMIT, media_type};
use crate::http::query::Query;

/// The one media type a form is posted as.
pub const MEDIA_TYPE: &str = "application/x-www-form-urlencoded";

/// Whether the request body is a form.
pub fn is_form(headers: &HeaderMap) -> bool {
    media_type(headers).as_deref() == Some(MEDIA_TYPE)
}

/// Reads the form body of `req` (which its handler has unlocked, see [`Body`]): 415
/// unless it is posted as a form (before anything is read), then as [`Body::read`] with
/// [`FORM_LIMIT`]: 413 over it, 408 when it does not arrive in time, 503 over the
/// memory budget; then 400 ([`ApiError::TooManyParameters`]) over
/// [`MAX_OAUTH_PARAMS`] fields, counted before anything is decoded. Bytes that are not
/// UTF-8 are decoded lossily: a field that needed them then fails its own check.
pub async fn read(req: &mut Req) -> Result<Query, ApiError> {
    if !is_form(&req.headers) {
        return Err(ApiError::UnsupportedMediaType);
    }
    let body = std::mem::replace(&mut req.body, Body::empty());
    let bytes = body.read(&req.headers, FORM_LIMIT).await?;
    Query::parse_at_most(&String::from_utf8_lossy(&bytes), MAX_OAUTH_PARAMS)
}
