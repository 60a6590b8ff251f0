//! The unit tests of `model::contribution` (kept beside it: the file stays one page).

use super::*;
use serde_json::json;

fn check(kind: Kind, body: Value) -> (Draft, Vec<String>) {
    let map = body.as_object().cloned().unwrap_or_default();
    let (d, errs) = validate(kind, &map);
    (d, errs.into_iter().map(|e| format!("{}:{}", e.field, e.messages[0].code)).collect())
}

#[test]
fn kinds_round_trip() {
    for k in Kind::ALL {
        assert_eq!(Kind::parse(k.as_str()), Some(k));
    }
    assert_eq!(Kind::parse("poll"), None);
}

#[test]
fn slugs_come_from_the_title_or_the_text() {
    let mut c = Contribution {
        pk: 1,
        kind: Kind::Discussion,
        id: 1,
        author: User::default(),
        title: Some("Grüße, World!".into()),
        action: None,
        text: "body".into(),
        rendered: Rendered::default(),
        added_at: 5,
        last_edited_at: None,
        deleted: false,
        collapsed: false,
        comment_count: 0,
        target: None,
        parent: None,
        categories: Vec::new(),
        votes: Votes::default(),
        last_activity_at: 0,
        latest_comments: Vec::new(),
        group_id: None,
        group: None,
        event_id: None,
        event: None,
        poll: None,
        addressing: Vec::new(),
        medias: Vec::new(),
        suspended: false,
        follower_count: 0,
        share_count: 0,
        followed: false,
    };
    assert_eq!(c.slug(), "grusse-world");
    c.kind = Kind::Post;
    c.title = None;
    c.rendered = super::super::rich_text::render(&"🙂 ".repeat(2000));
    assert_eq!(c.slug(), "post");
    c.rendered = super::super::rich_text::render(
        r#"<p class="SCEditor-paragraph"><b>Hello</b> <a href="https://x.org">world</a></p>"#,
    );
    assert_eq!(c.slug(), "hello-world", "from the plain text, never the markup");
    let base = PublicUrl("http://h".into());
    let j = c.to_json(&base, 0);
    assert_eq!(j.last_activity_at, rfc3339(5), "never before creation");
    assert!(j.in_reply_to.is_none() && j.latest_comments.is_none());
    c.kind = Kind::Comment;
    let j = serde_json::to_value(c.to_json(&base, 0)).unwrap_or_default();
    assert_eq!(j["in_reply_to"], Value::Null);
    assert_eq!(j["latest_comments"], serde_json::json!([]));
    assert_eq!(j["medias"], serde_json::json!([]));
    assert_eq!((j["voted"].clone(), j["reaction"].clone()), (Value::Bool(false), Value::Null));
}

#[test]
fn discussion_title_rules() {
    assert_eq!(check(Kind::Discussion, json!({})).1, vec!["title:required"]);
    assert_eq!(check(Kind::Discussion, json!({"title": "  "})).1, vec!["title:required"]);
    assert_eq!(
        check(Kind::Discussion, json!({"title": "x".repeat(251)})).1,
        vec!["title:max_length"]
    );
    let (d, e) = check(Kind::Discussion, json!({"title": " t ", "text": "b"}));
    assert!(e.is_empty());
    assert_eq!(d.title.as_deref(), Some("t"));
    assert_eq!(d.text, "b");
}

#[test]
fn all_errors_at_once() {
    let (_, e) = check(Kind::Status, json!({"text": 3, "action": 4, "categories": "x"}));
    assert_eq!(e, vec!["text:invalid", "action:invalid", "categories:invalid"]);
}

#[test]
fn categories_accept_numeric_strings_and_dedupe() {
    let (d, e) = check(Kind::Post, json!({"text": "t", "categories": [2, "3", "2"]}));
    assert!(e.is_empty());
    assert_eq!(d.categories, vec![2, 3]);
    let map = json!({"text": "t", "categories": []});
    let (d, e) = validate(Kind::Post, map.as_object().unwrap_or(&Map::new()));
    assert!(e.is_empty());
    let missing = missing_categories(Kind::Post, &d, &e);
    assert_eq!(missing.map(|m| m.field), Some("categories".into()));
    assert!(missing_categories(Kind::Comment, &d, &e).is_none());
    let map = json!({"text": "t", "categories": vec![1; 1001]});
    let (d, e) = validate(Kind::Post, map.as_object().unwrap_or(&Map::new()));
    assert_eq!(e[0].messages[0].code, "max_length");
    assert!(missing_categories(Kind::Post, &d, &e).is_none());
}

#[test]
fn a_poll_is_checked_never_dropped() {
    let poll = json!({"title": "q", "choices": [{"choice": "a"}, {"choice": "b"}]});
    assert!(check(Kind::Post, json!({"text": "t", "poll": poll})).1.is_empty());
    assert_eq!(check(Kind::Status, json!({"text": "t", "poll": poll})).1, vec!["poll:invalid"]);
    let one = json!({"title": "q", "choices": [{"choice": "a"}]});
    assert_eq!(check(Kind::Post, json!({"text": "t", "poll": one})).1, vec!["poll:invalid"]);
    assert!(check(Kind::Post, json!({"text": "t", "poll": null})).1.is_empty());
}

#[test]
fn comment_needs_exactly_one_target() {
    assert_eq!(check(Kind::Comment, json!({"text": "c"})).1, vec!["non_field_errors:required"]);
    assert_eq!(
        check(Kind::Comment, json!({"text": "c", "post": 1, "status": 2})).1,
        vec!["non_field_errors:invalid"]
    );
    assert_eq!(check(Kind::Comment, json!({"text": "c", "post": "x"})).1, vec!["post:invalid"]);
    let (d, e) =
        check(Kind::Comment, json!({"text": "c", "post": "4", "status": null, "parent": 9}));
    assert!(e.is_empty());
    assert_eq!(d.target, Some((Kind::Post, 4)));
    assert_eq!(d.parent, Some(9));
}
