//! `GET /api/v2/feature/`: what hearth implements, every row in one page.

use reqwest::StatusCode;

use super::start;
use crate::common::{TestServer, texts};

#[tokio::test]
async fn features_are_what_hearth_implements_all_in_one_page() {
    let s = TestServer::start().await;
    let r = s.get("/api/v2/feature/", None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(texts(&v, "name"), ["api_v2", "reaction", "course"]);
    assert_eq!((v["count"].as_i64(), &v["next"]), (Some(3), &serde_json::Value::Null));
    for f in v["results"].as_array().unwrap() {
        assert_eq!(f["enabled"], true, "{f}");
        assert_eq!(f.as_object().unwrap().len(), 3, "{{id, name, enabled}}: {f}");
    }
    // what the kit hides when absent is absent, never listed as enabled
    for absent in ["group", "event", "live_stream", "tagging", "payments"] {
        let r = s.get(&format!("/api/v2/feature/?name={absent}"), None).await;
        assert_eq!(r.json()["count"], 0, "{absent}");
    }
    // name is exact, search a case-insensitive substring
    assert_eq!(
        texts(&s.get("/api/v2/feature/?name=course", None).await.json(), "name"),
        ["course"]
    );
    assert_eq!(
        texts(&s.get("/api/v2/feature/?name=Course", None).await.json(), "name"),
        Vec::<String>::new()
    );
    assert_eq!(
        texts(&s.get("/api/v2/feature/?search=ReAc", None).await.json(), "name"),
        ["reaction"]
    );
    // paginated when asked
    let p = s.get("/api/v2/feature/?limit=2&offset=1", None).await.json();
    assert_eq!(texts(&p, "name"), ["reaction", "course"]);
    assert_eq!(p["count"], 3);
    let p = s.get("/api/v2/feature/?limit=1", None).await.json();
    assert!(p["next"].as_str().unwrap().ends_with("/api/v2/feature/?limit=1&offset=1"), "{p}");
}

#[tokio::test]
async fn features_need_no_caller_but_refuse_bad_tokens_and_parameters() {
    let (s, w) = start().await;
    // a caller sees the same list, also with content_availability off
    s.set_pref("configurations", "content_availability", serde_json::json!(false));
    assert_eq!(s.get("/api/v2/feature/", None).await.status, StatusCode::OK);
    assert_eq!(s.get("/api/v2/feature/", Some(&w.ann_t)).await.json()["count"], 3);
    let r = s.get("/api/v2/feature/", Some("not-a-token")).await;
    r.assert_error(StatusCode::UNAUTHORIZED, "authentication_failed");
    for q in ["limit=0", "limit=x", "offset=-1", "limit="] {
        let r = s.get(&format!("/api/v2/feature/?{q}"), None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{q}");
    }
    let r = s.call(reqwest::Method::POST, "/api/v2/feature/", Some(&w.ann_t), None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
}
