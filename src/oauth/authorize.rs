//! The authorization endpoint (RFC 6749 §3.1, §4.1.1, §4.2.1; RFC 7636 §4.3):
//! `GET|POST /oauth/authorize/` (also without the slash). An unknown client or a
//! redirect URI that is not registered is an HTML error page and never a redirect;
//! every other error goes back to the client in the redirect (query for `code`,
//! fragment for `token`), before any login.

use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::clock::SECOND;
use crate::db::sessions::Session;
use crate::http::Req;
use crate::http::form;
use crate::http::query::Query;
use crate::http::route::{Auth, Endpoint};
use crate::model::app::{App, AppGrant, Authorization};
use crate::oauth::errors::ErrorCode;
use crate::oauth::pages::{self, ConsentFields};
use crate::oauth::redirect::{self, Mode};
use crate::oauth::scope::{self, Scope};
use crate::oauth::{internal_page, pkce, redirect_to, session};
use crate::state::AppState;
use crate::token;

/// Authorization code lifetime (SPEC §6).
pub const CODE_TTL: crate::clock::Timestamp = 60 * SECOND;

/// `GET|POST /oauth/authorize/`, also without the slash. A `GET` writes: with a session
/// and an app that skips consent it issues a code or a token at once.
pub fn endpoints() -> Vec<Endpoint> {
    let request = |path: &'static str, op: &'static str| {
        Endpoint::new(Method::GET, path, Auth::None, op, |req, _| get(req))
            .writes()
            .query::<AuthorizeQuery>()
    };
    let decision = |path: &'static str, op: &'static str| {
        Endpoint::new(Method::POST, path, Auth::None, op, |req, _| post(req)).body::<ConsentForm>()
    };
    vec![
        request("/oauth/authorize/", "oauthAuthorize"),
        decision("/oauth/authorize/", "oauthAuthorizeDecision"),
        request("/oauth/authorize", "oauthAuthorizeNoSlash"),
        decision("/oauth/authorize", "oauthAuthorizeDecisionNoSlash"),
    ]
}

crate::query_params! {
    /// An authorization request (RFC 6749 §4.1.1, §4.2.1; RFC 7636 §4.3). A repeated
    /// parameter is invalid_request.
    struct AuthorizeQuery {
        /// code (authorization code flow) or token (implicit flow); must match the app's
        /// grant (else unauthorized_client).
        #[required = true]
        #[param(schema_with = response_types)]
        response_type: Option<String>,
        /// The app's client_id. Missing or unknown: an error page, never a redirect.
        #[param(required = true)]
        client_id: Option<String>,
        /// Must equal one of the app's registered redirect URIs exactly (string
        /// comparison); otherwise an error page, never a redirect.
        #[param(required = true)]
        redirect_uri: Option<String>,
        /// Returned unchanged with the code, token or error.
        state: Option<String>,
        /// Space-separated subset of `read write` (the default: both).
        scope: Option<String>,
        /// PKCE (RFC 7636): 43 to 128 characters of [A-Za-z0-9-._~]. Required for public
        /// apps using the code flow.
        #[param(min_length = 43, max_length = 128)]
        code_challenge: Option<String>,
        /// S256 or plain (the default); only with code_challenge.
        #[param(schema_with = challenge_methods)]
        code_challenge_method: Option<String>,
    }
}

fn response_types() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["code", "token"])
}

fn challenge_methods() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["S256", "plain"])
}

/// `response_type` (RFC 6749 §3.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseType {
    /// The authorization code flow.
    Code,
    /// The implicit flow.
    Token,
}

/// A validated authorization request.
#[derive(Debug, Clone)]
pub struct AuthRequest {
    app: App,
    response_type: ResponseType,
    redirect_uri: String,
    scope: Scope,
    state: Option<String>,
    pkce: Option<(String, pkce::Method)>,
}

impl AuthRequest {
    fn mode(&self) -> Mode {
        match self.response_type {
            ResponseType::Code => Mode::Query,
            ResponseType::Token => Mode::Fragment,
        }
    }

    /// A redirect back to the client with `params` (and `state`).
    fn back(&self, params: &[(&str, &str)]) -> Response {
        let mut all: Vec<(&str, &str)> = params.to_vec();
        if let Some(s) = &self.state {
            all.push(("state", s));
        }
        match redirect::build(&self.redirect_uri, self.mode(), &all) {
            Some(loc) => redirect_to(StatusCode::FOUND, &loc, &[]),
            None => internal_page("registered redirect URI does not parse"),
        }
    }

    fn authorization(&self) -> Authorization {
        Authorization {
            redirect_uri: self.redirect_uri.clone(),
            scope: self.scope.as_str().into(),
            code_challenge: self.pkce.as_ref().map(|p| p.0.clone()),
            code_challenge_method: self.pkce.as_ref().map(|p| p.1.as_str().to_owned()),
        }
    }

