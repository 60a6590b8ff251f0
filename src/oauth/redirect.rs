//! Where browsers are sent: redirect URIs with parameters added (RFC 6749 §3.1.2, §4.1.2,
//! §4.2.2), and the local `next` path of the login page.

use url::Url;

/// Where the response parameters of an authorization response go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Added to the query (authorization code flow), keeping a registered query.
    Query,
    /// In the fragment (implicit flow).
    Fragment,
}

/// `redirect_uri` with `params` added in `mode`. Parameters already in a registered
/// URI's query stay (RFC 6749 §3.1.2). `None` only if the URI does not parse, which
/// registration prevents.
pub fn build(redirect_uri: &str, mode: Mode, params: &[(&str, &str)]) -> Option<String> {
    let mut url = Url::parse(redirect_uri).ok()?;
    match mode {
        Mode::Query => {
            let mut q = url.query_pairs_mut();
            for (k, v) in params {
                q.append_pair(k, v);
            }
        }
        Mode::Fragment => {
            let frag =
                url::form_urlencoded::Serializer::new(String::new()).extend_pairs(params).finish();
            url.set_fragment(Some(&frag));
        }
    }
    Some(url.into())
}

/// The origin of a redirect URI as a CSP source (`https://app.example:8443`), or its
/// scheme (`com.example.app:`) for a URI with an opaque origin.
pub fn csp_source(redirect_uri: &str) -> Option<String> {
    let url = Url::parse(redirect_uri).ok()?;
    let origin = url.origin();
    if origin.is_tuple() {
        Some(origin.ascii_serialization())
    } else {
        let scheme = url.scheme();
        scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
            .then(|| format!("{scheme}:"))
    }
}

/// Checks a redirect URI for registration (SPEC §4; RFC 6749 §3.1.2, RFC 8252 §7,
/// RFC 9700 §2.1): absolute, no fragment, no user information, no whitespace; `https`
/// with a host; `http` only with a loopback host (`127.0.0.1`, `[::1]`, `localhost`:
/// RFC 8252 §7.3); any other scheme only if it contains a dot (a private-use scheme
/// of a native app in reverse-domain form, RFC 8252 §7.1). The one rule `app create`,
/// `app update` and `hearth check` apply. The error is one line naming the URI.
pub fn check_registrable(uri: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("redirect URI {uri:?} {why}"));
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad("must not contain whitespace or control characters");
    }
    let url = match Url::parse(uri) {
        Ok(u) => u,
        Err(e) => return bad(&format!("is not an absolute URI ({e})")),
    };
    if uri.contains('#') || url.fragment().is_some() {
        return bad("must not have a fragment");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return bad("must not contain user information");
    }
    match url.scheme() {
        "https" => {
            if url.host_str().is_none_or(str::is_empty) {
                return bad("has no host");
            }
        }
        "http" => {
            let loopback = match url.host() {
                Some(url::Host::Domain(d)) => d == "localhost",
                Some(url::Host::Ipv4(a)) => a == std::net::Ipv4Addr::LOCALHOST,
                Some(url::Host::Ipv6(a)) => a == std::net::Ipv6Addr::LOCALHOST,
                None => false,
            };
            if !loopback {
                return bad(
                    "uses http with a host that is not loopback (127.0.0.1, [::1] or localhost); use https",
                );
            }
        }
        s if s.contains('.') => {}
        s => {
            return bad(&format!(
                "has scheme {s:?}: only https, http on a loopback host, or a private-use scheme with a dot (com.example.app:/cb) are allowed"
            ));
        }
    }
    Ok(())
}

/// Whether `next` is a local path this server may redirect to after login: it starts
/// with one `/`, and has no backslash, no control character or space, and no
/// scheme or authority (`//evil`, `/\evil`, `https://evil` are refused).
pub fn is_local_path(next: &str) -> bool {
    next.starts_with('/')
        && !next.starts_with("//")
        && next.len() <= 4096
        && !next.bytes().any(|b| b == b'\\' || b <= b' ' || b == 0x7f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query keeps the registered parameters; the implicit flow's go in the
    /// fragment.
    #[test]
    fn parameters_go_in_the_query_or_the_fragment() {
        let cb = "https://app.example/cb?x=1";
        type Case<'a> = (&'a str, Mode, &'a [(&'a str, &'a str)], &'a str);
        let cases: [Case; 3] = [
            (
                cb,
                Mode::Query,
                &[("code", "abc"), ("state", "s p")],
                "https://app.example/cb?x=1&code=abc&state=s+p",
            ),
            (
                "https://app.example/cb",
                Mode::Query,
                &[("error", "access_denied")],
                "https://app.example/cb?error=access_denied",
            ),
            (
                cb,
                Mode::Fragment,
                &[("access_token", "t"), ("scope", "read write")],
                "https://app.example/cb?x=1#access_token=t&scope=read+write",
            ),
        ];
        for (uri, mode, params, want) in cases {
            assert_eq!(build(uri, mode, params).as_deref(), Some(want), "{uri}");
        }
    }

    #[test]
    fn csp_sources() {
        assert_eq!(
            csp_source("https://app.example:8443/cb?x=1").as_deref(),
            Some("https://app.example:8443")
        );
        assert_eq!(csp_source("com.example.app:/cb").as_deref(), Some("com.example.app:"));
    }

    #[test]
    fn registrable_redirect_uris() {
        for ok in [
            "https://app.example/cb",
            "https://app.example:8443/cb?x=1",
            "http://127.0.0.1:9000/cb?x=1",
            "http://[::1]/cb",
            "http://localhost:3000/cb",
            "http://LOCALHOST/cb",
            "com.example.app:/oauth",
            "com.example.app://callback",
        ] {
            assert_eq!(check_registrable(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("/relative/cb", "absolute"),
            ("not a uri", "whitespace"),
            ("https://app.example/cb#frag", "fragment"),
            ("https://app.example/cb#", "fragment"),
            ("https://user@app.example/cb", "user information"),
            ("https://user:pw@app.example/cb", "user information"),
            ("http://:pw@127.0.0.1/cb", "user information"),
            ("com.example.app://user@host/cb", "user information"),
            ("http://example.org/cb", "loopback"),
            ("http://127.0.0.2/cb", "loopback"),
            ("http://localhost.example.org/cb", "loopback"),
            ("javascript:alert(1)", "scheme \"javascript\""),
            ("data:text/html,hi", "scheme \"data\""),
            ("file:///etc/passwd", "scheme \"file\""),
            ("ftp://files.example/cb", "scheme \"ftp\""),
            ("myapp:/cb", "scheme \"myapp\""),
            ("https://", "absolute"),
            ("https://app.example/c b", "whitespace"),
        ] {
            let err = check_registrable(bad).err().unwrap_or_default();
            assert!(err.contains(why), "{bad}: {err}");
            assert!(!err.contains('\n'), "{bad}: one line");
        }
    }

    #[test]
    fn next_must_be_local() {
        for ok in ["/oauth/authorize/?client_id=a&x=%2F%2F", "/", "/accounts/login/"] {
            assert!(is_local_path(ok), "{ok}");
        }
        for bad in [
            "//evil.example",
            "/\\evil.example",
            "https://evil.example/",
            "evil.example",
            "",
            "/\tx",
            "/ok\\..",
            "javascript:alert(1)",
        ] {
            assert!(!is_local_path(bad), "{bad}");
        }
    }
}
