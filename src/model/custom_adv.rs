//! Custom advertising (SPEC §10, "Custom ADV, menus & pages"): the banners a community
//! puts in the kit's `CustomAdv` slots (below the top bar, in the feed, beside it, in a
//! category's feed...), kept by staff with `hearth adv`; none by default. An adv shows an
//! image, HTML (`embed_code`, through the one sanitizer: the kit puts it into the page as
//! HTML and would run its scripts, so no script survives), or both, and may link
//! somewhere. One with a category shows only where the kit names that category.

use serde::Serialize;

use crate::clock::{Timestamp, rfc3339};

/// The slots of the kit's `SCCustomAdvPosition`.
pub const POSITIONS: [&str; 8] = [
    "BELOW_TOPBAR",
    "BELOW_THE_POST",
    "IN_POST_COMMENTS",
    "RELATED_POSTS_COLUMN",
    "TOOLS_COLUMN",
    "IN_STREAM",
    "ABOVE_THE_STREAM",
    "ABOVE_THE_STREAM_CATEGORY",
];

/// Longest title, in characters.
pub const TITLE_MAX: usize = 255;
/// Longest embed code as given, in bytes.
pub const EMBED_MAX: usize = 64 * 1024;

/// An adv as stored (`embed_code` already sanitized).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adv {
    pub id: i64,
    pub position: String,
    pub title: Option<String>,
    pub link: Option<String>,
    pub image: Option<String>,
    pub embed_code: Option<String>,
    pub active: bool,
    pub category: Option<i64>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// `SCCustomAdvType`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CustomAdv)]
pub struct AdvJson {
    pub id: i64,
    /// One of the kit's slots (`SCCustomAdvPosition`)
    pub position: String,
    /// Plain text (the image's `alt`, the link's `title`)
    pub title: Option<String>,
    /// Where the adv leads: an http(s) URL or a path on the community's site
    pub link: Option<String>,
    /// The banner's image URL
    pub image: Option<String>,
    /// Safe HTML (the rich-text sanitizer's allowlist: no scripts, frames or handlers)
    pub embed_code: Option<String>,
    pub active: bool,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub lastmod_datetime: String,
    /// The category whose pages show it; null: every page with its slot
    pub category: Option<i64>,
}

impl Adv {
    /// The JSON the kit reads.
    pub fn to_json(&self) -> AdvJson {
        AdvJson {
            id: self.id,
            position: self.position.clone(),
            title: self.title.clone(),
            link: self.link.clone(),
            image: self.image.clone(),
            embed_code: self.embed_code.clone(),
            active: self.active,
            created_at: rfc3339(self.created_at),
            lastmod_datetime: rfc3339(self.updated_at),
            category: self.category,
        }
    }
}

/// What staff give for a new adv, checked by [`NewAdv::check`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewAdv {
    pub position: String,
    pub title: Option<String>,
    pub link: Option<String>,
    pub image: Option<String>,
    /// As given: sanitized by [`NewAdv::check`].
    pub embed_code: Option<String>,
    pub active: bool,
    pub category: Option<i64>,
}

impl NewAdv {
    /// Checks each field and sanitizes the embed code; an adv must show something (an
    /// image or some HTML). The error names the field.
    pub fn check(mut self) -> Result<NewAdv, String> {
        if !POSITIONS.contains(&self.position.as_str()) {
            return Err(format!("position {:?}: one of {}", self.position, POSITIONS.join(", ")));
        }
        if let Some(t) = &self.title {
            let t = t.trim();
            if t.chars().count() > TITLE_MAX || t.chars().any(char::is_control) {
                return Err(format!(
                    "title: at most {TITLE_MAX} characters, no control characters"
                ));
            }
            self.title = (!t.is_empty()).then(|| t.to_owned());
        }
        for (what, url) in [("link", &self.link), ("image", &self.image)] {
            if let Some(u) = url
                && !super::link::is_safe(u)
            {
                return Err(format!(
                    "{what} {u:?} must be an http(s) URL or a path that starts with /"
                ));
            }
        }
        if let Some(code) = &self.embed_code {
            if code.len() > EMBED_MAX {
                return Err(format!("embed code: at most {EMBED_MAX} bytes"));
            }
            let html = super::rich_text::render(code).html;
            self.embed_code = (!html.trim().is_empty()).then_some(html);
        }
        if self.image.is_none() && self.embed_code.is_none() {
            return Err("an adv needs an image or some embed code to show".into());
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]
    use super::*;

    fn adv() -> NewAdv {
        NewAdv {
            position: "BELOW_TOPBAR".into(),
            image: Some("https://example.org/a.png".into()),
            ..NewAdv::default()
        }
    }

    #[test]
    fn embed_code_goes_through_the_sanitizer() {
        let a = NewAdv {
            embed_code: Some("<p onclick=\"x()\">Hi<script>alert(1)</script></p>".into()),
            ..adv()
        };
        let html = a.check().unwrap().embed_code.unwrap();
        assert!(!html.contains("script") && !html.contains("onclick"), "{html}");
        assert!(html.contains("Hi"));
        // only a script: nothing left to show, and no image either
        let a = NewAdv { image: None, embed_code: Some("<script>x()</script>".into()), ..adv() };
        assert!(a.check().is_err_and(|e| e.contains("image or some embed code")));
    }

    #[test]
    fn fields_are_checked() {
        assert!(NewAdv { position: "SIDEBAR".into(), ..adv() }.check().is_err());
        assert!(NewAdv { link: Some("javascript:x".into()), ..adv() }.check().is_err());
        assert!(NewAdv { image: Some("data:image/png,x".into()), ..adv() }.check().is_err());
        assert!(NewAdv { title: Some("a\u{1b}[2J".into()), ..adv() }.check().is_err());
        assert!(NewAdv { title: Some("x".repeat(TITLE_MAX + 1)), ..adv() }.check().is_err());
        assert_eq!(NewAdv { title: Some("  ".into()), ..adv() }.check().unwrap().title, None);
    }
}