    fn fields(&self) -> ConsentFields {
        ConsentFields {
            response_type: match self.response_type {
                ResponseType::Code => "code".into(),
                ResponseType::Token => "token".into(),
            },
            client_id: self.app.client_id.clone(),
            state: self.state.clone(),
            authorization: self.authorization(),
        }
    }
}

fn page(code: ErrorCode, description: &str) -> Response {
    pages::error(StatusCode::BAD_REQUEST, code.as_str(), description).into_response()
}

/// Validates the request parameters; `Err` is the response to send (an error page or an
/// error redirect).
#[expect(clippy::result_large_err, reason = "the error is the response itself, sent at once")]
async fn validate(state: &AppState, q: &Query) -> Result<AuthRequest, Response> {
    if let Some(p) = super::repeated(q, &["client_id", "redirect_uri"]) {
        return Err(page(ErrorCode::InvalidRequest, &format!("The parameter {p} is repeated.")));
    }
    let p = AuthorizeQuery::read(q)
        .map_err(|_| page(ErrorCode::InvalidRequest, "The parameters cannot be read."))?;
    let Some(client_id) = p.client_id.filter(|c| !c.is_empty()) else {
        return Err(page(ErrorCode::InvalidClient, "The request has no client_id."));
    };
    let app = state
        .db
        .read(move |c| {
            crate::db::apps::by_client_id(c, &client_id).map_err(crate::db::DbError::from)
        })
        .await
        .map_err(internal_page)?;
    let Some(app) = app else {
        return Err(page(ErrorCode::InvalidClient, "No application has this client_id."));
    };
    let redirect_uri = match p.redirect_uri {
        Some(r) if app.redirect_uris.contains(&r) => r,
        _ => {
            return Err(page(
                ErrorCode::RedirectUriMismatch,
                "The redirect_uri is missing or does not exactly match one registered for this application.",
            ));
        }
    };
    let response_type = match p.response_type.as_deref() {
        Some("code") => Some(ResponseType::Code),
        Some("token") => Some(ResponseType::Token),
        _ => None,
    };
    let mut ar = AuthRequest {
        app,
        response_type: response_type.unwrap_or(ResponseType::Code),
        redirect_uri,
        scope: Scope::ALL,
        state: p.state.filter(|s| !s.is_empty()),
        pkce: None,
    };
    let fail = |ar: &AuthRequest, code: ErrorCode, d: &str| {
        Err(ar.back(&[("error", code.as_str()), ("error_description", d)]))
    };
    if let Some(p) = super::repeated(
        q,
        &["response_type", "scope", "state", "code_challenge", "code_challenge_method"],
    ) {
        return fail(&ar, ErrorCode::InvalidRequest, &format!("The parameter {p} is repeated."));
    }
    match (p.response_type.as_deref(), response_type) {
        (None | Some(""), _) => {
            return fail(&ar, ErrorCode::InvalidRequest, "The request has no response_type.");
        }
        (Some(_), None) => {
            return fail(
                &ar,
                ErrorCode::UnsupportedResponseType,
                "response_type must be code or token.",
            );
        }
        _ => {}
    }
    let allowed = matches!(
        (ar.response_type, ar.app.grant),
        (ResponseType::Code, AppGrant::AuthorizationCode)
            | (ResponseType::Token, AppGrant::Implicit)
    );
    if !allowed {
        return fail(
            &ar,
            ErrorCode::UnauthorizedClient,
            "This application may not use this response_type.",
        );
    }
    match Scope::parse(p.scope.as_deref(), Scope::ALL) {
        Some(s) => ar.scope = s,
        None => {
            return fail(&ar, ErrorCode::InvalidScope, scope::NOT_A_SUBSET);
        }
    }
    if ar.response_type == ResponseType::Code {
        let method = p.code_challenge_method.as_deref();
        match p.code_challenge.as_deref().filter(|c| !c.is_empty()) {
            None if method.is_some() => {
                return fail(
                    &ar,
                    ErrorCode::InvalidRequest,
                    "code_challenge_method without code_challenge.",
                );
            }
            None if !ar.app.confidential => {
                return fail(
                    &ar,
                    ErrorCode::InvalidRequest,
                    "A public client must use PKCE (code_challenge).",
                );
            }
            None => {}
            Some(ch) => {
                let Some(m) = pkce::Method::parse(method) else {
                    return fail(
                        &ar,
                        ErrorCode::InvalidRequest,
                        "code_challenge_method must be S256 or plain.",
                    );
                };
                if !pkce::well_formed(ch) {
                    return fail(
                        &ar,
                        ErrorCode::InvalidRequest,
                        "code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~].",
                    );
                }
                ar.pkce = Some((ch.to_owned(), m));
            }
        }
    }
    Ok(ar)
}

/// Where a browser without a session goes: the login form, back here afterwards.
fn to_login(req: &Req) -> Response {
    let back = if req.query.is_empty() {
        "/oauth/authorize/".to_owned()
    } else {
        format!("/oauth/authorize/?{}", req.query)
    };
    let q =
        url::form_urlencoded::Serializer::new(String::new()).append_pair("next", &back).finish();
    redirect_to(StatusCode::FOUND, &format!("/accounts/login/?{q}"), &[])
}

