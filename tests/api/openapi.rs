//! A self-contained check of the OpenAPI document served at `/api/v2/schema/`: the
//! structural rules of OpenAPI 3.1 that matter to clients and generators (every `$ref`
//! resolves, path parameters match their templates, unique camelCase `operationId`s,
//! every response has a description, `default`/`const`/`enum`/`examples` fit the
//! schema's `type`) and hearth's own conventions from SPEC §3 (408/413/415/503 and 401
//! documented where the server can answer them, `maxItems` on lists in bodies).
//!
//! It is no substitute for a real validator: `scripts/test` also runs
//! `openapi-spec-validator` and schemathesis against the served document. This one
//! runs in `cargo test`, without Python.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

const METHODS: &[&str] = &["get", "put", "post", "patch", "delete", "head", "options"];
const TYPES: &[&str] = &["string", "integer", "number", "boolean", "null", "array", "object"];
/// Lists in request bodies with at most 1000 items (SPEC §3, §6).
const CAPPED_LISTS: &[&str] =
    &["categories", "users", "managers", "joined", "unjoined", "sections_order"];

/// Every problem found in `doc`, one line each; empty when the document is sound.
pub fn problems(doc: &Value) -> Vec<String> {
    let mut p = Problems { doc, out: Vec::new() };
    p.top();
    p.refs(doc, "#");
    p.paths();
    p.component_schemas();
    p.out
}

struct Problems<'a> {
    doc: &'a Value,
    out: Vec<String>,
}

impl<'a> Problems<'a> {
    fn add(&mut self, s: String) {
        self.out.push(s);
    }

