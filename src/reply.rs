//! The plain response builders that both the HTTP layer and [`crate::error`] use: a
//! body with its content type, an empty body. No routing and no error mapping here, so
//! that `error` can build its JSON answer without importing `http`.

use bytes::Bytes;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

/// The JSON content type of every API response.
pub const JSON: &str = "application/json; charset=utf-8";

/// A response with a body and a content type.
pub fn bytes_response(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response {
    let mut resp = Response::new(body.into().into());
    *resp.status_mut() = status;
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}

/// A response with no body (204, or 200/401 for `verify_token`).
pub fn empty(status: StatusCode) -> Response {
    let mut resp = Response::new(Bytes::new().into());
    *resp.status_mut() = status;
    resp
}
