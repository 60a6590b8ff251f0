//! Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1):
//! `client_id`/`client_secret` form fields or HTTP Basic, never both. Confidential apps
//! must present their secret; public apps may omit it. Secrets are compared by their
//! SHA-256 in constant time.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rusqlite::Connection;
use warp::http::HeaderMap;
use warp::http::header::AUTHORIZATION;

use crate::model::app::App;
use crate::oauth::errors::OAuthError;

/// What the client presented.
#[derive(Debug, Clone)]
pub struct ClientCreds {
    /// `client_id`.
    pub client_id: Option<String>,
    /// `client_secret`.
    pub secret: Option<String>,
    /// Sent with HTTP Basic.
    pub basic: bool,
}

fn form_decode(s: &str) -> Option<String> {
    url::form_urlencoded::parse(format!("v={s}").as_bytes()).next().map(|(_, v)| v.into_owned())
}

/// Reads the client credentials from the `Authorization: Basic` header or the form's
/// `client_id` and `client_secret`.
pub fn from_request(
    headers: &HeaderMap,
    client_id: Option<&str>,
    client_secret: Option<&str>,
) -> Result<ClientCreds, OAuthError> {
    let basic = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| {
        let (scheme, rest) = v.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("basic").then(|| rest.trim().to_owned())
    });
    if let Some(b64) = basic {
        let mut bad = OAuthError::invalid_client();
        bad.basic = true;
        let raw = STANDARD.decode(b64).map_err(|_| bad.clone())?;
        let raw = String::from_utf8(raw).map_err(|_| bad.clone())?;
        let (id, secret) = raw.split_once(':').ok_or_else(|| bad.clone())?;
        let (id, secret) =
            (form_decode(id).ok_or_else(|| bad.clone())?, form_decode(secret).ok_or(bad)?);
        if client_secret.is_some() || client_id.is_some_and(|f| f != id) {
            return Err(OAuthError::invalid_request(
                "Use one client authentication method, not both.",
            ));
        }
        return Ok(ClientCreds {
            client_id: Some(id),
            secret: Some(secret).filter(|s| !s.is_empty()),
            basic: true,
        });
    }
    Ok(ClientCreds {
        client_id: client_id.filter(|c| !c.is_empty()).map(str::to_owned),
        secret: client_secret.filter(|s| !s.is_empty()).map(str::to_owned),
        basic: false,
    })
}

/// Authenticates the client: 401 `invalid_client` for an unknown client, a wrong
/// secret, or a confidential client without its secret.
pub fn authenticate(conn: &Connection, creds: &ClientCreds) -> Result<App, OAuthError> {
    let fail = || {
        let mut e = OAuthError::invalid_client();
        e.basic = creds.basic;
        e
    };
    let id = creds.client_id.as_deref().ok_or_else(fail)?;
    let app = crate::db::apps::by_client_id(conn, id)?.ok_or_else(fail)?;
    match &creds.secret {
        Some(secret) => {
            let h = crate::token::storage_hash(secret);
            if !crate::token::constant_time_eq(&h, &app.secret_hash) {
                return Err(fail());
            }
        }
        None if app.confidential => return Err(fail()),
        None => {}
    }
    Ok(app)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warp::http::HeaderValue;

    #[test]
    fn basic_is_form_decoded() {
        let mut h = HeaderMap::new();
        let v = format!("Basic {}", STANDARD.encode("my%20app:s%3Acret"));
        h.insert(AUTHORIZATION, HeaderValue::from_str(&v).unwrap_or(HeaderValue::from_static("")));
        let c = from_request(&h, None, None).ok();
        assert_eq!(c.as_ref().and_then(|c| c.client_id.as_deref()), Some("my app"));
        assert_eq!(c.as_ref().and_then(|c| c.secret.as_deref()), Some("s:cret"));
        // both methods at once
        assert!(from_request(&h, None, Some("x")).is_err());
    }
}
