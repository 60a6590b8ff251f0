//! `GET /api/v2/schema/`: the OpenAPI 3.1 document. It is assembled from one JSON
//! fragment per area under `openapi/` (each with `paths` and `components.schemas`), so
//! each area keeps its part next to its code's history; a test checks that every route
//! the router serves is described.

use std::sync::OnceLock;

use serde_json::Value;
use warp::Filter;
use warp::http::Method;

use crate::http::{Route, method_not_allowed, ok, slash};

/// The fragments, merged in this order into `openapi/base.json`.
const FRAGMENTS: &[&str] = &[
    include_str!("../../openapi/base.json"),
    include_str!("../../openapi/auth.json"),
    include_str!("../../openapi/oauth.json"),
    include_str!("../../openapi/community.json"),
    include_str!("../../openapi/contributions.json"),
    include_str!("../../openapi/courses.json"),
    include_str!("../../openapi/kit.json"),
];

/// The whole document.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc = Value::Null;
        for f in FRAGMENTS {
            let part: Value = serde_json::from_str(f).unwrap_or_else(|e| {
                tracing::error!(error = %e, "an OpenAPI fragment does not parse");
                Value::Null
            });
            merge(&mut doc, part);
        }
        doc
    })
}

fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

/// `GET /api/v2/schema/`.
pub fn routes() -> Route {
    warp::path!("api" / "v2" / "schema")
        .and(slash())
        .and(warp::method())
        .map(|m: Method| {
            if m != Method::GET && m != Method::HEAD {
                return method_not_allowed("GET, HEAD");
            }
            ok(document())
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_is_openapi_3_1_with_paths() {
        let d = document();
        assert_eq!(d["openapi"], "3.1.0");
        assert!(d["paths"]["/healthz"]["get"].is_object());
    }
}
