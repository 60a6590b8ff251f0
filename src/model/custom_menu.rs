//! Custom menus (SPEC §10, "Custom ADV, menus & pages"): the links a community puts in
//! the kit's footer, kept by staff with `hearth menu`. Three menus exist, empty until
//! staff add items: `base` (the footer of signed-in members), `not_logged` (visitors)
//! and `user` (the user menu), the names the kit asks for.

use serde::Serialize;

use crate::clock::{Timestamp, rfc3339};

/// The menus every hearth has, by id: the names the kit's `SCCustomMenu` asks for.
pub const MENUS: [(i64, &str); 3] = [(1, "base"), (2, "not_logged"), (3, "user")];

/// Longest item label, in characters.
pub const LABEL_MAX: usize = 100;
/// Longest item URL, in bytes.
pub const URL_MAX: usize = 2048;

/// One link of a menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuItem {
    pub id: i64,
    pub menu: i64,
    pub label: String,
    pub url: String,
    pub order: i64,
}

/// A menu and its items, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Menu {
    pub id: i64,
    pub name: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub items: Vec<MenuItem>,
}

/// `SCCustomMenuItemType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CustomMenuItem)]
pub struct MenuItemJson {
    pub id: i64,
    pub custom_menu: i64,
    /// Plain text (the kit shows it as text)
    pub label: String,
    /// An http(s) URL or a path on the community's site
    pub url: String,
    /// Always "" (hearth keeps no extra link attributes)
    pub attrs: String,
    /// The item's position, as the types package has it: a string
    pub order: String,
}

/// `SCCustomMenuType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CustomMenu)]
pub struct MenuJson {
    pub id: i64,
    pub name: String,
    pub items: Vec<MenuItemJson>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl Menu {
    /// The JSON the kit reads.
    pub fn to_json(&self) -> MenuJson {
        MenuJson {
            id: self.id,
            name: self.name.clone(),
            items: self
                .items
                .iter()
                .map(|i| MenuItemJson {
                    id: i.id,
                    custom_menu: i.menu,
                    label: i.label.clone(),
                    url: i.url.clone(),
                    attrs: String::new(),
                    order: i.order.to_string(),
                })
                .collect(),
            created_at: rfc3339(self.created_at),
            updated_at: rfc3339(self.updated_at),
        }
    }
}

/// An item's label: 1 to [`LABEL_MAX`] characters, no control characters.
pub fn check_label(label: &str) -> Result<(), String> {
    let n = label.trim().chars().count();
    if n == 0 || n > LABEL_MAX {
        return Err(format!("a menu item's label must be 1 to {LABEL_MAX} characters"));
    }
    if label.chars().any(char::is_control) {
        return Err("a menu item's label may not hold control characters".into());
    }
    Ok(())
}

/// An item's URL, which the kit puts in a link's `href`: `http`/`https` with a host, or
/// a path on the site (`/about/`, never `//host`). Nothing else (`javascript:`,
/// `data:`, ...), whatever its case or encoding.
pub fn check_url(url: &str) -> Result<(), String> {
    let refused =
        || Err(format!("menu URL {url:?} must be an http(s) URL or a path that starts with /"));
    if url.is_empty()
        || url.len() > URL_MAX
        || url.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return refused();
    }
    if url.starts_with('/') {
        return if url.starts_with("//") || url.starts_with("/\\") { refused() } else { Ok(()) };
    }
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(()),
        _ => refused(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_http_or_site_paths_only() {
        for ok in ["https://example.org/about", "http://x.org", "/privacy/", "/a?b=c#d"] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            " javascript:alert(1)",
            "data:text/html,x",
            "vbscript:x",
            "//evil.example/",
            "/\\evil.example",
            "https://",
            "mailto:a@b.c",
            "about",
            "",
        ] {
            assert!(check_url(bad).is_err(), "{bad:?}");
        }
        assert!(check_url(&format!("/{}", "a".repeat(URL_MAX))).is_err());
    }

    #[test]
    fn labels_are_short_plain_text() {
        assert!(check_label("About us").is_ok());
        assert!(check_label("  ").is_err());
        assert!(check_label(&"x".repeat(LABEL_MAX + 1)).is_err());
        assert!(check_label("a\u{0}b").is_err());
    }
}
