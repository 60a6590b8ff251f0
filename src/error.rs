//! One error type for the JSON API and its single mapping to a status and body
//! (SPEC §3): `{"detail": ..., "errors": [...]}`. 4xx errors tell the client exactly
//! what was wrong; a 500 says nothing of its cause, which is logged instead.

use serde_json::json;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

use crate::model::field::FieldError;

/// Why a request is answered 503.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// The database cannot take writes (disk full, read-only, I/O error, locked).
    Storage,
    /// The request bodies held in memory are at their budget.
    Memory,
    /// A read replica's copy of the database must not be served now (issue 28).
    Copy(crate::db::CopyFault),
    /// Litestream has not replicated this primary's recent writes within
    /// `serve --replication-lag-limit` (SPEC §9): writes wait until it has.
    NotReplicated,
    /// The live sockets are at `--max-sockets` (or the address's share).
    Sockets,
    /// A read replica serves no live sockets (`api::live`).
    ReplicaSocket,
    /// The mail queue to the SMTP relay is full (`crate::mail`).
    Mail,
}

impl Unavailable {
    /// `Retry-After` seconds.
    pub fn retry_after(self) -> u64 {
        match self {
            Unavailable::Storage => 30,
            Unavailable::Memory | Unavailable::Copy(_) | Unavailable::NotReplicated => 5,
            Unavailable::Sockets | Unavailable::ReplicaSocket | Unavailable::Mail => 30,
        }
    }
}

/// Marks a response that is a storage fault's 503 (in its extensions).
#[derive(Debug, Clone, Copy)]
pub struct StorageFaulted;

