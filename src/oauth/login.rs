//! `/accounts/login/` and `/accounts/logout/`: the username/password form that opens a
//! browser session for the authorization endpoint.

use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::error::ApiError;
use crate::http::Req;
use crate::http::form;
use crate::http::query::Query;
use crate::http::route::{Auth, Endpoint};
use crate::oauth::password::Outcome;
use crate::oauth::session::{self, SESSION_COOKIE};
use crate::oauth::{internal_page, pages, redirect, redirect_to};
use crate::state::AppState;
use crate::telemetry::security;

/// What a failed login says: never which of the two was wrong.
const WRONG: &str =
    "Please enter a correct username and password. Both fields may be case-sensitive.";
/// What a stale or forged form post says.
const STALE: &str = "This form has expired. Please sign in again.";

/// `GET|POST /accounts/login/` and `POST /accounts/logout/`
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::new(
            Method::GET,
            "/accounts/login/",
            Auth::None,
            "accountsLoginForm",
            |req, _| get(req),
        )
        .query::<LoginQuery>(),
        Endpoint::new(Method::POST, "/accounts/login/", Auth::None, "accountsLogin", |req, _| {
            post(req)
        })
        .body::<LoginFields>(),
        Endpoint::new(Method::POST, "/accounts/logout/", Auth::None, "accountsLogout", |req, _| {
            post_logout(req)
        })
        .body::<LogoutFields>(),
    ]
}

fn local_next(next: Option<&str>) -> Option<&str> {
    next.filter(|n| redirect::is_local_path(n))
}

async fn form_page(
    req: &Req,
    status: StatusCode,
    next: Option<&str>,
    username: &str,
    msg: Option<&str>,
) -> pages::Page {
    let keys = req.state.jwt_keys();
    let (csrf, set) = session::login_csrf(
        &req.headers,
        req.state.config.https(),
        super::client_addr(req),
        &keys.accepted(req.state.clock.now()),
    );
    let mut page = pages::login(status, &csrf, next, username, msg);
    page.cookies.extend(set);
    page.form_action = skip_consent_origin(&req.state, next).await;
    page
}

/// When `next` is an authorization request of a `--skip-consent` app, the login form's
/// post ends in a redirect to the client: browsers check that redirect against the
/// login page's `form-action`, so its origin must be allowed there.
async fn skip_consent_origin(state: &AppState, next: Option<&str>) -> Option<String> {
    let q = next?.strip_prefix("/oauth/authorize")?.trim_start_matches('/').strip_prefix('?')?;
    let q = Query::parse_at_most(q, crate::config::MAX_OAUTH_PARAMS).ok()?;
    let client_id = q.text("client_id")?.to_owned();
    let uri = q.text("redirect_uri")?.to_owned();
    let app = state
        .db
        .read(move |c| {
            crate::db::apps::by_client_id(c, &client_id).map_err(crate::db::DbError::from)
        })
        .await
        .ok()??;
    (app.skip_consent && app.redirect_uris.contains(&uri))
        .then(|| redirect::csp_source(&uri))
        .flatten()
}

crate::query_params! {
    /// Where the login form leads.
    struct LoginQuery {
        /// Where to go after signing in: only a local path (starting with one /, no
        /// backslash); anything else is ignored.
        next: Option<String>,
    }
}

/// `GET /accounts/login/`: the form, or onwards when already signed in.
async fn get(req: Req) -> Response {
    let q = match req.query() {
        Ok(q) => q,
        Err(e) => return pages::form_failure(&e),
    };
    let next = match LoginQuery::read(&q) {
        Ok(p) => local_next(p.next.as_deref()).map(str::to_owned),
        Err(e) => return pages::form_failure(&e),
    };
    let next = next.as_deref();
    match session::current(&req).await {
        Ok(Some((_, s))) => match next {
            Some(n) => redirect_to(StatusCode::FOUND, n, &[]),
            None => pages::signed_in(&s.username, &s.csrf).into_response(),
        },
        Ok(None) => form_page(&req, StatusCode::OK, next, "", None).await.into_response(),
        Err(e) => internal_page(e),
    }
}