    /// `$ref`s are followed (chains too); a dangling one is reported by [`Self::refs`].
    fn resolve<'b>(&self, v: &'b Value) -> &'b Value
    where
        'a: 'b,
    {
        let mut v = v;
        for _ in 0..8 {
            match v.get("$ref").and_then(Value::as_str) {
                Some(r) => match r.strip_prefix('#').and_then(|p| self.doc.pointer(p)) {
                    Some(target) => v = target,
                    None => return &Value::Null,
                },
                None => return v,
            }
        }
        v
    }

    fn top(&mut self) {
        if self.doc["openapi"] != "3.1.0" {
            self.add(format!("openapi is {}, not \"3.1.0\"", self.doc["openapi"]));
        }
        for k in ["title", "version"] {
            if !self.doc["info"][k].is_string() {
                self.add(format!("info.{k} is missing"));
            }
        }
        if !self.doc["paths"].is_object() {
            self.add("paths is missing".into());
        }
        for (kind, names) in self.doc["components"].as_object().into_iter().flatten() {
            for name in names.as_object().into_iter().flatten().map(|(n, _)| n) {
                if name.is_empty()
                    || !name.chars().all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
                {
                    self.add(format!("components.{kind}.{name}: not a valid name"));
                }
            }
        }
    }

    /// Every `$ref` in the document points at something in it.
    fn refs(&mut self, v: &Value, at: &str) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref") {
                    let ok = r
                        .as_str()
                        .and_then(|r| r.strip_prefix('#'))
                        .is_some_and(|p| self.doc.pointer(p).is_some());
                    if !ok {
                        let r = r.as_str().unwrap_or("(not a string)");
                        self.add(format!("{at}: $ref {r} does not resolve"));
                    }
                }
                for (k, v) in m {
                    self.refs(v, &format!("{at}/{k}"));
                }
            }
            Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    self.refs(v, &format!("{at}/{i}"));
                }
            }
            _ => {}
        }
    }

    fn paths(&mut self) {
        let doc = self.doc;
        let schemes: BTreeSet<&str> = doc["components"]["securitySchemes"]
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut ids: BTreeMap<&str, String> = BTreeMap::new();
        for (template, item) in doc["paths"].as_object().into_iter().flatten() {
            if !template.starts_with('/') {
                self.add(format!("path {template} does not start with /"));
            }
            let names: BTreeSet<&str> = template
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            let shared = item["parameters"].as_array().cloned().unwrap_or_default();
            for (m, op) in item.as_object().into_iter().flatten() {
                if !METHODS.contains(&m.as_str()) {
                    continue;
                }
                let here = format!("{} {template}", m.to_ascii_uppercase());
                match op["operationId"].as_str() {
                    None => self.add(format!("{here}: no operationId")),
                    Some(id) => {
                        let camel = id.starts_with(|c: char| c.is_ascii_lowercase())
                            && id.chars().all(|c| c.is_ascii_alphanumeric());
                        if !camel {
                            self.add(format!("{here}: operationId {id} is not camelCase"));
                        }
                        if let Some(other) = ids.insert(id, here.clone()) {
                            self.add(format!("{here}: operationId {id} is also {other}"));
                        }
                    }
                }
                self.parameters(&here, &names, &shared, op);
                self.security(&here, &schemes, op);
                self.responses(&here, template, m, op);
                self.request_body(&here, op);
            }
        }
    }

    fn parameters(&mut self, here: &str, names: &BTreeSet<&str>, shared: &[Value], op: &Value) {
        let own = op["parameters"].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut in_path: BTreeSet<String> = BTreeSet::new();
        // operation parameters override path-level ones with the same name and location
        for raw in own.iter().chain(shared) {
            let p = self.resolve(raw);
            let (Some(name), Some(loc)) = (p["name"].as_str(), p["in"].as_str()) else {
                self.add(format!("{here}: a parameter without name or in"));
                continue;
            };
            if !["query", "header", "path", "cookie"].contains(&loc) {
                self.add(format!("{here}: parameter {name} in {loc}"));
            }
            if p.get("schema").is_none() && p.get("content").is_none() {
                self.add(format!("{here}: parameter {name} has no schema"));
            }
            if let Some(s) = p.get("schema") {
                self.schema(&format!("{here} parameter {name}"), s, 0);
            }
            let fresh = seen.insert((name.to_owned(), loc.to_owned()));
            if loc == "path" && fresh {
                if p["required"] != true {
                    self.add(format!("{here}: path parameter {name} is not required"));
                }
                in_path.insert(name.to_owned());
            }
        }
        for n in names {
            if !in_path.contains(*n) {
                self.add(format!("{here}: {{{n}}} is not declared as a path parameter"));
            }
        }
        for n in &in_path {
            if !names.contains(n.as_str()) {
                self.add(format!("{here}: path parameter {n} is not in the template"));
            }
        }
    }

    fn security(&mut self, here: &str, schemes: &BTreeSet<&str>, op: &Value) {
        for req in op["security"].as_array().into_iter().flatten() {
            for name in req.as_object().into_iter().flatten().map(|(k, _)| k) {
                if !schemes.contains(name.as_str()) {
                    self.add(format!("{here}: unknown security scheme {name}"));
                }
            }
        }
    }

    fn responses(&mut self, here: &str, template: &str, m: &str, op: &Value) {
        let Some(responses) = op["responses"].as_object().filter(|r| !r.is_empty()) else {
            self.add(format!("{here}: no responses"));
            return;
        };
        for (code, r) in responses {
            let status_ok = code == "default"
                || (code.len() == 3
                    && code.starts_with(['1', '2', '3', '4', '5'])
                    && (code[1..].chars().all(|c| c.is_ascii_digit()) || &code[1..] == "XX"));
            if !status_ok {
                self.add(format!("{here}: response key {code}"));
            }
            let r = self.resolve(r);
            if !r["description"].is_string() {
                self.add(format!("{here}: response {code} has no description"));
            }
            for (media, c) in r["content"].as_object().into_iter().flatten() {
                if let Some(s) = c.get("schema") {
                    self.schema(&format!("{here} {code} {media}"), s, 0);
                }
            }
            for (name, h) in r["headers"].as_object().into_iter().flatten() {
                if let Some(s) = self.resolve(h).get("schema") {
                    self.schema(&format!("{here} {code} header {name}"), s, 0);
                }
            }
        }
        // SPEC §3: what every operation of a kind may answer
        let has = |code: &str| responses.contains_key(code);
        let mut need: Vec<&str> = Vec::new();
        let write = m != "get" && m != "head";
        let bearer_only = op["security"].as_array().is_some_and(|reqs| {
            !reqs.is_empty()
                && reqs.iter().all(|r| r.as_object().is_some_and(|o| o.contains_key("bearer")))
        });
        let bearer_any = op["security"]
            .as_array()
            .is_some_and(|reqs| reqs.iter().any(|r| r.get("bearer").is_some()));
        if bearer_only || bearer_any {
            need.push("401");
        }
        if write && template.starts_with("/api/v2/") {
            need.extend(["408", "413", "503"]);
            if let Some(r) = responses.get("503")
                && self.resolve(r)["headers"].get("Retry-After").is_none()
            {
                self.add(format!("{here}: 503 without a Retry-After header"));
            }
        }
        if op.get("requestBody").is_some() {
            need.extend(["408", "413"]);
            let body = self.resolve(&op["requestBody"]);
            let typed = body["content"].as_object().is_some_and(|c| {
                c.contains_key("application/json") || c.contains_key("multipart/form-data")
            });
            if body["required"] == true && typed {
                need.push("415");
            }
        }
        if ["/oauth/token/", "/oauth/revoke_token/"].contains(&template) {
            need.push("503");
        }
        need.sort_unstable();
        need.dedup();
        for code in need {
            if !has(code) {
                self.add(format!("{here}: {code} is not documented"));
            }
        }
    }

    fn request_body(&mut self, here: &str, op: &Value) {
        let Some(body) = op.get("requestBody") else {
            return;
        };
        let body = self.resolve(body);
        let Some(content) = body["content"].as_object().filter(|c| !c.is_empty()) else {
            self.add(format!("{here}: requestBody without content"));
            return;
        };
        for (media, c) in content {
            let Some(s) = c.get("schema") else {
                continue;
            };
            self.schema(&format!("{here} body {media}"), s, 0);
            self.capped_lists(&format!("{here} body {media}"), s, 0);
        }
    }

    /// Lists named in SPEC §3 have `maxItems: 1000` wherever a body carries them.
    fn capped_lists(&mut self, at: &str, s: &Value, depth: usize) {
        if depth > 16 {
            return;
        }
        let s = self.resolve(s);
        for (name, p) in s["properties"].as_object().into_iter().flatten() {
            let p = self.resolve(p);
            let is_array = p["type"] == "array"
                || p["type"].as_array().is_some_and(|t| t.iter().any(|t| t == "array"));
            if CAPPED_LISTS.contains(&name.as_str()) && is_array && p["maxItems"] != 1000 {
                self.add(format!("{at}: list {name} has no maxItems 1000"));
            }
            self.capped_lists(&format!("{at}.{name}"), p, depth + 1);
        }
        for k in ["allOf", "oneOf", "anyOf"] {
            for sub in s[k].as_array().into_iter().flatten() {
                self.capped_lists(at, sub, depth + 1);
            }
        }
    }

    fn component_schemas(&mut self) {
        let doc = self.doc;
        for (name, s) in doc["components"]["schemas"].as_object().into_iter().flatten() {
            self.schema(&format!("components.schemas.{name}"), s, 0);
        }
    }

    /// JSON Schema 2020-12 sanity: known types, values that fit them, consistent bounds.
    fn schema(&mut self, at: &str, s: &Value, depth: usize) {
        if depth > 32 {
            return;
        }
        let Some(m) = s.as_object() else {
            if !s.is_boolean() {
                self.add(format!("{at}: a schema must be an object or a boolean"));
            }
            return;
        };
        if m.contains_key("$ref") {
            return; // the target is checked where it is defined
        }
        let types: Option<Vec<&str>> = match m.get("type") {
            None => None,
            Some(Value::String(t)) => Some(vec![t.as_str()]),
            Some(Value::Array(ts)) => Some(ts.iter().filter_map(Value::as_str).collect()),
            Some(other) => {
                self.add(format!("{at}: type {other} is neither a name nor a list"));
                None
            }
        };
        if let Some(ts) = &types {
            for t in ts {
                if !TYPES.contains(t) {
                    self.add(format!("{at}: unknown type {t}"));
                }
            }
            let fits = |v: &Value| ts.iter().any(|t| fits(t, v));
            for k in ["default", "const"] {
                if let Some(v) = m.get(k)
                    && !fits(v)
                {
                    self.add(format!("{at}: {k} {v} is not of type {}", ts.join("|")));
                }
            }
            for k in ["enum", "examples"] {
                for v in m.get(k).and_then(Value::as_array).into_iter().flatten() {
                    if !fits(v) {
                        self.add(format!("{at}: {k} value {v} is not of type {}", ts.join("|")));
                    }
                }
            }
        }
        for k in ["enum", "examples", "required", "allOf", "oneOf", "anyOf"] {
            if m.get(k).is_some_and(|v| !v.is_array()) {
                self.add(format!("{at}: {k} must be a list"));
            }
        }
        if let (Some(Value::Array(req)), Some(Value::Object(props))) =
            (m.get("required"), m.get("properties"))
        {
            for r in req {
                let known = r.as_str().is_some_and(|r| props.contains_key(r));
                if !known && !m.contains_key("allOf") {
                    self.add(format!("{at}: required {r} is not among its properties"));
                }
            }
        }
        for (lo, hi) in [
            ("minLength", "maxLength"),
            ("minimum", "maximum"),
            ("minItems", "maxItems"),
            ("minProperties", "maxProperties"),
        ] {
            if let (Some(a), Some(b)) =
                (m.get(lo).and_then(Value::as_f64), m.get(hi).and_then(Value::as_f64))
                && a > b
            {
                self.add(format!("{at}: {lo} {a} > {hi} {b}"));
            }
        }
        if m.get("pattern").is_some_and(|p| !p.is_string()) {
            self.add(format!("{at}: pattern must be a string"));
        }
        self.sub_schemas(at, m, depth);
    }

    fn sub_schemas(&mut self, at: &str, m: &Map<String, Value>, depth: usize) {
        for (name, p) in m.get("properties").and_then(Value::as_object).into_iter().flatten() {
            self.schema(&format!("{at}.{name}"), p, depth + 1);
        }
        for k in ["items", "additionalProperties", "not"] {
            if let Some(sub) = m.get(k) {
                self.schema(&format!("{at}.{k}"), sub, depth + 1);
            }
        }
        for k in ["allOf", "oneOf", "anyOf"] {
            for (i, sub) in m.get(k).and_then(Value::as_array).into_iter().flatten().enumerate() {
                self.schema(&format!("{at}.{k}[{i}]"), sub, depth + 1);
            }
        }
    }
}

