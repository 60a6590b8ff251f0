//! Courses (SPEC §5 "Courses"): the record, its rules, membership, sections, images;
//! the helpers shared by the scenario files below.

use serde_json::{Value, json};

use crate::common::{Resp, TestServer};

mod crud;
mod images;
mod lessons;
mod members;
mod notifications;
mod search;
mod sections;
mod visibility;

fn body(name: &str) -> Value {
    json!({"name": name, "type": "self-paced"})
}

async fn create(s: &TestServer, tok: &str, b: Value) -> Value {
    s.create("/api/v2/course/", tok, b).await
}

async fn patch(s: &TestServer, tok: &str, id: i64, b: Value) -> Resp {
    s.patch(&format!("/api/v2/course/{id}/"), Some(tok), b).await
}

fn set_status(s: &TestServer, course: i64, user: i64, status: &str) {
    let now = s.clock.now();
    let status = hearth::model::course::JoinStatus::parse(status).unwrap();
    s.db_write(move |tx| {
        hearth::db::members::set(tx, hearth::db::members::Roster::Course, course, user, status, now)
    });
}

fn field_codes(r: &Resp) -> Vec<(String, String)> {
    r.json()["errors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap_or("").to_owned(),
                e["messages"][0]["code"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn has(r: &Resp, field: &str, code: &str) -> bool {
    field_codes(r).contains(&(field.to_owned(), code.to_owned()))
}