crate::form_fields! {
    /// The login form (`POST /accounts/login/`).
    #[schema(as = LoginForm)]
    struct LoginFields {
        /// The form's CSRF token (the login page's signed token; else 403 and the form
        /// again).
        #[schema(required = true)]
        csrfmiddlewaretoken: Option<String>,
        /// The member's username or email (surrounding spaces ignored).
        #[schema(required = true)]
        username: Option<String>,
        /// The password.
        #[schema(required = true, format = Password)]
        password: Option<String>,
        /// Where to go after signing in: only a local path (starting with one /, no
        /// backslash); anything else is ignored.
        next: Option<String>,
    }
}

crate::form_fields! {
    /// The logout form (`POST /accounts/logout/`).
    #[schema(as = LogoutForm)]
    struct LogoutFields {
        /// The session's CSRF token (required while signed in; else 403).
        csrfmiddlewaretoken: Option<String>,
    }
}

/// `POST /accounts/login/`: checks the password and opens a session.
async fn post(mut req: Req) -> Response {
    // a public endpoint: the form is how the caller authenticates
    req.body.public();
    let form = match form::read(&mut req).await.and_then(|f| LoginFields::read(&f)) {
        Ok(f) => f,
        Err(e) => return pages::form_failure(&e),
    };
    let next = local_next(form.next.as_deref());
    let username = form.username.as_deref().unwrap_or("").trim();
    let keys = req.state.jwt_keys();
    let signed = session::login_csrf_ok(
        &req.headers,
        req.state.config.https(),
        super::client_addr(&req),
        &keys.accepted(req.state.clock.now()),
        form.csrfmiddlewaretoken.as_deref(),
    );
    if !signed {
        security::csrf_rejected(super::client_addr(&req));
        return form_page(&req, StatusCode::FORBIDDEN, next, username, Some(STALE))
            .await
            .into_response();
    }
    let password = form.password.as_deref().unwrap_or("");
    if username.is_empty() || password.is_empty() {
        return form_page(&req, StatusCode::OK, next, username, Some(WRONG)).await.into_response();
    }
    let addr = super::client_addr(&req);
    match super::password::check(&req.state, addr, username, password).await {
        Ok(Outcome::Ok(user_id)) => match session::open(&req, user_id).await {
            Ok(cookie) => {
                redirect_to(StatusCode::SEE_OTHER, next.unwrap_or("/accounts/login/"), &[cookie])
            }
            Err(e) => internal_page(e),
        },
        Ok(Outcome::Wrong) => {
            form_page(&req, StatusCode::OK, next, username, Some(WRONG)).await.into_response()
        }
        Ok(Outcome::AwaitingApproval) => {
            let msg = super::password::AWAITING_APPROVAL;
            form_page(&req, StatusCode::OK, next, username, Some(msg)).await.into_response()
        }
        Ok(Outcome::Throttled(secs)) => {
            let msg =
                format!("Too many failed sign-in attempts. Please try again in {secs} seconds.");
            let mut page =
                form_page(&req, StatusCode::TOO_MANY_REQUESTS, next, username, Some(&msg)).await;
            page.retry_after = Some(secs);
            page.into_response()
        }
        Err(e) => internal_page(e),
    }
}

/// `POST /accounts/logout/`: closes the session.
async fn post_logout(mut req: Req) -> Response {
    // a public endpoint: the form is how the caller authenticates
    req.body.public();
    let form = match form::read(&mut req).await.and_then(|f| LogoutFields::read(&f)) {
        Ok(f) => Some(f),
        // a post that is not a form carries no CSRF token: without a session it still
        // signs out (clears the cookie), with one it is refused below
        Err(ApiError::UnsupportedMediaType) => None,
        Err(e) => return pages::form_failure(&e),
    };
    let clear = session::set_cookie(SESSION_COOKIE, "", 0, req.state.config.https());
    let current = match session::current(&req).await {
        Ok(c) => c,
        Err(e) => return internal_page(e),
    };
    let Some((hash, s)) = current else {
        return redirect_to(StatusCode::SEE_OTHER, "/accounts/login/", &[clear]);
    };
    if !session::csrf_ok(&s.csrf, form.as_ref().and_then(|f| f.csrfmiddlewaretoken.as_deref())) {
        security::csrf_rejected(super::client_addr(&req));
        return pages::error(StatusCode::FORBIDDEN, "invalid_request", STALE).into_response();
    }
    let r = req
        .state
        .db
        .write(move |tx| crate::db::sessions::delete(tx, &hash).map_err(crate::db::DbError::from))
        .await;
    match r {
        Ok(()) => redirect_to(StatusCode::SEE_OTHER, "/accounts/login/", &[clear]),
        Err(e) => internal_page(e),
    }
}
