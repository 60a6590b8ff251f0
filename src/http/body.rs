//! Request bodies, read by the handler (after authentication) with SPEC §3's limits.

use std::pin::Pin;

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use warp::Filter;
use warp::http::HeaderMap;
use warp::http::header::{CONTENT_LENGTH, CONTENT_TYPE};

use crate::error::ApiError;

/// Largest JSON body.
pub const JSON_LIMIT: usize = 1024 * 1024;
/// Largest multipart body.
pub const MULTIPART_LIMIT: usize = 12 * 1024 * 1024;
/// Largest form body (OAuth endpoints).
pub const FORM_LIMIT: usize = 64 * 1024;

type Chunks = Pin<Box<dyn Stream<Item = Result<Bytes, warp::Error>> + Send>>;

/// A request body that has not been read yet. In a `Mutex` so that `Req` is `Sync`
/// and handlers may hold `&Req` across an `.await`.
pub struct Body(std::sync::Mutex<Chunks>);

/// The body filter: never rejects.
pub fn stream() -> impl Filter<Extract = (Body,), Error = std::convert::Infallible> + Clone {
    warp::body::stream()
        .map(boxed)
        .or(warp::any().map(Body::empty))
        .unify()
}

fn boxed<S, B>(s: S) -> Body
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf,
{
    Body(std::sync::Mutex::new(Box::pin(
        s.map(|r| r.map(|mut b| b.copy_to_bytes(b.remaining()))),
    )))
}

impl Body {
    /// Reads the whole body, refusing more than `limit` bytes (413) whatever
    /// Content-Length claims.
    pub async fn read(self, headers: &HeaderMap, limit: usize) -> Result<Bytes, ApiError> {
        let mut chunks = self
            .0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(ApiError::PayloadTooLarge);
        }
        let mut buf = BytesMut::new();
        while let Some(chunk) = chunks.next().await {
            let chunk =
                chunk.map_err(|e| ApiError::ParseError(format!("could not read the body: {e}")))?;
            if buf.len() + chunk.len() > limit {
                return Err(ApiError::PayloadTooLarge);
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(buf.freeze())
    }
}

/// The media type of a request (lowercased, parameters dropped), if any.
pub fn media_type(headers: &HeaderMap) -> Option<String> {
    let ct = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    Some(
        ct.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
    )
}

/// Reads a JSON body: 415 unless `application/json` (or `+json`), 413 over 1 MiB, 400
/// when it does not parse into `T`.
pub async fn json<T: DeserializeOwned>(body: Body, headers: &HeaderMap) -> Result<T, ApiError> {
    match media_type(headers).as_deref() {
        Some("application/json") => {}
        Some(t) if t.starts_with("application/") && t.ends_with("+json") => {}
        _ => return Err(ApiError::UnsupportedMediaType),
    }
    let bytes = body.read(headers, JSON_LIMIT).await?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::ParseError(e.to_string()))
}

/// Reads a JSON body that must be an object (every JSON body hearth takes is one): as
/// [`json`], and 400 `parse_error` for any other JSON value.
pub async fn object(
    body: Body,
    headers: &HeaderMap,
) -> Result<serde_json::Map<String, serde_json::Value>, ApiError> {
    match json::<serde_json::Value>(body, headers).await? {
        serde_json::Value::Object(m) => Ok(m),
        _ => Err(ApiError::ParseError("expected a JSON object".into())),
    }
}

/// For routes that take no body (follow, restore, join, delete): an empty body is
/// accepted whatever its content type, and so is `{}` (the SDK sends
/// `Content-Type: application/json` with no body). Anything else is 400.
pub async fn none(body: Body, headers: &HeaderMap) -> Result<(), ApiError> {
    let bytes = body.read(headers, JSON_LIMIT).await?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(m)) if m.is_empty() => Ok(()),
        Ok(_) => Err(ApiError::ParseError("this request takes no body".into())),
        Err(e) => Err(ApiError::ParseError(e.to_string())),
    }
}

impl Body {
    /// A body with nothing in it (what is left after a handler took the real one).
    pub fn empty() -> Body {
        Body(std::sync::Mutex::new(Box::pin(
            futures_util::stream::empty(),
        )))
    }
}