/// Every error a `/api/v2/` route can answer with.
#[derive(Debug)]
pub enum ApiError {
    /// 401: no credentials on a route that needs them.
    NotAuthenticated,
    /// 401: a token was sent but is invalid, expired, revoked or malformed.
    AuthenticationFailed,
    /// 403: authenticated but not allowed.
    PermissionDenied,
    /// 403: the token lacks the `write` scope (RFC 6750 §3.1).
    InsufficientScope,
    /// 403 `permission_denied` with its own message: a feature this server has off
    /// (sign-up without a mail relay), a member whom staff blocked.
    Refused(&'static str),
    /// 403: a CORS preflight from an origin `serve --cors-origin` does not allow.
    OriginNotAllowed,
    /// 404.
    NotFound,
    /// 405, with the `Allow` header value.
    MethodNotAllowed(String),
    /// 400: the body is not valid JSON (or not the expected shape).
    ParseError(String),
    /// 400 `parse_error`: a query string or form with more parameters than the limit
    /// ([`crate::config::MAX_PARAMS`]).
    TooManyParameters(usize),
    /// 400 `parse_error`: a request malformed at the HTTP level (the why is shown), e.g.
    /// RFC 9112 §3.2's Host rules; the connection is closed after the answer.
    MalformedRequest(&'static str),
    /// 415.
    UnsupportedMediaType,
    /// 413.
    PayloadTooLarge,
    /// 429, with `Retry-After` seconds.
    Throttled(u64),
    /// 408: the body did not arrive within the body timeout (the connection is then
    /// closed).
    RequestTimeout,
    /// 503 `service_unavailable` with `Retry-After`: the request cannot be served now,
    /// through no fault of the client.
    Unavailable(Unavailable),
    /// 400 with per-field messages.
    Invalid(Vec<FieldError>),
    /// 500; the string is logged, never shown.
    Internal(String),
}

impl ApiError {
    /// A 400 about one field.
    pub fn field(field: impl Into<String>, code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Invalid(vec![FieldError::new(field, code, message)])
    }

    /// A 500 whose cause is logged.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        ApiError::Internal(cause.to_string())
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NotAuthenticated | ApiError::AuthenticationFailed => StatusCode::UNAUTHORIZED,
            ApiError::PermissionDenied
            | ApiError::Refused(_)
            | ApiError::InsufficientScope
            | ApiError::OriginNotAllowed => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::ParseError(_)
            | ApiError::Invalid(_)
            | ApiError::TooManyParameters(_)
            | ApiError::MalformedRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Throttled(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn code_and_message(&self) -> (&'static str, String) {
        match self {
            ApiError::NotAuthenticated => {
                ("not_authenticated", "Authentication credentials were not provided.".into())
            }
            ApiError::AuthenticationFailed => {
                ("authentication_failed", "The access token is invalid or expired.".into())
            }
            ApiError::PermissionDenied => {
                ("permission_denied", "You do not have permission to perform this action.".into())
            }
            ApiError::InsufficientScope => (
                "insufficient_scope",
                "The access token does not allow this action (needs the write scope).".into(),
            ),
            ApiError::OriginNotAllowed => (
                "permission_denied",
                "Cross-origin requests from this origin are not allowed (serve --cors-origin)."
                    .into(),
            ),
            ApiError::NotFound => ("not_found", "Not found.".into()),
            ApiError::MethodNotAllowed(_) => ("method_not_allowed", "Method not allowed.".into()),
            ApiError::ParseError(why) => ("parse_error", format!("Malformed request body: {why}")),
            ApiError::MalformedRequest(why) => ("parse_error", (*why).to_owned()),
            ApiError::TooManyParameters(max) => {
                ("parse_error", format!("Too many parameters: at most {max} are accepted."))
            }
            ApiError::UnsupportedMediaType => {
                ("unsupported_media_type", "Unsupported media type in request.".into())
            }
            ApiError::PayloadTooLarge => ("payload_too_large", "Request body is too large.".into()),
            ApiError::Throttled(secs) => (
                "throttled",
                format!("Request was throttled. Expected available in {secs} seconds."),
            ),
            ApiError::RequestTimeout => {
                ("request_timeout", "The request body did not arrive in time.".into())
            }
            ApiError::Unavailable(Unavailable::Storage) => (
                "service_unavailable",
                "The server cannot store changes right now. Please try again later.".into(),
            ),
            ApiError::Unavailable(Unavailable::Memory) => (
                "service_unavailable",
                "The server is busy receiving other requests. Please try again shortly.".into(),
            ),
            ApiError::Unavailable(Unavailable::Copy(fault)) => {
                ("service_unavailable", fault.message().into())
            }
            ApiError::Unavailable(Unavailable::NotReplicated) => (
                "service_unavailable",
                "The server cannot accept changes until its backup (Litestream) has caught up. Please try again shortly."
                    .into(),
            ),
            ApiError::Unavailable(Unavailable::Sockets) => (
                "service_unavailable",
                "The server holds as many live connections as it takes. Please try again later."
                    .into(),
            ),
            ApiError::Unavailable(Unavailable::ReplicaSocket) => (
                "service_unavailable",
                "A read replica serves no live notifications: connect to the primary.".into(),
            ),
            ApiError::Unavailable(Unavailable::Mail) => (
                "service_unavailable",
                "The server cannot send mail right now. Please try again later.".into(),
            ),
            ApiError::Refused(why) => ("permission_denied", (*why).into()),
            ApiError::Invalid(_) => ("invalid", "Invalid input.".into()),
            ApiError::Internal(_) => ("server_error", "A server error occurred.".into()),
        }
    }

    /// The response: status, JSON body and the headers this error needs.
    pub fn to_response(&self) -> Response {
        if let ApiError::Internal(cause) = self {
            tracing::error!(%cause, "internal error");
        }
        let (code, message) = self.code_and_message();
        let body = match self {
            ApiError::Invalid(fields) => json!({ "detail": message, "errors": fields }),
            _ => json!({ "detail": message, "errors": [{ "code": code, "message": message }] }),
        };
        // a `json!` value always serialises (its map keys are strings)
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let mut resp = crate::reply::bytes_response(self.status(), crate::reply::JSON, bytes);
        let headers = resp.headers_mut();
        match self {
            ApiError::NotAuthenticated => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(r#"Bearer realm="api""#),
                );
            }
            ApiError::AuthenticationFailed => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(r#"Bearer realm="api", error="invalid_token""#),
                );
            }
            ApiError::InsufficientScope => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(
                        r#"Bearer realm="api", error="insufficient_scope", scope="write""#,
                    ),
                );
            }
            ApiError::MethodNotAllowed(allow) => {
                if let Ok(v) = HeaderValue::from_str(allow) {
                    headers.insert(header::ALLOW, v);
                }
            }
            ApiError::Throttled(secs) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*secs));
            }
            ApiError::Unavailable(why) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(why.retry_after()));
                // what a read replica's layer looks for: a local read that failed on
                // storage is a fault of its copy (src/replica)
                if *why == Unavailable::Storage {
                    resp.extensions_mut().insert(StorageFaulted);
                }
            }
            // the rest of the body may still be on its way (or, for a malformed
            // request, where the next request starts is in doubt): the connection
            // cannot be reused
            ApiError::RequestTimeout | ApiError::MalformedRequest(_) => {
                headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            _ => {}
        }
        resp
    }
}

