//! Request bodies, read by the handler (after authentication) with SPEC §3's limits:
//! one reader for JSON, forms and multipart alike enforces the size limit (the
//! reader's, or the route's own), the body timeout (counted from the end of the
//! headers), a minimum rate once a body has had a second to start, and the shared
//! memory budget with each client address's share of it.

use bytes::{Bytes, BytesMut};
use futures_util::FutureExt;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use serde::de::DeserializeOwned;
use warp::http::HeaderMap;
use warp::http::header::{CONTENT_LENGTH, CONTENT_TYPE};

use crate::config::MIN_BODY_RATE_GRACE;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::limits::AddrKey;
use crate::limits::budget::{Budget, Permit};

/// Largest JSON body.
pub const JSON_LIMIT: usize = 1024 * 1024;
/// Largest multipart body.
pub const MULTIPART_LIMIT: usize = 12 * 1024 * 1024;
/// Largest form body (the OAuth endpoints and the login and consent pages): the
/// largest field one carries is a JWT at `/oauth/revoke_token/` (8 KiB, SPEC §6), so
/// an anonymous client cannot reserve more of the memory budget than that needs.
pub const FORM_LIMIT: usize = 16 * 1024;

/// Where a body's bytes come from: the connection, or nowhere.
enum Chunks {
    Empty,
    Incoming(Incoming),
}

