//! Links a browser follows or loads (SPEC §10, issue 27): what hearth stores as a URL
//! that the kit puts in an `href` or an `<img src>` (avatars, covers, websites, reaction
//! images, menu items). One rule for the API, the CLI and the importer: an `http`/`https`
//! URL with a host, or a path on this server (`/media/...`, never `//host`). Nothing
//! else (`javascript:`, `data:`, `vbscript:`, ...), whatever its case or encoding.

/// Longest link, in bytes.
pub const LINK_MAX: usize = 2048;

/// Whether `url` is a link hearth may store and serve (see the module).
pub fn is_safe(url: &str) -> bool {
    if url.is_empty()
        || url.len() > LINK_MAX
        || url.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return false;
    }
    if url.starts_with('/') {
        return !(url.starts_with("//") || url.starts_with("/\\"));
    }
    matches!(url::Url::parse(url), Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// [`is_safe`], or empty (unset: the served default), as a one-line error naming `what`.
pub fn check_optional(what: &str, url: &str) -> Result<(), String> {
    if url.is_empty() || is_safe(url) {
        Ok(())
    } else {
        Err(format!("{what} {url:?} must be an http(s) URL or a path that starts with /"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_site_paths_are_links() {
        for ok in ["https://example.org/a.png", "http://x.org", "/media/a.png", "/a?b=c#d"] {
            assert!(is_safe(ok), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            " javascript:alert(1)",
            "javascript&#58;alert(1)",
            "data:image/svg+xml,<svg onload=alert(1)>",
            "vbscript:x",
            "//evil.example/",
            "/\\evil.example",
            "https://",
            "mailto:a@b.c",
            "about",
            "",
        ] {
            assert!(!is_safe(bad), "{bad:?}");
        }
        assert!(!is_safe(&format!("/{}", "a".repeat(LINK_MAX))));
        assert!(check_optional("avatar", "").is_ok());
        assert!(check_optional("avatar", "data:x").is_err_and(|e| e.contains("avatar")));
    }
}
