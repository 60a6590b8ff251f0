//! `GET /api/v2/schema/`: the OpenAPI 3.1 document. It is assembled from one JSON
//! fragment per area under `openapi/` (each with `paths` and `components.schemas`), so
//! each area keeps its part next to its code's history; a test checks that every route
//! the router serves is described.

use std::sync::OnceLock;

use serde_json::Value;
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::route::Endpoint;

/// The fragments, merged in this order into `openapi/base.json`.
const FRAGMENTS: &[&str] = &[
    include_str!("../../openapi/base.json"),
    include_str!("../../openapi/auth.json"),
    include_str!("../../openapi/oauth.json"),
    include_str!("../../openapi/community.json"),
    include_str!("../../openapi/contributions.json"),
    include_str!("../../openapi/courses.json"),
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

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![public(
        Method::GET,
        "/api/v2/schema/",
        "getSchema",
        get_schema,
    )]
}

/// `GET /api/v2/schema/`: the document (no caller is resolved: a bearer token is
/// ignored).
async fn get_schema(_call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    Ok(ok(document()))
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
