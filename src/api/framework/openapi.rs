//! The OpenAPI 3.1 document served at `/api/v2/schema/`, generated from the code:
//!
//! - **paths and operations** from the endpoint declaration ([`crate::api::router`]):
//!   method, path template, `operationId`, path parameters, `security` and the
//!   `x-hearth-auth` class, and the error responses every endpoint of a class can give;
//! - **query parameters** from the types the handlers read them into
//!   ([`query_params!`](crate::query_params), registered with `Endpoint::query`);
//! - **request bodies** from the types the handlers parse them into, where declared
//!   (`Endpoint::body`: `#[derive(utoipa::ToSchema)]` on the parser's input type);
//! - **response schemas** from the JSON types themselves (`#[derive(utoipa::ToSchema)]`
//!   on the `model` types, collected by [`generated_schemas`]), so a field added to a
//!   type is in the document;
//! - **prose** (summaries, descriptions, the request bodies not declared yet, examples)
//!   from one fragment per area under `openapi/`, keyed by `operationId`.
//!
//! A test checks that the prose and the declaration name the same operations, and the
//! API test suite validates every response it receives against this document.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use crate::http::route::{Auth, Endpoint};

/// The fragments: `base.json` first (info, servers, shared components), then one per
/// area, each with `operations` (by operationId) and `components`.
const FRAGMENTS: &[(&str, &str)] = &[
    ("base", include_str!("../../../openapi/base.json")),
    ("auth", include_str!("../../../openapi/auth.json")),
    ("oauth", include_str!("../../../openapi/oauth.json")),
    ("community", include_str!("../../../openapi/community.json")),
    ("contributions", include_str!("../../../openapi/contributions.json")),
    ("courses", include_str!("../../../openapi/courses.json")),
    ("groups", include_str!("../../../openapi/groups.json")),
    ("events", include_str!("../../../openapi/events.json")),
    ("kit", include_str!("../../../openapi/kit.json")),
    ("site", include_str!("../../../openapi/site.json")),
    ("feeds", include_str!("../../../openapi/feeds.json")),
    ("notifications", include_str!("../../../openapi/notifications.json")),
    ("people", include_str!("../../../openapi/people.json")),
    ("messages", include_str!("../../../openapi/messages.json")),
    // tags and onboarding (issue 32)
    ("tags", include_str!("../../../openapi/tags.json")),
    ("media", include_str!("../../../openapi/media.json")),
    ("custom", include_str!("../../../openapi/custom.json")),
];

/// The schemas derived from the JSON types, by name.
pub fn generated_schemas() -> Vec<(String, RefOr<Schema>)> {
    use crate::model;
    let mut out = Vec::new();
    collect::<model::user::UserJson>(&mut out);
    collect::<model::user::UserMinimal>(&mut out);
    collect::<model::reaction::ReactionJson>(&mut out);
    collect::<model::preference::PrefJson>(&mut out);
    collect::<model::category::CategoryJson>(&mut out);
    collect::<model::feature::Feature>(&mut out);
    collect::<model::vote::VoteJson>(&mut out);
    collect::<model::contribution::ContributionJson>(&mut out);
    collect::<model::media::MediaJson>(&mut out);
    collect::<model::course::CourseJson>(&mut out);
    collect::<model::course::SectionJson>(&mut out);
    collect::<model::course_lesson::LessonJson>(&mut out);
    collect::<model::course_lesson::CommentJson>(&mut out);
    collect::<model::course_lesson::CommentExtras>(&mut out);
    collect::<model::course_lesson::ProgressJson>(&mut out);
    collect::<model::course::MemberJson>(&mut out);
    collect::<model::group::GroupJson>(&mut out);
    collect::<model::event::EventJson>(&mut out);
    collect::<model::custom_menu::MenuJson>(&mut out);
    collect::<model::feed::UnitJson>(&mut out);
    collect::<model::feed::ActivityJson>(&mut out);
    collect::<model::connection::RequestJson>(&mut out);
    collect::<model::connection::StatusJson>(&mut out);
    collect::<model::avatar::AvatarJson>(&mut out);
    collect::<model::message::MessageJson>(&mut out);
    collect::<model::message::SnippetJson>(&mut out);
    collect::<model::message::FileJson>(&mut out);
    collect::<model::flag::FlagStatusJson>(&mut out);
    collect::<model::legal::PageJson>(&mut out);
    collect::<model::legal::AckJson>(&mut out);
    // tags and onboarding (issue 32)
    collect::<model::tag::TagJson>(&mut out);
    collect::<model::onboarding::StepJson>(&mut out);
    collect::<model::custom_adv::AdvJson>(&mut out);
    collect::<model::custom_page::PageJson>(&mut out);
    collect::<model::community::CommunityJson>(&mut out);
    collect::<model::community::ContactJson>(&mut out);
    collect::<model::settings::SettingsJson>(&mut out);
    out
}