impl warp::Reply for ApiError {
    fn into_response(self) -> Response {
        self.to_response()
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> Self {
        if crate::db::is_storage_fault(&e) {
            tracing::warn!(error = %e, "storage fault");
            return ApiError::Unavailable(Unavailable::Storage);
        }
        ApiError::internal(format!("database: {e}"))
    }
}

impl From<crate::db::DbError> for ApiError {
    fn from(e: crate::db::DbError) -> Self {
        use crate::db::Fault;
        // logged where the state changed, once, not once per request
        match e {
            crate::db::DbError::Copy(fault) => {
                return ApiError::Unavailable(Unavailable::Copy(fault));
            }
            crate::db::DbError::NotReplicated => {
                return ApiError::Unavailable(Unavailable::NotReplicated);
            }
            _ => {}
        }
        if e.is_storage_fault() {
            tracing::warn!(error = %e, "storage fault");
            return ApiError::Unavailable(Unavailable::Storage);
        }
        ApiError::internal(e)
    }
}

impl crate::db::Fault for ApiError {
    fn is_storage_fault(&self) -> bool {
        matches!(self, ApiError::Unavailable(Unavailable::Storage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(e: &ApiError) -> serde_json::Value {
        let resp = e.to_response();
        let bytes = futures_util::FutureExt::now_or_never(http_body_util::BodyExt::collect(
            resp.into_body(),
        ))
        .and_then(Result::ok)
        .map(|c| c.to_bytes())
        .unwrap_or_default();
        serde_json::from_slice(&bytes).unwrap_or_default()
    }

    #[test]
    fn permission_denied_has_detail_and_errors() {
        let b = body(&ApiError::PermissionDenied);
        assert_eq!(b["detail"], "You do not have permission to perform this action.");
        assert_eq!(b["errors"][0]["code"], "permission_denied");
        assert_eq!(b["errors"][0]["message"], b["detail"]);
    }

    #[test]
    fn validation_names_fields() {
        let b = body(&ApiError::field("name", "unique", "A course with this name already exists."));
        assert_eq!(b["detail"], "Invalid input.");
        assert_eq!(b["errors"][0]["field"], "name");
        assert_eq!(b["errors"][0]["messages"][0]["code"], "unique");
    }

    #[test]
    fn server_error_hides_the_cause() {
        let b = body(&ApiError::internal("secret path /etc/x"));
        assert!(!b.to_string().contains("/etc/x"));
        assert_eq!(ApiError::internal("x").status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn headers_for_401_405_429() {
        let r = ApiError::AuthenticationFailed.to_response();
        assert_eq!(
            r.headers()[header::WWW_AUTHENTICATE],
            r#"Bearer realm="api", error="invalid_token""#
        );
        let r = ApiError::NotAuthenticated.to_response();
        assert_eq!(r.headers()[header::WWW_AUTHENTICATE], r#"Bearer realm="api""#);
        let r = ApiError::MethodNotAllowed("GET, HEAD".into()).to_response();
        assert_eq!(r.headers()[header::ALLOW], "GET, HEAD");
        let r = ApiError::Throttled(42).to_response();
        assert_eq!(r.headers()[header::RETRY_AFTER], "42");
        let r = ApiError::Unavailable(Unavailable::Storage).to_response();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "30");
        let r = ApiError::RequestTimeout.to_response();
        assert_eq!(r.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(r.headers()[header::CONNECTION], "close");
    }

    #[test]
    fn storage_faults_are_503_not_500() {
        use rusqlite::ffi;
        for code in
            [ffi::SQLITE_FULL, ffi::SQLITE_READONLY, ffi::SQLITE_IOERR_WRITE, ffi::SQLITE_BUSY]
        {
            let e = rusqlite::Error::SqliteFailure(ffi::Error::new(code), None);
            let api = ApiError::from(e);
            assert_eq!(api.status(), StatusCode::SERVICE_UNAVAILABLE, "{code}");
            assert_eq!(body(&api)["errors"][0]["code"], "service_unavailable");
        }
        let e = rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_CONSTRAINT), None);
        assert_eq!(ApiError::from(e).status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
