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
            let frag = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(params)
                .finish();
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

    #[test]
    fn query_keeps_registered_parameters() {
        assert_eq!(
            build(
                "https://app.example/cb?x=1",
                Mode::Query,
                &[("code", "abc"), ("state", "s p")]
            ),
            Some("https://app.example/cb?x=1&code=abc&state=s+p".into())
        );
        assert_eq!(
            build(
                "https://app.example/cb",
                Mode::Query,
                &[("error", "access_denied")]
            ),
            Some("https://app.example/cb?error=access_denied".into())
        );
    }

    #[test]
    fn fragment_for_implicit() {
        assert_eq!(
            build(
                "https://app.example/cb?x=1",
                Mode::Fragment,
                &[("access_token", "t"), ("scope", "read write")]
            ),
            Some("https://app.example/cb?x=1#access_token=t&scope=read+write".into())
        );
    }

    #[test]
    fn csp_sources() {
        assert_eq!(
            csp_source("https://app.example:8443/cb?x=1").as_deref(),
            Some("https://app.example:8443")
        );
        assert_eq!(
            csp_source("com.example.app:/cb").as_deref(),
            Some("com.example.app:")
        );
    }

    #[test]
    fn next_must_be_local() {
        for ok in [
            "/oauth/authorize/?client_id=a&x=%2F%2F",
            "/",
            "/accounts/login/",
        ] {
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