fn fits(t: &str, v: &Value) -> bool {
    match t {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

/// The checker finds each kind of problem it looks for (so an empty list means
/// something), and accepts a small sound document.
#[test]
fn the_checker_finds_what_it_looks_for() {
    let sound = serde_json::json!({
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "responses": {"Gone": {"description": "gone", "headers": {"Retry-After": {"schema": {"type": "integer"}}}}}
        },
        "paths": {
            "/api/v2/thing/{id}/": {
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "patch": {
                    "operationId": "updateThing",
                    "security": [{"bearer": []}],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {
                        "type": "object",
                        "required": ["users"],
                        "properties": {
                            "users": {"type": "array", "maxItems": 1000, "items": {"type": "integer"}},
                            "flag": {"type": "boolean", "default": false}
                        }
                    }}}},
                    "responses": {
                        "200": {"description": "ok"},
                        "401": {"description": "no"},
                        "408": {"description": "slow"},
                        "413": {"description": "big"},
                        "415": {"description": "type"},
                        "503": {"$ref": "#/components/responses/Gone"}
                    }
                }
            }
        }
    });
    assert_eq!(problems(&sound), Vec::<String>::new());

    let mut broken = sound.clone();
    let op = &mut broken["paths"]["/api/v2/thing/{id}/"]["patch"];
    op["operationId"] = "update_thing".into();
    let props = &mut op["requestBody"]["content"]["application/json"]["schema"]["properties"];
    props["flag"]["type"] = "string".into(); // a boolean default on a string
    props["users"].as_object_mut().map(|u| u.remove("maxItems"));
    op["responses"].as_object_mut().map(|r| r.remove("415"));
    op["responses"]["503"] = serde_json::json!({"$ref": "#/components/responses/Nope"});
    broken["paths"]["/api/v2/thing/{id}/"]["parameters"][0]["name"] = "pk".into();
    let found = problems(&broken).join("\n");
    for expected in [
        "operationId update_thing is not camelCase",
        "default false is not of type string",
        "list users has no maxItems 1000",
        "415 is not documented",
        "$ref #/components/responses/Nope does not resolve",
        "{id} is not declared as a path parameter",
        "path parameter pk is not in the template",
        "response 503 has no description",
    ] {
        assert!(found.contains(expected), "missed {expected:?} in:\n{found}");
    }
}
