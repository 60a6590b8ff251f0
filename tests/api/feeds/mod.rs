//! SPEC §10's feeds, search and suggestions, through the API.

mod home;
mod lists;
mod search;

use serde_json::Value;

/// The `(type, id)` of each unit of a feed page.
pub fn units(page: &Value) -> Vec<(String, i64)> {
    page["results"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|u| {
            let kind = u["type"].as_str().unwrap_or("").to_owned();
            let id = u[&kind]["id"].as_i64().unwrap_or(-1);
            (kind, id)
        })
        .collect()
}

/// `("post", id)` for each id.
pub fn posts(ids: &[i64]) -> Vec<(String, i64)> {
    ids.iter().map(|i| ("post".to_owned(), *i)).collect()
}
