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

    /// The document's name for a template: `{*path}` is `{path}` there.
    fn documented(template: &str) -> String {
        template.replace("{*", "{")
    }

    #[test]
    fn every_declared_endpoint_has_the_documents_operation_id() {
        let d = document();
        let mut seen = std::collections::BTreeSet::new();
        let endpoints = crate::api::endpoints();
        for e in &endpoints {
            let op = &d["paths"][documented(e.path)][e.method.as_str().to_ascii_lowercase()];
            assert_eq!(
                op["operationId"].as_str(),
                Some(e.operation_id),
                "{} {}",
                e.method,
                e.path
            );
            assert!(
                seen.insert(e.operation_id),
                "{} declared twice",
                e.operation_id
            );
        }
        // and every documented operation is declared, but those still served by the
        // warp routes of the modules not converted yet (contributions, a course's
        // members and sections)
        let legacy = |path: &str| {
            ["discussion", "post", "status", "comment"]
                .iter()
                .any(|k| path.starts_with(&format!("/api/v2/{k}/")))
                || path
                    .strip_prefix("/api/v2/course/{id}/")
                    .is_some_and(|rest| !rest.is_empty())
        };
        let declared: std::collections::BTreeSet<(String, String)> = endpoints
            .iter()
            .map(|e| (documented(e.path), e.method.as_str().to_ascii_lowercase()))
            .collect();
        for (path, item) in d["paths"].as_object().into_iter().flatten() {
            for (method, op) in item.as_object().into_iter().flatten() {
                if op.get("operationId").is_none() || legacy(path) {
                    continue;
                }
                assert!(
                    declared.contains(&(path.clone(), method.clone())),
                    "{method} {path} ({}) is documented but not declared",
                    op["operationId"]
                );
            }
        }
    }

    #[test]
    fn only_the_authorization_endpoint_writes_on_get() {
        let writing_gets: Vec<&str> = crate::api::endpoints()
            .into_iter()
            .filter(|e| e.method == Method::GET && e.writes)
            .map(|e| e.path)
            .collect();
        assert_eq!(writing_gets, ["/oauth/authorize/", "/oauth/authorize"]);
    }
}
