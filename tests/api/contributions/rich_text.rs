//! Rich text (SPEC §5): `html` sanitized, `summary` plain, `summary_html` and
//! `summary_truncated`, slugs from plain text, for every kind.

use hearth::model::contribution::Kind;
use serde_json::json;

use super::{a_post, create, item};
use crate::common::TestServer;

/// What the kit's Composer sends for bold text, a link and a mention.
const EDITOR: &str = r#"<p class="SCEditor-paragraph" dir="ltr"><span style="white-space: pre-wrap;">Hi </span><b><strong class="SCEditor-textBold" style="white-space: pre-wrap;">there</strong></b><span> see </span><a href="https://example.org/" class="SCEditor-link"><span>this</span></a> <mention id="1" ext-id="1">@alice</mention></p>"#;

#[tokio::test]
async fn the_editors_html_is_kept_and_script_is_not_for_every_kind() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let post = a_post(&s, &a).await;
    for kind in Kind::ALL {
        let with = |text: &str| match kind {
            Kind::Discussion => json!({"title": "Plain <b>title</b>", "text": text}),
            Kind::Comment => json!({"text": text, "post": post}),
            _ => json!({"text": text}),
        };
        let j = create(&s, &a, kind, with(EDITOR)).await;
        let html = j["html"].as_str().unwrap();
        assert!(html.starts_with(r#"<p class="SCEditor-paragraph" dir="ltr"><span>Hi </span><b><strong class="SCEditor-textBold">there</strong></b>"#), "{kind:?}: {html}");
        assert!(html.contains(r#"<a href="https://example.org/" class="SCEditor-link" rel="nofollow noopener noreferrer">"#), "{html}");
        assert!(html.contains(r#"<mention id="1" ext-id="1">@alice</mention>"#), "{html}");
        assert!(!html.contains("style="), "{html}");
        assert_eq!(j["summary"], "Hi there see this @alice");
        assert_eq!(j["summary_html"], j["html"]);
        assert_eq!(j["summary_truncated"], false);
        assert_eq!(j["text"], EDITOR, "text is what the client sent");
        if kind != Kind::Discussion {
            assert_eq!(j["slug"], "hi-there-see-this-alice", "slug from the plain text");
        }

        let j = create(&s, &a, kind, with(r#"<img src=x onerror="window.__xss(1)"><p>ok <a href="javascript:alert(1)">link</a></p><script>alert(2)</script>"#)).await;
        assert_eq!(j["html"], r#"<p>ok <a rel="nofollow noopener noreferrer">link</a></p>"#);
        assert_eq!(j["summary"], "ok link");
        // read back the same way
        let id = j["id"].as_i64().unwrap();
        let back = s.get(&item(kind, id), None).await.json();
        assert_eq!(
            (back["html"].clone(), back["summary_html"].clone()),
            (j["html"].clone(), j["summary_html"].clone())
        );
    }
    // a long text: summary cut at 200 characters of plain text, its HTML closed
    let long = format!("<p><b>{}</b> and the rest</p>", "word ".repeat(60));
    let j = create(&s, &a, Kind::Post, json!({"text": long})).await;
    assert_eq!(j["summary"].as_str().unwrap().chars().count(), 200);
    assert!(!j["summary"].as_str().unwrap().contains('<'));
    assert_eq!(j["summary_truncated"], true);
    let sh = j["summary_html"].as_str().unwrap();
    assert!(sh.starts_with("<p><b>word word") && sh.ends_with("</b></p>"), "{sh}");
    s.assert_consistent();
}
