//! The token endpoint (RFC 6749 §3.2, §5): `POST /oauth/token/` with a form body. The
//! client authenticates (§2.3.1), then the grant named by `grant_type` runs: one
//! module per grant.

mod code;
mod password;
mod refresh;

use rusqlite::Connection;
use serde::Serialize;
use warp::reply::Response;

use crate::clock::{SECOND, Timestamp};
use crate::http::Req;
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::model::app::App;
use crate::oauth::errors::{ErrorCode, OAuthError};
use crate::oauth::scope::Scope;
use crate::state::AppState;
use crate::telemetry::{self, Grant, security};
use crate::token;

/// Refresh token lifetime (SPEC §6).
pub const REFRESH_TTL: Timestamp = 30 * 24 * 3600 * SECOND;

/// `grant_type` (RFC 6749 §4.1.3, §4.3.2, §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantType {
    /// `authorization_code`.
    AuthorizationCode,
    /// `password`.
    Password,
    /// `refresh_token`.
    RefreshToken,
}

impl GrantType {
    /// Parses the form value; `None` for any grant hearth does not support.
    pub fn parse(s: &str) -> Option<GrantType> {
        match s {
            "authorization_code" => Some(GrantType::AuthorizationCode),
            "password" => Some(GrantType::Password),
            "refresh_token" => Some(GrantType::RefreshToken),
            _ => None,
        }
    }
}

/// The success body (RFC 6749 §5.1), in this field order.
#[derive(Debug, Serialize)]
pub struct TokenResponse {
    pub access_token: String,
    pub expires_in: i64,
    pub token_type: &'static str,
    pub scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
}

/// The access token lifetime in seconds.
pub fn ttl(state: &AppState) -> i64 {
    i64::try_from(state.config.token_ttl.as_secs()).unwrap_or(i64::MAX / SECOND)
}

/// Issues an access token and a refresh token under `grant_id`.
pub fn issue(
    conn: &Connection,
    grant_id: i64,
    scope: Scope,
    ttl_secs: i64,
    now: Timestamp,
) -> rusqlite::Result<TokenResponse> {
    let access = token::new_token();
    let refresh = token::new_token();
    let access_hash = token::storage_hash(&access);
    let scope_s = scope.as_str();
    crate::db::tokens::insert_access(
        conn,
        &access_hash,
        grant_id,
        scope_s,
        now + ttl_secs * SECOND,
        now,
    )?;
    crate::db::tokens::insert_refresh(
        conn,
        &token::storage_hash(&refresh),
        grant_id,
        &access_hash,
        scope_s,
        now + REFRESH_TTL,
        now,
    )?;
    Ok(TokenResponse {
        access_token: access,
        expires_in: ttl_secs,
        token_type: "Bearer",
        scope: scope_s,
        refresh_token: Some(refresh),
    })
}

/// What a grant module gets.
pub struct Ctx<'a> {
    /// Shared state.
    pub state: &'a AppState,
    /// The authenticated client.
    pub app: App,
    /// The form.
    pub form: TokenForm,
    /// The client address (brute-force limit).
    pub addr: std::net::IpAddr,
}

/// What a grant's transaction takes from its request: the client, the time, how long
/// access tokens live, and the client address (for the security log).
#[derive(Debug, Clone, Copy)]
struct Exchange {
    app_id: i64,
    now: Timestamp,
    ttl: i64,
    client: std::net::IpAddr,
}

impl Ctx<'_> {
    fn exchange(&self) -> Exchange {
        Exchange {
            app_id: self.app.id,
            now: self.state.clock.now(),
            ttl: ttl(self.state),
            client: self.addr,
        }
    }
}

/// `POST /oauth/token/`
pub fn endpoints() -> Vec<Endpoint> {
    vec![super::json_endpoint("/oauth/token/", "oauthToken", token).body::<TokenForm>()]
}

/// Reads a form body of the token or revocation endpoint (RFC 6749 §3.2: parameters
/// must not repeat).
pub async fn read_form(req: &mut Req) -> Result<Query, OAuthError> {
    // a public endpoint: the form is how the caller authenticates
    req.body.public();
    let form = crate::http::form::read(req).await?;
    if let Some(p) = form.repeated() {
        return Err(OAuthError::invalid_request(format!("The parameter {p} is repeated.")));
    }
    Ok(form)
}

