//! Platform features (SPEC §8): what the UI kit asks `GET /api/v2/feature/` before it
//! renders anything. The list is what this build of hearth implements, so it is part of
//! the code, not of the data: a feature hearth does not implement is absent, never
//! listed as enabled.

use serde::Serialize;

/// One feature: `{"id", "name", "enabled"}` (the SDK's `SCFeatureType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = Feature)]
pub struct Feature {
    /// Stable id.
    pub id: i64,
    /// The platform's feature name (the SDK's `SCFeatureName`).
    pub name: &'static str,
    /// Whether it is on.
    pub enabled: bool,
}

/// Every feature hearth implements, by id.
pub const FEATURES: [Feature; 3] = [
    // the REST API of SPEC §5 and §8
    Feature { id: 1, name: "api_v2", enabled: true },
    // reactions applied to contributions (votes)
    Feature { id: 2, name: "reaction", enabled: true },
    // courses, their members and sections
    Feature { id: 3, name: "course", enabled: true },
];

/// The features whose name is `name` (exactly, when given) and contains `search`
/// (case-insensitively, when given), by id.
pub fn matching(name: Option<&str>, search: Option<&str>) -> Vec<Feature> {
    let needle = search.map(str::to_lowercase);
    FEATURES
        .iter()
        .filter(|f| name.is_none_or(|n| f.name == n))
        .filter(|f| needle.as_deref().is_none_or(|s| f.name.contains(s)))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_by_name_and_search() {
        let names = |v: Vec<Feature>| v.iter().map(|f| f.name).collect::<Vec<_>>();
        assert_eq!(names(matching(None, None)), ["api_v2", "reaction", "course"]);
        assert_eq!(names(matching(Some("course"), None)), ["course"]);
        assert_eq!(names(matching(Some("cours"), None)), Vec::<&str>::new());
        assert_eq!(names(matching(None, Some("RE"))), ["reaction"]);
        assert_eq!(names(matching(Some("course"), Some("api"))), Vec::<&str>::new());
        let mut ids: Vec<i64> = FEATURES.iter().map(|f| f.id).collect();
        ids.dedup();
        assert_eq!(ids.len(), FEATURES.len(), "ids are unique");
        assert!(FEATURES.iter().all(|f| f.enabled));
    }
}
