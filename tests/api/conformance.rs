//! Every JSON response the API tests read (through [`crate::common::TestServer`]) is
//! validated against the OpenAPI document hearth serves: its status must be documented
//! for the endpoint, and its body must fit the documented schema with every object
//! closed (no property the document does not name). So a field added to a JSON type
//! and missing from the document, or a response the document does not describe, fails
//! the test that received it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use hearth::http::route::{Found, Router};
use serde_json::{Value, json};

struct Document {
    /// The served document with every object schema closed.
    closed: Value,
    router: Router,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn document() -> &'static Document {
    static DOC: OnceLock<Document> = OnceLock::new();
    DOC.get_or_init(|| {
        let mut closed = hearth::api::openapi::document().clone();
        open_parts(&mut closed["components"]["schemas"]);
        close(&mut closed["components"]["schemas"]);
        Document {
            closed,
            router: hearth::api::router().clone(),
            validators: Mutex::new(HashMap::new()),
        }
    })
}

/// Adds `additionalProperties: false` to every object schema that lists its
/// properties and says nothing about others, and `unevaluatedProperties: false` to
/// every `allOf` composition (whose parts are left open: see [`open_parts`]).
fn close(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let composed = o.contains_key("allOf");
            let says =
                o.contains_key("additionalProperties") || o.contains_key("unevaluatedProperties");
            if composed && !says {
                o.insert("unevaluatedProperties".into(), json!(false));
            } else if o.contains_key("properties") && !says {
                o.insert("additionalProperties".into(), json!(false));
            }
            for (k, child) in o.iter_mut() {
                if k != "allOf" {
                    close(child);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(close),
        _ => {}
    }
}

/// A schema used as a part of an `allOf` must stay open there (its composition is
/// closed instead), while it is closed where it is used alone: each `$ref` inside an
/// `allOf` is pointed at an open copy, `<name>.part`.
fn open_parts(schemas: &mut Value) {
    let mut parts = Vec::new();
    for schema in schemas.as_object_mut().into_iter().flat_map(|o| o.values_mut()) {
        let parts_of = schema.get_mut("allOf").and_then(Value::as_array_mut);
        for part in parts_of.into_iter().flatten() {
            if let Some(r) = part["$ref"].as_str().map(str::to_owned) {
                let name = r.trim_start_matches("#/components/schemas/").to_owned();
                part["$ref"] = json!(format!("{r}.part"));
                parts.push(name);
            }
        }
    }
    for name in parts {
        let mut copy = schemas[&name].clone();
        // its own properties are still described, only others are allowed
        if let Some(o) = copy.as_object_mut() {
            o.insert("additionalProperties".into(), json!(true));
        }
        schemas[format!("{name}.part")] = copy;
    }
}

/// The schema of a documented response (following a `$ref` to a shared response);
/// `None` when it documents no JSON body.
fn response_schema(doc: &Value, response: &Value) -> Option<Value> {
    let response = match response.get("$ref").and_then(Value::as_str) {
        Some(r) => doc.pointer(r.strip_prefix('#')?)?,
        None => response,
    };
    response.pointer("/content/application~1json/schema").cloned()
}

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// Checks one response; `method` when the caller knows it.
pub fn check(
    method: Option<&str>,
    path: &str,
    status: u16,
    content_type: Option<&str>,
    body: &str,
) {
    let json_body = content_type.is_some_and(|c| c.starts_with("application/json"));
    if !json_body || body.is_empty() || method == Some("HEAD") {
        return;
    }
    let d = document();
    let methods: Vec<&str> = method.map_or_else(|| METHODS.to_vec(), |m| vec![m]);
    let mut endpoints = Vec::new();
    for m in methods {
        let Ok(method) = hearth::http::route::Method::from_bytes(m.as_bytes()) else {
            continue;
        };
        if let Found::Endpoint(e, _) = d.router.find(&method, path) {
            endpoints.push((m.to_ascii_lowercase(), e.path.replace("{*", "{"), e.operation_id));
        }
    }
    if endpoints.is_empty() {
        // an unknown path (404) or a method the path does not serve (405): shared answers
        return;
    }
    let mut documented = Vec::new();
    for (m, template, op) in &endpoints {
        let responses = &d.closed["paths"][template][m]["responses"];
        if let Some(r) = responses.get(status.to_string()) {
            documented.push((*op, response_schema(&d.closed, r)));
        }
    }
    assert!(
        !documented.is_empty(),
        "{status} from {path} is not documented for {:?}",
        endpoints.iter().map(|e| e.2).collect::<Vec<_>>()
    );
    let instance: Value = serde_json::from_str(body)
        .unwrap_or_else(|e| panic!("{path} answered {status} with JSON that does not parse: {e}"));
    let mut failures = Vec::new();
    for (op, schema) in documented {
        let Some(schema) = schema else {
            failures.push(format!("{op}: the document has no JSON body for {status}"));
            continue;
        };
        let v = validator(d, op, status, &schema);
        let errors: Vec<String> = v
            .iter_errors(&instance)
            .map(|e| format!("{op}: {} at {}", e, e.instance_path()))
            .take(5)
            .collect();
        if errors.is_empty() {
            return;
        }
        failures.extend(errors);
    }
    panic!(
        "{status} from {path} does not fit the OpenAPI document:\n{}\nbody: {}",
        failures.join("\n"),
        body.chars().take(2000).collect::<String>()
    );
}

fn validator(d: &Document, op: &str, status: u16, schema: &Value) -> Arc<jsonschema::Validator> {
    let key = format!("{op} {status}");
    let mut cache = d.validators.lock().unwrap();
    Arc::clone(cache.entry(key).or_insert_with(|| {
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "components": d.closed["components"],
            "allOf": [schema],
        });
        Arc::new(
            jsonschema::validator_for(&root)
                .unwrap_or_else(|e| panic!("the schema of {op} {status} does not compile: {e}")),
        )
    }))
}

#[test]
fn closing_leaves_composed_schemas_open() {
    let mut v = json!({
        "A": {"properties": {"x": {}}},
        "B": {"allOf": [{"$ref": "#/components/schemas/A"}], "properties": {"y": {}}},
    });
    open_parts(&mut v);
    close(&mut v);
    assert_eq!(v["A"]["additionalProperties"], false);
    assert_eq!(v["A.part"]["additionalProperties"], true);
    assert_eq!(v["B"]["allOf"][0]["$ref"], "#/components/schemas/A.part");
    assert_eq!(v["B"]["unevaluatedProperties"], false);
}