impl Chunks {
    /// The next chunk of data (trailers are skipped), `None` at the end.
    async fn next(&mut self) -> Option<Result<Bytes, hyper::Error>> {
        let Chunks::Incoming(body) = self else {
            return None;
        };
        loop {
            match body.frame().await? {
                Ok(frame) => match frame.into_data() {
                    Ok(data) => return Some(Ok(data)),
                    Err(_trailers) => {}
                },
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// When the request's headers were complete (put in the request extensions by the
/// server): the body timeout counts from here.
#[derive(Debug, Clone, Copy)]
pub struct HeadersDone(pub tokio::time::Instant);

/// A request body that has not been read yet, with what reading it may cost. The
/// stream is in a `Mutex` so that `Req` is `Sync` and handlers may hold `&Req` across
/// an `.await`.
///
/// A body starts locked: it can only be read once the handler has said who may send
/// it, with the API's `before_body` (in `api::auth`) or [`Body::authorised`] on a
/// protected route, or [`Body::public`] on a route that takes no authentication. So no route can
/// read a body before authenticating its caller (SPEC §3): one that tries answers 500
/// in every test that sends it a body.
pub struct Body {
    chunks: std::sync::Mutex<Chunks>,
    budget: Option<Budget>,
    deadline: Option<tokio::time::Instant>,
    /// When the headers were complete, and the least rate (bytes a second, 0: none)
    /// the body must then average after [`MIN_BODY_RATE_GRACE`].
    rate: Option<(tokio::time::Instant, u64)>,
    unlocked: bool,
    /// The route's own limit ([`crate::http::route::Endpoint::body_limit`]).
    cap: usize,
    /// Whose share of the budget the body counts in (the client address).
    owner: Option<AddrKey>,
    /// Where the bytes read are added up ([`Body::metered`]).
    meter: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

/// A body read whole, holding its bytes against the memory budget until dropped.
#[derive(Debug)]
pub struct Held {
    bytes: Bytes,
    permit: Option<Permit>,
}

impl Held {
    /// The bytes (a cheap, reference-counted handle).
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Splits into the bytes and the permit that accounts for them: keep the permit
    /// for as long as the bytes (or what they are turned into) are held.
    pub fn into_parts(self) -> (Bytes, Option<Permit>) {
        (self.bytes, self.permit)
    }
}

impl std::ops::Deref for Held {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Body {
    /// The body of a request whose headers were complete at `headers_done`, not yet
    /// read, with the server's limits (SPEC §3).
    pub fn incoming(
        body: Incoming,
        headers_done: Option<tokio::time::Instant>,
        budget: &Budget,
        timeout: std::time::Duration,
        min_rate: u64,
    ) -> Body {
        let start = headers_done.unwrap_or_else(tokio::time::Instant::now);
        Body {
            chunks: std::sync::Mutex::new(Chunks::Incoming(body)),
            budget: Some(budget.clone()),
            deadline: Some(start + timeout),
            rate: (min_rate > 0).then_some((start, min_rate)),
            unlocked: false,
            cap: usize::MAX,
            owner: None,
            meter: None,
        }
    }
}

impl Body {
    /// Reads the whole body: 413 over `limit` bytes (or the route's smaller
    /// [`Body::cap`]) whatever Content-Length claims
    /// (and before reading anything when it claims more); 408 when it has not arrived
    /// within the body timeout; 503 when holding it would pass the memory budget
    /// (a declared length is reserved up front, so a held body is accounted before its
    /// bytes arrive), or past its client address's share of it ([`Body::owned_by`]).
    pub async fn read(self, headers: &HeaderMap, limit: usize) -> Result<Held, ApiError> {
        let limit = limit.min(self.cap);
        if !self.unlocked {
            return Err(ApiError::internal(
                "a request body was read before its caller was authorised",
            ));
        }
        if declares_none(headers) {
            // nothing to wait for and nothing to hold (restore, follow, join...)
            return Ok(Held { bytes: Bytes::new(), permit: None });
        }
        let mut chunks =
            self.chunks.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Err(ApiError::PayloadTooLarge);
        }
        let declared = declared.and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
        let mut permit = match &self.budget {
            Some(b) => {
                let mut p = match self.owner {
                    Some(owner) => b.none_for(owner),
                    None => b.none(),
                };
                p.grow(declared)?;
                Some(p)
            }
            None => None,
        };
        let mut buf = BytesMut::with_capacity(declared);
        loop {
            // a chunk already here needs no timer (most bodies arrive with their
            // headers); only a body that makes us wait is timed
            let next = match chunks.next().now_or_never() {
                Some(next) => next,
                None => match wait_until(self.deadline, self.rate, buf.len()) {
                    Some(d) => tokio::time::timeout_at(d, chunks.next())
                        .await
                        .map_err(|_| ApiError::RequestTimeout)?,
                    None => chunks.next().await,
                },
            };
            let Some(chunk) = next else { break };
            let chunk =
                chunk.map_err(|e| ApiError::ParseError(format!("could not read the body: {e}")))?;
            let len = buf.len() + chunk.len();
            if len > limit {
                return Err(ApiError::PayloadTooLarge);
            }
            if let Some(p) = &mut permit {
                // a body longer than declared (or chunked) grows its share as it comes
                p.grow(len.saturating_sub(p.bytes()))?;
            }
            buf.extend_from_slice(&chunk);
        }
        if let Some(m) = &self.meter {
            m.fetch_add(
                u64::try_from(buf.len()).unwrap_or(u64::MAX),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        Ok(Held { bytes: buf.freeze(), permit })
    }
}

/// When a body's next chunk must have come, with `received` bytes so far: the body
/// timeout (`deadline`), or sooner where the minimum rate says so (the grace, then one
/// second for each `rate` bytes received).
fn wait_until(
    deadline: Option<tokio::time::Instant>,
    rate: Option<(tokio::time::Instant, u64)>,
    received: usize,
) -> Option<tokio::time::Instant> {
    let rate_deadline = rate.and_then(|(start, rate)| {
        let micros = u64::try_from(received)
            .unwrap_or(u64::MAX)
            .saturating_mul(1_000_000)
            .checked_div(rate)
            .unwrap_or(u64::MAX);
        // past any real deadline: None (no Instant overflow)
        start.checked_add(
            std::time::Duration::from_micros(micros).saturating_add(MIN_BODY_RATE_GRACE),
        )
    });
    match (deadline, rate_deadline) {
        (Some(d), Some(r)) => Some(d.min(r)),
        (d, r) => d.or(r),
    }
}

/// The media type of a request (lowercased, parameters dropped), if any.
pub fn media_type(headers: &HeaderMap) -> Option<String> {
    let ct = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    Some(ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
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

/// The documented body of a route read with [`none`] (`NoBody`): nothing, or `{}`.
pub struct NoBody;

impl utoipa::PartialSchema for NoBody {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Object)
            .max_properties(Some(0))
            .description(Some(
                "No body: an empty body (any content type) or `{}`. Anything else is 400.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for NoBody {
    fn name() -> std::borrow::Cow<'static, str> {
        "NoBody".into()
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
        Body {
            chunks: std::sync::Mutex::new(Chunks::Empty),
            budget: None,
            deadline: None,
            rate: None,
            unlocked: true,
            cap: usize::MAX,
            owner: None,
            meter: None,
        }
    }

    /// Allows reading the body of a route that takes no authentication (the OAuth
    /// endpoints, `verify_token`).
    pub fn public(&mut self) {
        self.unlocked = true;
    }

    /// Caps what [`Body::read`] accepts at `limit` bytes (the route's own limit).
    pub fn cap(&mut self, limit: usize) {
        self.cap = self.cap.min(limit);
    }

    /// Counts the body in `owner`'s share of the memory budget (the request filter
    /// does this for every request that declares a body).
    pub fn owned_by(&mut self, owner: AddrKey) {
        self.owner = Some(owner);
    }

    /// Adds the length of the body, once read whole, to `meter` (what a write's body
    /// costs in its user's daily budget, [`crate::limits::writes`]).
    pub fn metered(&mut self, meter: std::sync::Arc<std::sync::atomic::AtomicU64>) {
        self.meter = Some(meter);
    }

    /// Allows reading the body once its caller is known.
    pub fn authorised(&mut self, _caller: &Principal) {
        self.unlocked = true;
    }

    /// Allows reading the body: only for the API's `before_body` (in `api::auth`), which
    /// has checked the caller's token without a [`Principal`] to show for it.
    pub(crate) fn unlock(&mut self) {
        self.unlocked = true;
    }
}

/// Whether the request says it has no body: `Content-Length: 0`, or neither a length
/// nor a transfer coding (RFC 9112 §6.3: such a request has no body).
pub fn declares_none(headers: &HeaderMap) -> bool {
    match headers.get(CONTENT_LENGTH) {
        Some(v) => v.as_bytes() == b"0",
        None => !headers.contains_key(warp::http::header::TRANSFER_ENCODING),
    }
}
