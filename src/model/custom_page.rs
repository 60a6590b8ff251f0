//! Custom pages (SPEC §10, "Custom ADV, menus & pages"): the pages a community writes for
//! its site (about us, rules, FAQ...), kept by staff with `hearth page`; none by default.
//! The body is rich text through the one sanitizer (SPEC §5). A page is published while
//! it is active and inside its validity window; anyone else than staff sees only
//! published pages. The terms and the privacy policy are the legal pages
//! (`/api/v2/legal_page/`), so every custom page here is of type `normal`.

use serde::Serialize;

use crate::clock::{Timestamp, rfc3339};

/// Longest title, in characters.
pub const TITLE_MAX: usize = 255;
/// Longest body as given, in bytes.
pub const BODY_MAX: usize = 256 * 1024;

/// A page as stored (its HTML already sanitized).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub id: i64,
    pub slug: String,
    pub title: String,
    pub html_body: String,
    pub html_summary: String,
    pub valid_from: Timestamp,
    pub valid_to: Option<Timestamp>,
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Page {
    /// Whether anyone may see it at `now`: active, and `now` inside its window.
    pub fn published(&self, now: Timestamp) -> bool {
        self.active && self.valid_from <= now && self.valid_to.is_none_or(|t| now < t)
    }

    /// The JSON the kit reads.
    pub fn to_json(&self) -> PageJson {
        PageJson {
            id: self.id,
            r#type: "normal",
            slug: self.slug.clone(),
            title: self.title.clone(),
            html_summary: self.html_summary.clone(),
            html_body: self.html_body.clone(),
            valid_from: rfc3339(self.valid_from),
            valid_to: self.valid_to.map(rfc3339),
            created_at: rfc3339(self.created_at),
            updated_at: rfc3339(self.updated_at),
            active: self.active,
            created_by: None,
            updated_by: None,
        }
    }
}

/// `SCCustomPageType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CustomPage)]
pub struct PageJson {
    pub id: i64,
    /// Always `normal` (legal pages are served apart, at `/api/v2/legal_page/`)
    #[serde(rename = "type")]
    #[schema(rename = "type")]
    pub r#type: &'static str,
    /// Lowercase letters, digits and dashes, unique
    pub slug: String,
    /// Plain text
    pub title: String,
    /// Safe HTML of the body's first 200 characters (SPEC §5's sanitizer)
    pub html_summary: String,
    /// The body as safe HTML (SPEC §5's sanitizer)
    pub html_body: String,
    #[schema(format = DateTime)]
    pub valid_from: String,
    /// null: no end
    #[schema(format = DateTime)]
    pub valid_to: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub active: bool,
    /// Made by staff with the CLI: no user
    pub created_by: Option<i64>,
    /// Changed by staff with the CLI: no user
    pub updated_by: Option<i64>,
}

/// A page's title: 1 to [`TITLE_MAX`] characters of plain text.
pub fn check_title(title: &str) -> Result<String, String> {
    let t = title.trim();
    if t.is_empty() || t.chars().count() > TITLE_MAX || t.chars().any(char::is_control) {
        return Err(format!("title: 1 to {TITLE_MAX} characters, no control characters"));
    }
    Ok(t.to_owned())
}

/// A page's slug: the slug rule of SPEC §5 ([`super::slug::is_valid`]).
pub fn check_slug(slug: &str) -> Result<(), String> {
    if super::slug::is_valid(slug) {
        Ok(())
    } else {
        Err(format!("slug {slug:?}: lowercase letters, digits and single dashes, at most 100"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        for bad in ["", "A", "a--b", "-a", "a-", "a/b", "ä"] {
            assert!(check_slug(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn published_is_active_inside_the_window() {
        let p = Page {
            id: 1,
            slug: "a".into(),
            title: "A".into(),
            html_body: String::new(),
            html_summary: String::new(),
            valid_from: 10,
            valid_to: Some(20),
            active: true,
            created_at: 0,
            updated_at: 0,
        };
        assert!(!p.published(9) && p.published(10) && p.published(19) && !p.published(20));
        assert!(!Page { active: false, ..p.clone() }.published(15));
        assert!(Page { valid_to: None, ..p }.published(1000));
    }
}
