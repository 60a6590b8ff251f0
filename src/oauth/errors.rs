//! OAuth protocol errors with the RFCs' exact codes, and their JSON form for the token
//! and revocation endpoints (RFC 6749 §5.2). Errors of the authorization endpoint travel
//! in the redirect (RFC 6749 §4.1.2.1, §4.2.2.1) or, when the client cannot be trusted
//! with a redirect, on an HTML page (see `pages`).

use std::borrow::Cow;

use serde_json::json;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

/// An error code of RFC 6749 / RFC 7009 (plus `redirect_uri_mismatch`, which
/// SEED-API.md names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// RFC 6749 §4.1.2.1, §5.2: missing, repeated or malformed parameter.
    InvalidRequest,
    /// RFC 6749 §5.2: client authentication failed (unknown client, bad secret).
    InvalidClient,
    /// RFC 6749 §5.2: the code, refresh token or resource owner credentials are invalid,
    /// expired, revoked, or were issued to another client or redirect URI.
    InvalidGrant,
    /// RFC 6749 §4.1.2.1, §5.2: the client may not use this grant / response type.
    UnauthorizedClient,
    /// RFC 6749 §5.2: the grant type is not supported.
    UnsupportedGrantType,
    /// RFC 6749 §4.1.2.1, §5.2: the requested scope is invalid or exceeds the granted one.
    InvalidScope,
    /// RFC 6749 §4.1.2.1: the resource owner denied the request.
    AccessDenied,
    /// RFC 6749 §4.1.2.1: the response type is not supported.
    UnsupportedResponseType,
    /// RFC 6749 §4.1.2.1, §5.2 (RFC 6749 errata): an unexpected server error.
    ServerError,
    /// RFC 6749 §4.1.2.1: the server cannot handle the request now; hearth also answers
    /// the password grant with it (429) when the brute-force limit is reached.
    TemporarilyUnavailable,
    /// The redirect URI does not exactly match a registered one (shown on a page only).
    RedirectUriMismatch,
}

impl ErrorCode {
    /// The code as it goes on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidClient => "invalid_client",
            ErrorCode::InvalidGrant => "invalid_grant",
            ErrorCode::UnauthorizedClient => "unauthorized_client",
            ErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            ErrorCode::InvalidScope => "invalid_scope",
            ErrorCode::AccessDenied => "access_denied",
            ErrorCode::UnsupportedResponseType => "unsupported_response_type",
            ErrorCode::ServerError => "server_error",
            ErrorCode::TemporarilyUnavailable => "temporarily_unavailable",
            ErrorCode::RedirectUriMismatch => "redirect_uri_mismatch",
        }
    }
}

/// An error of the token or revocation endpoint.
#[derive(Debug, Clone)]
pub struct OAuthError {
    /// The RFC code.
    pub code: ErrorCode,
    /// `error_description`: for the client developer; never secrets.
    pub description: Cow<'static, str>,
    /// The client authenticated with HTTP Basic (a 401 then carries
    /// `WWW-Authenticate: Basic`, RFC 6749 §5.2).
    pub basic: bool,
    /// 429 with `Retry-After` (brute-force limit).
    pub retry_after: Option<u64>,
    /// A status other than RFC 6749's 400/401 (413 for an oversized body).
    pub status: Option<StatusCode>,
}

impl OAuthError {
    /// An error with a description.
    pub fn new(code: ErrorCode, description: impl Into<Cow<'static, str>>) -> Self {
        OAuthError {
            code,
            description: description.into(),
            basic: false,
            retry_after: None,
            status: None,
        }
    }

