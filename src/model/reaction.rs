//! Reactions: the stored record and its JSON (SPEC §5).

use serde::Serialize;

use super::PublicUrl;

/// One reaction row. `image` is `None` for hearth's default image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reaction {
    /// Id.
    pub id: i64,
    /// Label, e.g. `like`.
    pub label: String,
    /// -1, 0 or 1 for the defaults; any integer.
    pub sentiment: i64,
    /// Image URL or local path; `None` = default.
    pub image: Option<String>,
    /// Whether clients offer it.
    pub active: bool,
}

/// Image of a reaction added without one, served by hearth.
pub const DEFAULT_IMAGE: &str = "/static/reactions/default.svg";

/// `{"id", "label", "sentiment", "image", "active"}`; `image` is an absolute URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = Reaction)]
pub struct ReactionJson {
    pub id: i64,
    pub label: String,
    /// Any integer; the defaults use 1, 0 and -1.
    pub sentiment: i64,
    /// Absolute URL; /static/reactions/default.svg when the reaction has no image.
    #[schema(format = "uri")]
    pub image: String,
    pub active: bool,
}

impl ReactionJson {
    /// The JSON of a stored reaction; `image` is a stored URL or local path, `None` for
    /// the default image.
    pub fn new(
        base: &PublicUrl,
        id: i64,
        label: String,
        sentiment: i64,
        image: Option<&str>,
        active: bool,
    ) -> Self {
        ReactionJson {
            id,
            label,
            sentiment,
            image: base.resolve(image.unwrap_or(""), DEFAULT_IMAGE),
            active,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_absolute() {
        let base = PublicUrl("http://h:1".into());
        let r =
            ReactionJson::new(&base, 1, "like".into(), 1, Some("/static/reactions/like.svg"), true);
        assert_eq!(r.image, "http://h:1/static/reactions/like.svg");
        let r = ReactionJson::new(&base, 7, "x".into(), 0, None, false);
        assert_eq!(r.image, "http://h:1/static/reactions/default.svg");
        let r = ReactionJson::new(&base, 8, "y".into(), 0, Some("https://cdn/y.png"), true);
        assert_eq!(r.image, "https://cdn/y.png");
    }
}