fn collect<T: utoipa::ToSchema>(out: &mut Vec<(String, RefOr<Schema>)>) {
    T::schemas(out);
    out.push((T::name().into_owned(), T::schema()));
}

/// The document, built once from [`crate::api::router`].
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| build(crate::api::router()))
}

/// The operations the prose describes, by operationId (for the consistency test).
pub fn prose() -> Map<String, Value> {
    let mut ops = Map::new();
    for (_, f) in FRAGMENTS {
        if let Some(Value::Object(o)) = parse(f).get_mut("operations").map(Value::take) {
            ops.extend(o);
        }
    }
    ops
}

fn parse(fragment: &str) -> Value {
    serde_json::from_str(fragment).unwrap_or_else(|e| {
        tracing::error!(error = %e, "an OpenAPI fragment does not parse");
        Value::Null
    })
}

/// Builds the document for `router`'s endpoints.
pub fn build(router: &crate::http::route::Router) -> Value {
    let mut doc = Value::Object(Map::new());
    for (_, f) in FRAGMENTS {
        let mut part = parse(f);
        if let Some(o) = part.as_object_mut() {
            o.remove("operations");
        }
        merge(&mut doc, part);
    }
    let schemas = &mut doc["components"]["schemas"];
    for (name, schema) in generated_schemas() {
        schemas[name] = serde_json::to_value(schema).unwrap_or(Value::Null);
    }
    let prose = prose();
    let mut paths = Map::new();
    for e in router.endpoints() {
        let mut op = operation(e, prose.get(e.operation_id));
        if let Some(declare) = e.body {
            let mut found = Vec::new();
            let name = declare(&mut found);
            for (n, schema) in found {
                doc["components"]["schemas"][n] =
                    serde_json::to_value(schema).unwrap_or(Value::Null);
            }
            body(&mut op, &name);
        }
        let path = openapi_path(e.path);
        let item = paths.entry(path).or_insert_with(|| Value::Object(Map::new()));
        item[e.method.as_str().to_ascii_lowercase()] = op;
    }
    doc["paths"] = Value::Object(paths);
    doc
}

/// The request body of `op` is schema `name`: in each media type the prose offers (JSON
/// unless it names others: multipart and form fields are the same names as text), its
/// `encoding` kept.
fn body(op: &mut Value, name: &str) {
    let schema = json!({ "$ref": format!("#/components/schemas/{name}") });
    let body = &mut op["requestBody"];
    if body.get("required").is_none() {
        body["required"] = json!(true);
    }
    if body["content"].as_object().is_none_or(serde_json::Map::is_empty) {
        body["content"] = json!({ "application/json": {} });
    }
    for (_, media) in body["content"].as_object_mut().into_iter().flatten() {
        media["schema"] = schema.clone();
    }
}

/// `/media/{*path}` → `/media/{path}`.
fn openapi_path(template: &str) -> String {
    template.replace("{*", "{")
}