crate::form_fields! {
    /// A token request (RFC 6749 §4.1.3, §4.3.2, §6): a form whose parameters do not
    /// repeat (else invalid_request). The client authenticates with HTTP Basic or with
    /// client_id (and client_secret for a confidential app) in the form, not both.
    #[schema(as = TokenRequest)]
    pub struct TokenForm {
        /// authorization_code, password or refresh_token (required; another grant is
        /// unsupported_grant_type).
        #[schema(required = true)]
        grant_type: Option<String>,
        /// The app's client id (unless HTTP Basic carries it).
        client_id: Option<String>,
        /// A confidential app's secret (unless HTTP Basic carries it).
        client_secret: Option<String>,
        /// authorization_code: the code (required).
        code: Option<String>,
        /// authorization_code: the redirect URI the code was asked with (required).
        redirect_uri: Option<String>,
        /// authorization_code: the PKCE verifier, when the code was asked with a challenge.
        code_verifier: Option<String>,
        /// password: the member's username or email (required).
        username: Option<String>,
        /// password: the member's password (required).
        #[schema(format = Password)]
        password: Option<String>,
        /// refresh_token: the refresh token (required; single use).
        refresh_token: Option<String>,
        /// password and refresh_token: a space-separated subset of `read write` (the
        /// default: all; for a refresh, at most the grant's).
        scope: Option<String>,
    }
}

/// The form of a token request, read (its parameters must not repeat).
async fn read_token_form(req: &mut Req) -> Result<TokenForm, OAuthError> {
    let form = read_form(req).await?;
    TokenForm::read(&form).map_err(|_| OAuthError::invalid_request("The form cannot be read."))
}

/// A parameter the request must carry (non-empty), else `invalid_request`.
pub fn required<'f>(value: &'f Option<String>, name: &str) -> Result<&'f str, OAuthError> {
    value
        .as_deref()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| OAuthError::invalid_request(format!("The request has no {name}.")))
}

/// What a grant's transaction decided: the tokens, or the error to answer.
type Decision = Result<TokenResponse, OAuthError>;

/// Runs a grant's checks and writes in one write transaction that commits whatever
/// they decide: what a refused exchange did stays done (a code consumed by a failed
/// attempt, a grant revoked because its code or refresh token was reused: RFC 6749
/// §10.5, RFC 9700 §4.14.2). The outer error is a failure of the transaction itself.
async fn decide<F>(state: &AppState, f: F) -> Decision
where
    F: FnOnce(&rusqlite::Transaction<'_>) -> Result<Decision, OAuthError> + Send + 'static,
{
    state.db.write(f).await?
}

/// A refused exchange (`invalid_grant`), as a grant's transaction reports it.
#[expect(clippy::unnecessary_wraps, reason = "the shape a transaction passed to decide returns")]
fn refused(description: &'static str) -> Result<Decision, OAuthError> {
    Ok(Err(OAuthError::invalid_grant(description)))
}

/// Authenticates the client of a form request; a failure is logged as the
/// `client_auth_failed` security event (with the `client_id` tried, never a secret).
pub async fn client(
    req: &Req,
    client_id: Option<&str>,
    client_secret: Option<&str>,
) -> Result<App, OAuthError> {
    let failed = |e: OAuthError, client_id: Option<&str>| {
        if e.code == ErrorCode::InvalidClient {
            security::client_auth_failed(super::client_addr(req), client_id);
        }
        e
    };
    let creds = super::client::from_request(&req.headers, client_id, client_secret)
        .map_err(|e| failed(e, client_id.filter(|c| !c.is_empty())))?;
    let client_id = creds.client_id.clone();
    req.state
        .db
        .read(move |c| super::client::authenticate(c, &creds))
        .await
        .map_err(|e| failed(e, client_id.as_deref()))
}

async fn token(mut req: Req) -> Result<Response, OAuthError> {
    let form = read_token_form(&mut req).await?;
    let app = client(&req, form.client_id.as_deref(), form.client_secret.as_deref()).await?;
    let grant = GrantType::parse(required(&form.grant_type, "grant_type")?).ok_or_else(|| {
        OAuthError::new(
            ErrorCode::UnsupportedGrantType,
            "grant_type must be authorization_code, password or refresh_token.",
        )
    })?;
    let ctx = Ctx { state: &req.state, app, form, addr: super::client_addr(&req) };
    let (body, issued) = match grant {
        GrantType::AuthorizationCode => (code::exchange(ctx).await?, Grant::AuthorizationCode),
        GrantType::Password => (password::exchange(ctx).await?, Grant::Password),
        GrantType::RefreshToken => (refresh::exchange(ctx).await?, Grant::RefreshToken),
    };
    telemetry::token_issued(issued);
    let mut resp = crate::http::ok(&body);
    super::no_store(resp.headers_mut());
    Ok(resp)
}

fn unauthorized_client() -> OAuthError {
    OAuthError::new(ErrorCode::UnauthorizedClient, "This application may not use this grant type.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_types() {
        assert_eq!(GrantType::parse("authorization_code"), Some(GrantType::AuthorizationCode));
        assert_eq!(GrantType::parse("password"), Some(GrantType::Password));
        assert_eq!(GrantType::parse("refresh_token"), Some(GrantType::RefreshToken));
        assert_eq!(GrantType::parse("client_credentials"), None);
        assert_eq!(GrantType::parse("implicit"), None);
    }
}