    /// `invalid_request`.
    pub fn invalid_request(d: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::InvalidRequest, d)
    }

    /// `invalid_grant`.
    pub fn invalid_grant(d: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::InvalidGrant, d)
    }

    /// `invalid_scope`.
    pub fn invalid_scope(d: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::InvalidScope, d)
    }

    /// `invalid_client`.
    pub fn invalid_client() -> Self {
        Self::new(ErrorCode::InvalidClient, "Client authentication failed.")
    }

    /// `server_error` (the cause is logged, never shown).
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        Self::new(ErrorCode::ServerError, "A server error occurred.")
    }

    /// The HTTP status (RFC 6749 §5.2: 400, or 401 for `invalid_client`).
    pub fn status(&self) -> StatusCode {
        if let Some(s) = self.status {
            return s;
        }
        if self.retry_after.is_some() {
            return StatusCode::TOO_MANY_REQUESTS;
        }
        match self.code {
            ErrorCode::InvalidClient => StatusCode::UNAUTHORIZED,
            ErrorCode::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::TemporarilyUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    /// The JSON response `{"error", "error_description"}`, never cached.
    pub fn to_response(&self) -> Response {
        let body = json!({ "error": self.code.as_str(), "error_description": self.description });
        let mut resp = crate::http::json_response(self.status(), &body);
        let h = resp.headers_mut();
        super::no_store(h);
        if self.code == ErrorCode::InvalidClient && self.basic {
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(r#"Basic realm="oauth""#));
        }
        if let Some(secs) = self.retry_after {
            h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.status == Some(StatusCode::REQUEST_TIMEOUT) {
            h.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        resp
    }
}

impl OAuthError {
    /// 503 `temporarily_unavailable` with `Retry-After` (storage fault, or out of
    /// request memory).
    pub fn unavailable(why: crate::error::Unavailable) -> Self {
        let mut e = OAuthError::new(
            ErrorCode::TemporarilyUnavailable,
            "The server cannot handle the request right now. Please try again later.",
        );
        e.retry_after = Some(why.retry_after());
        e.status = Some(StatusCode::SERVICE_UNAVAILABLE);
        e
    }
}

impl From<crate::db::DbError> for OAuthError {
    fn from(e: crate::db::DbError) -> Self {
        crate::error::ApiError::from(e).into()
    }
}

impl From<rusqlite::Error> for OAuthError {
    fn from(e: rusqlite::Error) -> Self {
        crate::error::ApiError::from(e).into()
    }
}

impl crate::db::Fault for OAuthError {
    fn is_storage_fault(&self) -> bool {
        self.code == ErrorCode::TemporarilyUnavailable
            && self.status == Some(StatusCode::SERVICE_UNAVAILABLE)
            && self.retry_after == Some(crate::error::Unavailable::Storage.retry_after())
    }
}

impl From<crate::error::ApiError> for OAuthError {
    fn from(e: crate::error::ApiError) -> Self {
        match e {
            crate::error::ApiError::PayloadTooLarge => {
                let mut e = OAuthError::invalid_request("The request body is too large.");
                e.status = Some(StatusCode::PAYLOAD_TOO_LARGE);
                e
            }
            // RFC 6749 §5.2 has no 415: a body that is not a form is a malformed request
            crate::error::ApiError::UnsupportedMediaType => {
                OAuthError::invalid_request("The body must be application/x-www-form-urlencoded.")
            }
            crate::error::ApiError::TooManyParameters(max) => {
                OAuthError::invalid_request(format!("The request has more than {max} parameters."))
            }
            crate::error::ApiError::Internal(cause) => OAuthError::internal(cause),
            crate::error::ApiError::Unavailable(why) => OAuthError::unavailable(why),
            crate::error::ApiError::RequestTimeout => {
                let mut e = OAuthError::invalid_request("The request body did not arrive in time.");
                e.status = Some(StatusCode::REQUEST_TIMEOUT);
                e
            }
            _ => OAuthError::invalid_request("The request body could not be read."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_rfcs() {
        let all = [
            (ErrorCode::InvalidRequest, "invalid_request"),
            (ErrorCode::InvalidClient, "invalid_client"),
            (ErrorCode::InvalidGrant, "invalid_grant"),
            (ErrorCode::UnauthorizedClient, "unauthorized_client"),
            (ErrorCode::UnsupportedGrantType, "unsupported_grant_type"),
            (ErrorCode::InvalidScope, "invalid_scope"),
            (ErrorCode::AccessDenied, "access_denied"),
            (ErrorCode::UnsupportedResponseType, "unsupported_response_type"),
            (ErrorCode::ServerError, "server_error"),
            (ErrorCode::TemporarilyUnavailable, "temporarily_unavailable"),
            (ErrorCode::RedirectUriMismatch, "redirect_uri_mismatch"),
        ];
        for (c, s) in all {
            assert_eq!(c.as_str(), s);
        }
    }

    #[test]
    fn statuses() {
        assert_eq!(OAuthError::invalid_client().status(), StatusCode::UNAUTHORIZED);
        assert_eq!(OAuthError::invalid_grant("x").status(), StatusCode::BAD_REQUEST);
        let mut e = OAuthError::invalid_client();
        e.basic = true;
        let r = e.to_response();
        assert_eq!(r.headers()[header::WWW_AUTHENTICATE], r#"Basic realm="oauth""#);
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
        let mut e = OAuthError::new(ErrorCode::TemporarilyUnavailable, "slow down");
        e.retry_after = Some(30);
        let r = e.to_response();
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(r.headers()[header::RETRY_AFTER], "30");
    }
}
