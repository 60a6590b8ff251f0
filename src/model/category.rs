//! Categories: the record that contributions and courses are filed under, and users
//! follow (SPEC §5, §8).

use serde::Serialize;

use super::PublicUrl;

/// The square image of a category that has none, served by hearth.
pub const DEFAULT_IMAGE: &str = "/static/default/category.svg";
/// The landscape image (`emotional_image_original`, the category hub's banner) of a
/// category that has none: hearth's default cover.
pub const DEFAULT_EMOTIONAL_IMAGE: &str = "/static/default/cover.svg";

/// One category row, and whether the caller follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    /// Id.
    pub id: i64,
    /// Display name.
    pub name: String,
    /// Unique URL slug.
    pub slug: String,
    /// Offered to users.
    pub active: bool,
    /// Soft-deleted.
    pub deleted: bool,
    /// Manual order.
    pub order: i64,
    /// Image URL or local path (empty: the default image).
    pub image_medium: String,
    /// Live users following it.
    pub followers_counter: i64,
    /// Whether the caller follows it: filled in by code that knows the caller
    /// (`db::category_follows::mark`); false until then and for anonymous callers.
    pub followed: bool,
}

/// SPEC §5/§8's Category JSON. hearth stores one image per category (`image_medium`);
/// every square size is that image, or hearth's default when it has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = Category)]
pub struct CategoryJson {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub active: bool,
    pub deleted: bool,
    pub order: i64,
    pub description: &'static str,
    pub image_original: String,
    pub image_bigger: String,
    pub image_big: String,
    pub image_medium: String,
    pub image_small: String,
    pub emotional_image_original: String,
    pub followers_counter: i64,
    pub followed: bool,
}

impl Category {
    /// The JSON, with absolute image URLs.
    pub fn to_json(&self, base: &PublicUrl) -> CategoryJson {
        let image = base.resolve(&self.image_medium, DEFAULT_IMAGE);
        CategoryJson {
            id: self.id,
            name: self.name.clone(),
            slug: self.slug.clone(),
            active: self.active,
            deleted: self.deleted,
            order: self.order,
            // hearth keeps no category description
            description: "",
            image_original: image.clone(),
            image_bigger: image.clone(),
            image_big: image.clone(),
            image_small: image.clone(),
            image_medium: image,
            emotional_image_original: base.at(DEFAULT_EMOTIONAL_IMAGE),
            followers_counter: self.followers_counter,
            followed: self.followed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_absolute_with_served_defaults() {
        let base = PublicUrl("http://h:1".into());
        let mut c = Category {
            id: 1,
            name: "News".into(),
            slug: "news".into(),
            active: true,
            deleted: false,
            order: 0,
            image_medium: String::new(),
            followers_counter: 3,
            followed: true,
        };
        let j = c.to_json(&base);
        assert_eq!(j.image_medium, "http://h:1/static/default/category.svg");
        assert_eq!(j.image_original, j.image_medium);
        assert_eq!(j.emotional_image_original, "http://h:1/static/default/cover.svg");
        assert_eq!((j.followers_counter, j.followed), (3, true));
        c.image_medium = "https://cdn.example/n.png".into();
        let j = c.to_json(&base);
        assert_eq!(j.image_small, "https://cdn.example/n.png");
        assert_eq!(j.description, "");
    }
}
