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

/// A feature hearth implements that a community turns on with a preference (SPEC §10:
/// each area is on when its preference says so, and its feature is then listed as
/// enabled); absent from the list while the preference is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switched {
    pub feature: Feature,
    /// The preferences' section and names: on while any of them is.
    pub section: &'static str,
    pub names: &'static [&'static str],
}

/// The switched features.
pub const SWITCHED: [Switched; 3] = [
    // groups (SPEC §10 Groups)
    Switched {
        feature: Feature { id: 4, name: "grouping", enabled: true },
        section: "configurations",
        names: &["groups_enabled"],
    },
    // the audience of an item (its group), which the kit's Composer and groups
    // pages need beside `grouping`, and its CreateEventButton beside `event`
    Switched {
        feature: Feature { id: 5, name: "tagging", enabled: true },
        section: "configurations",
        names: &["groups_enabled", "events_enabled"],
    },
    // events (SPEC §10 Events)
    Switched {
        feature: Feature { id: 6, name: "event", enabled: true },
        section: "configurations",
        names: &["events_enabled"],
    },
];

/// The features whose name is `name` (exactly, when given) and contains `search`
/// (case-insensitively, when given), by id; a switched feature only when `on` says
/// its preference is on.
pub fn matching(
    name: Option<&str>,
    search: Option<&str>,
    on: impl Fn(&Switched) -> bool,
) -> Vec<Feature> {
    let needle = search.map(str::to_lowercase);
    FEATURES
        .iter()
        .chain(SWITCHED.iter().filter(|s| on(s)).map(|s| &s.feature))
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
        let off = |_: &Switched| false;
        assert_eq!(names(matching(None, None, off)), ["api_v2", "reaction", "course"]);
        assert_eq!(names(matching(Some("course"), None, off)), ["course"]);
        assert_eq!(names(matching(Some("cours"), None, off)), Vec::<&str>::new());
        assert_eq!(names(matching(None, Some("RE"), off)), ["reaction"]);
        assert_eq!(names(matching(Some("course"), Some("api"), off)), Vec::<&str>::new());
        let on = |_: &Switched| true;
        assert_eq!(names(matching(None, Some("ing"), on)), ["grouping", "tagging"]);
        let mut ids: Vec<i64> =
            FEATURES.iter().chain(SWITCHED.iter().map(|s| &s.feature)).map(|f| f.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), FEATURES.len() + SWITCHED.len(), "ids are unique");
        assert!(FEATURES.iter().all(|f| f.enabled));
    }
}
