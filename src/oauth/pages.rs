//! The server-rendered pages: login, consent, signed-in, and errors. No JavaScript;
//! every form carries a CSRF token; every page is sent with `X-Frame-Options: DENY`, a
//! strict `Content-Security-Policy` and `Cache-Control: no-store` (SPEC §4).
//!
//! The HTML is written with maud's `html!`: every value spliced in with `(…)` is
//! escaped, so an app's name or a username cannot become markup; only the constant
//! style sheet and doctype are spliced unescaped (`PreEscaped`).

use maud::{Markup, PreEscaped, html};
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

use crate::error::ApiError;
use crate::model::app::{App, Authorization};
use crate::oauth::scope::Scope;

const STYLE: &str = "body{font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;\
background:#f4f5f7;color:#1f2328;margin:0}\
main{max-width:26rem;margin:4rem auto;background:#fff;border-radius:12px;\
box-shadow:0 1px 3px rgba(0,0,0,.12);padding:2rem}\
h1{font-size:1.35rem;margin:0 0 1rem}p{margin:.5rem 0}.muted{color:#656d76;font-size:.9rem}\
label{display:block;margin:.75rem 0 .25rem;font-weight:600}\
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;\
border:1px solid #d0d7de;border-radius:6px;font:inherit}\
button{font:inherit;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #d0d7de;\
background:#f6f8fa;cursor:pointer;margin:1rem .5rem 0 0}\
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}\
.error{background:#ffebe9;border:1px solid #ff8182;border-radius:6px;padding:.5rem .75rem}\
.app{display:flex;gap:1rem;align-items:center;margin-bottom:1rem}\
.app img{width:56px;height:56px;border-radius:10px;object-fit:cover}\
ul{padding-left:1.2rem}code{background:#f6f8fa;padding:0 .25rem;border-radius:4px}";

/// A page to send.
#[derive(Debug)]
pub struct Page {
    /// Status code.
    pub status: StatusCode,
    /// `<title>` and heading.
    pub title: String,
    /// The inside of `<main>` after the heading.
    pub body: Markup,
    /// A CSP source (the redirect URI's origin) that forms may also post to.
    pub form_action: Option<String>,
    /// `Set-Cookie` values.
    pub cookies: Vec<String>,
    /// `Retry-After` seconds.
    pub retry_after: Option<u64>,
}

impl Page {
    /// A page with a status, title and body.
    pub fn new(status: StatusCode, title: &str, body: Markup) -> Self {
        Page {
            status,
            title: title.to_owned(),
            body,
            form_action: None,
            cookies: Vec::new(),
            retry_after: None,
        }
    }

    /// The whole document: the title and heading around the body.
    fn document(&self) -> Markup {
        html! {
            (PreEscaped("<!doctype html>\n"))
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width,initial-scale=1";
                    title { (self.title) " · hearth" }
                    style { (PreEscaped(STYLE)) }
                }
                body { main { h1 { (self.title) } (self.body) } }
            }
            "\n"
        }
    }

    /// The response with its security headers.
    pub fn into_response(self) -> Response {
        let mut resp = crate::http::bytes_response(
            self.status,
            "text/html; charset=utf-8",
            self.document().into_string().into_bytes(),
        );
        let h = resp.headers_mut();
        let form_action = match &self.form_action {
            Some(o) => format!("'self' {o}"),
            None => "'self'".to_owned(),
        };
        let csp = format!(
            "default-src 'none'; frame-ancestors 'none'; img-src 'self' https:; \
style-src 'unsafe-inline'; form-action {form_action}; base-uri 'none'"
        );
        if let Ok(v) = HeaderValue::from_str(&csp) {
            h.insert(header::CONTENT_SECURITY_POLICY, v);
        }
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        super::no_store(h);
        for c in &self.cookies {
            if let Ok(v) = HeaderValue::from_str(c) {
                h.append(header::SET_COOKIE, v);
            }
        }
        if let Some(secs) = self.retry_after {
            h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        resp
    }
}

/// A hidden form field.
fn hidden(name: &str, value: &str) -> Markup {
    html! { input type="hidden" name=(name) value=(value); }
}

/// The login form; `message` is shown above it.
pub fn login(
    status: StatusCode,
    csrf: &str,
    next: Option<&str>,
    username: &str,
    message: Option<&str>,
) -> Page {
    let body = html! {
        @if let Some(m) = message {
            p.error role="alert" { (m) }
        }
        form method="post" action="/accounts/login/" {
            (hidden("csrfmiddlewaretoken", csrf))
            @if let Some(n) = next { (hidden("next", n)) }
            label for="username" { "Username" }
            input type="text" id="username" name="username" value=(username)
                autocomplete="username" required autofocus;
            label for="password" { "Password" }
            input type="password" id="password" name="password"
                autocomplete="current-password" required;
            button.primary type="submit" { "Sign in" }
        }
    };
    Page::new(status, "Sign in", body)
}

/// The page of a signed-in user who came to the login page with nowhere to go.
pub fn signed_in(username: &str, csrf: &str) -> Page {
    let body = html! {
        p { "You are signed in as " strong { (username) } "." }
        form method="post" action="/accounts/logout/" {
            (hidden("csrfmiddlewaretoken", csrf))
            button type="submit" { "Sign out" }
        }
    };
    Page::new(StatusCode::OK, "Signed in", body)
}

/// The authorization parameters a consent form posts back.
#[derive(Debug, Clone, Default)]
pub struct ConsentFields {
    pub response_type: String,
    pub client_id: String,
    pub state: Option<String>,
    pub authorization: Authorization,
}

