//! Categories: the record that contributions and courses are filed under.

/// One category row; serialises as SPEC §5's Category JSON
/// `{"id", "name", "slug", "active", "deleted", "order", "image_medium"}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[schema(as = Category)]
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
    /// Image URL (may be empty).
    pub image_medium: String,
}
