//! The short lists an admin keeps (reactions, categories, preferences): small enough to
//! be filtered and paged in memory, with full Unicode case folding rather than
//! SQLite's ASCII-only `lower()`.

/// What the search of such a list filters on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameFilter {
    /// Case-insensitive substring of the name (a reaction's label).
    pub search: Option<String>,
    /// Only active (or inactive) rows.
    pub active: Option<bool>,
}

impl NameFilter {
    /// The rows of `all` that match, by their name and active flag, in their order.
    pub fn apply<T>(
        &self,
        all: impl IntoIterator<Item = T>,
        name_of: impl Fn(&T) -> (&str, bool),
    ) -> Vec<T> {
        let needle = self.search.as_deref().map(str::to_lowercase);
        all.into_iter()
            .filter(|row| {
                let (name, active) = name_of(row);
                self.active.is_none_or(|a| active == a)
                    && needle.as_deref().is_none_or(|n| name.to_lowercase().contains(n))
            })
            .collect()
    }
}

/// One page (`limit` rows after `offset`) of `all`, and how many rows `all` has.
pub fn page<T>(all: Vec<T>, limit: i64, offset: i64) -> (i64, Vec<T>) {
    let count = i64::try_from(all.len()).unwrap_or(i64::MAX);
    let page = all
        .into_iter()
        .skip(usize::try_from(offset).unwrap_or(usize::MAX))
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .collect();
    (count, page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_fold_case_and_pages_clamp() {
        let rows = [("Ärger", true), ("apples", false), ("Zebras", true)];
        let f = NameFilter { search: Some("ÄR".into()), active: None };
        assert_eq!(f.apply(rows, |r| (r.0, r.1)), [("Ärger", true)]);
        let f = NameFilter { search: None, active: Some(true) };
        assert_eq!(f.apply(rows, |r| (r.0, r.1)).len(), 2);
        assert_eq!(page(vec![1, 2, 3], 2, 1), (3, vec![2, 3]));
        assert_eq!(page(vec![1, 2, 3], 2, 10), (3, vec![]));
        assert_eq!(page(vec![1, 2, 3], -1, -1), (3, vec![]));
    }
}