/// The consent page: the app's name, description and image, the scopes, Allow / Deny.
pub fn consent(app: &App, username: &str, scope: Scope, f: &ConsentFields, csrf: &str) -> Page {
    let a = &f.authorization;
    let image = app.image.starts_with("https://") || app.image.starts_with('/');
    let optional = [
        ("state", &f.state),
        ("code_challenge", &a.code_challenge),
        ("code_challenge_method", &a.code_challenge_method),
    ];
    let body = html! {
        div.app {
            @if image { img src=(app.image) alt=""; }
            div { strong { (app.name) } " wants to access your account." }
        }
        @if !app.description.is_empty() { p { (app.description) } }
        p { "It will be able to:" }
        ul {
            @if scope.read {
                li { strong { "read" } ": see your profile and the community's content as you" }
            }
            @if scope.write {
                li { strong { "write" } ": post, react, follow and change things as you" }
            }
        }
        p.muted {
            "Signed in as " (username) ". After your choice you will be sent to "
            code { (a.redirect_uri) } "."
        }
        form method="post" action="/oauth/authorize/" {
            (hidden("csrfmiddlewaretoken", csrf))
            (hidden("response_type", &f.response_type))
            (hidden("client_id", &f.client_id))
            (hidden("redirect_uri", &a.redirect_uri))
            (hidden("scope", &a.scope))
            @for (name, v) in optional {
                @if let Some(v) = v { (hidden(name, v)) }
            }
            button.primary type="submit" name="allow" value="Authorize" { "Allow" }
            button type="submit" name="deny" value="Deny" { "Deny" }
        }
    };
    let mut page = Page::new(StatusCode::OK, &format!("Authorize {}", app.name), body);
    page.form_action = super::redirect::csp_source(&a.redirect_uri);
    page
}

/// An error page (never a redirect): the RFC code and what it means.
pub fn error(status: StatusCode, code: &str, description: &str) -> Page {
    let body = html! {
        p.error role="alert" { code { (code) } }
        p { (description) }
    };
    Page::new(status, "Authorization error", body)
}

/// The page for a form (or query string) that could not be read
/// ([`crate::http::form::read`], [`crate::http::Req::query`]): the
/// status and headers the JSON API would answer (413, 415, 408 closing the connection,
/// 503 with `Retry-After`), as a page a browser shows.
pub fn form_failure(e: &ApiError) -> Response {
    let (code, description) = match e {
        ApiError::Internal(cause) => return super::internal_page(cause),
        ApiError::UnsupportedMediaType => (
            "invalid_request",
            "The form must be posted as application/x-www-form-urlencoded.".to_owned(),
        ),
        ApiError::PayloadTooLarge => ("invalid_request", "The form is too large.".to_owned()),
        ApiError::TooManyParameters(max) => {
            ("invalid_request", format!("The request has more than {max} parameters."))
        }
        ApiError::RequestTimeout => {
            ("invalid_request", "The form did not arrive in time. Please try again.".to_owned())
        }
        ApiError::Unavailable(why) => (
            "temporarily_unavailable",
            format!(
                "The server cannot handle the request right now. Please try again in {} seconds.",
                why.retry_after()
            ),
        ),
        _ => ("invalid_request", "The form could not be read.".to_owned()),
    };
    let mut page = error(e.status(), code, &description);
    if let ApiError::Unavailable(why) = e {
        page.retry_after = Some(why.retry_after());
    }
    let mut resp = page.into_response();
    if matches!(e, ApiError::RequestTimeout) {
        // the rest of the body may still be on its way: the connection cannot be reused
        resp.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_carry_security_headers() {
        let mut p = login(StatusCode::OK, "tok", Some("/x"), "<ann>", Some("bad"));
        p.form_action = Some("https://app.example".into());
        let r = p.into_response();
        let h = r.headers();
        assert_eq!(h[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(h[header::CACHE_CONTROL], "no-store");
        let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap_or("");
        assert!(csp.contains("default-src 'none'"));
        assert!(csp.contains("frame-ancestors 'none'"));
        assert!(csp.contains("form-action 'self' https://app.example"));
    }

    /// Markup in anything a page shows (an app's name, description, image URL and
    /// redirect URI, a username, a state) reaches the browser as text.
    #[test]
    fn every_value_is_escaped() {
        let evil = r#"<script>alert("x")</script>&"'"#;
        let app = App {
            id: 1,
            client_id: "c".into(),
            secret_hash: Vec::new(),
            name: evil.into(),
            description: format!("<b>{evil}</b>"),
            image: format!("https://a.example/i.png\"><img src=x onerror={evil}"),
            grant: crate::model::app::AppGrant::AuthorizationCode,
            confidential: true,
            skip_consent: false,
            redirect_uris: Vec::new(),
            created_at: 0,
        };
        let fields = ConsentFields {
            state: Some(evil.into()),
            authorization: Authorization { redirect_uri: evil.into(), ..Default::default() },
            ..Default::default()
        };
        let scope = Scope::ALL;
        for page in [
            consent(&app, evil, scope, &fields, evil),
            login(StatusCode::OK, evil, Some(evil), evil, Some(evil)),
            signed_in(evil, evil),
            error(StatusCode::BAD_REQUEST, evil, evil),
        ] {
            // the whole document: the title and heading carry the app's name
            let html = page.document().into_string();
            assert!(!html.contains("<script") && !html.contains("<b>"), "{html}");
            assert!(!html.contains("<img src=x"), "{html}");
            assert!(
                html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;"),
                "{html}"
            );
        }
    }
}