/// `GET /oauth/authorize/`: the consent page, or the answer at once.
async fn get(req: Req) -> Response {
    let q = match req.query() {
        Ok(q) => q,
        Err(e) => return pages::form_failure(&e),
    };
    let ar = match validate(&req.state, &q).await {
        Ok(ar) => ar,
        Err(resp) => return resp,
    };
    let s = match session::current(&req).await {
        Ok(Some((_, s))) => s,
        Ok(None) => return to_login(&req),
        Err(e) => return internal_page(e),
    };
    if ar.app.skip_consent {
        return allow(&req.state, &ar, &s).await;
    }
    pages::consent(&ar.app, &s.username, ar.scope, &ar.fields(), &s.csrf).into_response()
}

crate::form_fields! {
    /// The consent form's own fields.
    struct Decision {
        /// The session's CSRF token (else 403).
        #[schema(required = true)]
        csrfmiddlewaretoken: Option<String>,
        /// Present (and deny absent): the member allows; the app gets its code or token.
        allow: Option<String>,
        /// Present: the member denies (access_denied back to the app).
        deny: Option<String>,
    }
}

/// The consent form's body: the authorization request's parameters
/// ([`AuthorizeQuery`], checked again) and the [`Decision`].
struct ConsentForm;

impl utoipa::PartialSchema for ConsentForm {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::AllOfBuilder::new()
            .item(crate::http::query_params::as_object::<AuthorizeQuery>())
            .item(Decision::schema())
            .into()
    }
}

impl utoipa::ToSchema for ConsentForm {
    fn name() -> std::borrow::Cow<'static, str> {
        "ConsentForm".into()
    }
}

/// `POST /oauth/authorize/`: the consent form's decision.
async fn post(mut req: Req) -> Response {
    // a public endpoint: the form is how the caller authenticates
    req.body.public();
    let form = match form::read(&mut req).await {
        Ok(f) => f,
        Err(e) => return pages::form_failure(&e),
    };
    let decision = match Decision::read(&form) {
        Ok(d) => d,
        Err(e) => return pages::form_failure(&e),
    };
    let ar = match validate(&req.state, &form).await {
        Ok(ar) => ar,
        Err(resp) => return resp,
    };
    let s = match session::current(&req).await {
        Ok(Some((_, s))) => s,
        Ok(None) => {
            return pages::error(
                StatusCode::FORBIDDEN,
                "access_denied",
                "You are not signed in (any more). Please start again from the application.",
            )
            .into_response();
        }
        Err(e) => return internal_page(e),
    };
    if !session::csrf_ok(&s.csrf, decision.csrfmiddlewaretoken.as_deref()) {
        crate::telemetry::security::csrf_rejected(super::client_addr(&req));
        return pages::error(StatusCode::FORBIDDEN, "invalid_request", "This form has expired or was not sent by this site. Please start again from the application.").into_response();
    }
    if decision.allow.is_some() && decision.deny.is_none() {
        allow(&req.state, &ar, &s).await
    } else {
        ar.back(&[
            ("error", ErrorCode::AccessDenied.as_str()),
            ("error_description", "The user denied the request."),
        ])
    }
}

/// The user allowed: a code (RFC 6749 §4.1.2) or an access token (§4.2.2).
async fn allow(state: &AppState, ar: &AuthRequest, s: &Session) -> Response {
    let now = state.clock.now();
    let user_id = s.user_id;
    let app_id = ar.app.id;
    let scope = ar.scope.as_str();
    let value = token::new_token();
    let hash = token::storage_hash(&value);
    match ar.response_type {
        ResponseType::Code => {
            let authorization = ar.authorization();
            let r = state
                .db
                .write(move |tx| {
                    crate::db::tokens::purge_codes(tx, now - 3600 * SECOND)?;
                    crate::db::tokens::insert_code(
                        tx,
                        &hash,
                        app_id,
                        user_id,
                        &authorization,
                        now + CODE_TTL,
                    )
                    .map_err(crate::db::DbError::from)
                })
                .await;
            match r {
                Ok(()) => ar.back(&[("code", &value)]),
                Err(e) => internal_page(e),
            }
        }
        ResponseType::Token => {
            let ttl = super::token::ttl(state);
            let r = state
                .db
                .write(move |tx| {
                    let grant = crate::db::tokens::insert_grant(tx, app_id, user_id, scope, now)?;
                    crate::db::tokens::insert_access(
                        tx,
                        &hash,
                        grant,
                        scope,
                        now + ttl * SECOND,
                        now,
                    )
                    .map_err(crate::db::DbError::from)
                })
                .await;
            match r {
                Ok(()) => {
                    crate::telemetry::token_issued(crate::telemetry::Grant::Implicit);
                    ar.back(&[
                        ("access_token", &value),
                        ("expires_in", &ttl.to_string()),
                        ("token_type", "Bearer"),
                        ("scope", scope),
                    ])
                }
                Err(e) => internal_page(e),
            }
        }
    }
}