/// One operation: the prose, completed from the declaration.
fn operation(e: &Endpoint, prose: Option<&Value>) -> Value {
    let mut op = prose.cloned().unwrap_or_else(|| json!({}));
    op["operationId"] = json!(e.operation_id);
    op["x-hearth-auth"] = json!(e.auth.as_str());
    op["security"] = match e.auth {
        Auth::None => json!([]),
        Auth::Public | Auth::Ca => json!([{ "bearer": [] }, {}]),
        Auth::User => json!([{ "bearer": [] }]),
        Auth::Write | Auth::Staff => json!([{ "bearer": ["write"] }]),
    };
    // path parameters come from the template; the prose may describe them
    // a fragment describes path parameters only (a test keeps it so)
    let mut params: Vec<Value> = Vec::new();
    let described = op["parameters"].as_array().cloned().unwrap_or_default();
    let tail = e.path.contains("{*");
    for (i, name) in e.params().into_iter().enumerate() {
        let mut p = described
            .iter()
            .find(|p| p["in"] == "path" && p["name"] == name)
            .cloned()
            .unwrap_or_else(|| json!({ "description": format!("The {name}.") }));
        let is_tail = tail && i + 1 == e.params().len();
        p["name"] = json!(name);
        p["in"] = json!("path");
        p["required"] = json!(true);
        p["schema"] =
            if is_tail { json!({ "type": "string" }) } else { json!({ "type": "integer" }) };
        params.insert(i, p);
    }
    // the query's parameters come from the types the handler reads them into
    params.extend(
        e.query
            .iter()
            .flat_map(|declared| declared())
            .map(|p| serde_json::to_value(p).unwrap_or(Value::Null)),
    );
    if params.is_empty() {
        if let Some(o) = op.as_object_mut() {
            o.remove("parameters");
        }
    } else {
        op["parameters"] = Value::Array(params);
    }
    // what every endpoint of a class can answer
    let api = e.path.starts_with("/api/");
    let mut standard: Vec<(&str, &str)> = Vec::new();
    if api && e.auth != Auth::None {
        standard.push(("401", "Unauthorized"));
    }
    if matches!(e.auth, Auth::Write | Auth::Staff) {
        standard.push(("403", "Forbidden"));
    }
    // a caller's writes are charged to its write quota (`api::call`); staff never are
    if api && e.writes && matches!(e.auth, Auth::Public | Auth::Ca | Auth::User | Auth::Write) {
        standard.push(("429", "Throttled"));
    }
    if api && e.writes {
        standard.push(("503", "ServiceUnavailable"));
    }
    for (status, name) in standard {
        if op["responses"].get(status).is_none() {
            op["responses"][status] = json!({ "$ref": format!("#/components/responses/{name}") });
        }
    }
    op
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_endpoint_has_prose_and_all_prose_is_declared() {
        let endpoints: Vec<_> = crate::api::router().endpoints().collect();
        let prose = prose();
        let declared: Vec<&str> = endpoints.iter().map(|e| e.operation_id).collect();
        let missing: Vec<&&str> = declared.iter().filter(|id| !prose.contains_key(**id)).collect();
        assert!(missing.is_empty(), "endpoints without prose: {missing:?}");
        let stale: Vec<&String> =
            prose.keys().filter(|id| !declared.contains(&id.as_str())).collect();
        assert!(stale.is_empty(), "prose for no endpoint: {stale:?}");
        let mut unique = declared.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), declared.len(), "operationIds repeat");
    }

    /// A query parameter is declared once, by the type its handler reads it into.
    #[test]
    fn query_parameters_are_the_handlers_types_not_prose() {
        for (name, fragment) in FRAGMENTS {
            let ops = parse(fragment)["operations"].take();
            for (id, op) in ops.as_object().into_iter().flatten() {
                for p in op["parameters"].as_array().into_iter().flatten() {
                    assert_eq!(p["in"], "path", "{name}.json: {id} describes {p}");
                }
            }
        }
        let doc = document();
        let list = &doc["paths"]["/api/v2/event/search/"]["get"]["parameters"];
        let names: Vec<&str> =
            list.as_array().into_iter().flatten().filter_map(|p| p["name"].as_str()).collect();
        assert_eq!(
            names,
            [
                "search",
                "date_filter",
                "past",
                "location",
                "follows",
                "created_by",
                "timezone",
                "limit",
                "offset"
            ]
        );
        assert_eq!(list[1]["schema"]["enum"][0], "all");
        assert_eq!(list[1]["required"], false);
        assert_eq!(list[2]["schema"]["type"], "boolean");
        // a field's doc comment is its description, also beside `schema_with`
        assert!(list[1]["description"].as_str().is_some_and(|d| d.starts_with("all (no filter),")));
        let authorize = &doc["paths"]["/oauth/authorize/"]["get"]["parameters"];
        let client_id =
            authorize.as_array().into_iter().flatten().find(|p| p["name"] == "client_id");
        assert_eq!(client_id.map(|p| &p["required"]), Some(&json!(true)), "{authorize}");
        let kind =
            authorize.as_array().into_iter().flatten().find(|p| p["name"] == "response_type");
        assert_eq!(
            kind.map(|p| (&p["required"], &p["schema"]["enum"][0])),
            Some((&json!(true), &json!("code")))
        );
    }

    /// Every request body is its parser's type: no fragment describes one.
    #[test]
    fn request_bodies_are_the_parsers_types() {
        let prose = prose();
        let mut described: Vec<&str> = prose
            .iter()
            .filter(|(_, op)| {
                let content = op["requestBody"]["content"].as_object();
                content.into_iter().flatten().any(|(_, c)| c.get("schema").is_some())
            })
            .map(|(id, _)| id.as_str())
            .collect();
        described.sort_unstable();
        assert!(described.is_empty(), "bodies described by prose: {described:?}");
    }

    /// A body declared by its parser's type is described by that type alone.
    #[test]
    fn declared_bodies_are_the_parsers_types() {
        let prose = prose();
        for e in crate::api::router().endpoints().filter(|e| e.body.is_some()) {
            let content = &prose[e.operation_id]["requestBody"]["content"];
            for (kind, c) in content.as_object().into_iter().flatten() {
                assert!(
                    c.get("schema").is_none(),
                    "{}: the prose describes {kind}",
                    e.operation_id
                );
            }
        }
        let doc = document();
        let body = &doc["paths"]["/api/v2/course/"]["post"]["requestBody"]["content"];
        assert_eq!(body["application/json"]["schema"]["$ref"], "#/components/schemas/CourseWrite");
        assert_eq!(body["multipart/form-data"]["schema"], body["application/json"]["schema"]);
        let consent = &doc["components"]["schemas"]["ConsentForm"]["allOf"];
        assert_eq!(consent[0]["properties"]["response_type"]["enum"], json!(["code", "token"]));
        assert_eq!(consent[0]["required"], json!(["response_type", "client_id", "redirect_uri"]));
        assert!(consent[1]["properties"]["csrfmiddlewaretoken"].is_object(), "{consent}");
        let course = &doc["components"]["schemas"]["CourseWrite"]["properties"];
        assert!(course["type"].to_string().contains("#/components/schemas/CourseType"));
        let types = &doc["components"]["schemas"]["CourseType"]["enum"];
        assert_eq!(types, &json!(["self-paced", "structured", "scheduled"]));
        assert_eq!(course["name"]["maxLength"], 255);
    }

    #[test]
    fn document_is_openapi_3_1_with_the_declared_paths() {
        let d = document();
        assert_eq!(d["openapi"], "3.1.0");
        for e in crate::api::router().endpoints() {
            let op = &d["paths"][openapi_path(e.path)][e.method.as_str().to_ascii_lowercase()];
            assert_eq!(op["operationId"], e.operation_id, "{e:?}");
        }
    }
}
