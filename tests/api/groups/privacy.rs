//! What is made in a group: the `group` of a discussion or a post, the group feed, and
//! the one rule that a private group's items are its members' alone, in detail, lists,
//! feeds, search, votes, comments and notifications.

use serde_json::json;

use super::{create, ok, server};
use crate::common::{TestServer, unit_ids};

/// How many notification groups `tok`'s user has.
async fn notes(s: &TestServer, tok: &str) -> usize {
    let page = s.get("/api/v2/notification/", Some(tok)).await.json();
    page["results"].as_array().unwrap().len()
}

async fn count(s: &TestServer, path: &str, tok: Option<&str>) -> i64 {
    ok(&s.get(path, tok).await)["count"].as_i64().unwrap()
}

/// Members post in a private group: the post carries its group; members see it in the
/// group feed, in search and in detail; nobody else sees it anywhere, or is notified
/// about it, or may comment or vote on it. The community-wide lists and feeds leave
/// group items to their group, and count exactly.
#[tokio::test]
async fn a_private_groups_items_are_its_members_alone() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let [ta, tb, tc] = [a, b, c].map(|u| s.jwt(u));
    let g =
        create(&s, &ta, json!({"name": "Inner", "privacy": "private", "invite_users": [b]})).await;
    let id = g["id"].as_i64().unwrap();
    assert_eq!(
        s.post_empty(&format!("/api/v2/group/{id}/subscribe/"), Some(&tb)).await.status,
        204
    );
    let public = s.create_id("/api/v2/post/", &tc, json!({"text": "outside zebra"})).await;
    // cat is no member: not its group's to post in
    let r = s.post("/api/v2/post/", Some(&tc), json!({"text": "x", "group": id})).await;
    r.assert_field_error("group", "invalid");
    let r = s.post("/api/v2/status/", Some(&ta), json!({"text": "x", "group": id})).await;
    r.assert_field_error("group", "invalid");
    let mention = format!(
        r#"<p>zebra <mention id="{c}">@cat</mention> and <mention id="{b}">@bob</mention></p>"#
    );
    let post = s.create("/api/v2/post/", &ta, json!({"text": mention, "group": id})).await;
    let pid = post["id"].as_i64().unwrap();
    assert_eq!(post["group"]["id"], id);
    assert_eq!(post["group"]["subscription_status"], "subscribed");
    let disc =
        s.create("/api/v2/discussion/", &tb, json!({"title": "zebra talk", "group": id})).await;
    let did = disc["id"].as_i64().unwrap();
    // members: the group feed, detail, search, comments
    let feed = ok(&s.get(&format!("/api/v2/group/{id}/feed/"), Some(&tb)).await);
    assert_eq!(unit_ids(&feed), [did, pid]);
    assert_eq!(ok(&s.get(&format!("/api/v2/post/{pid}/"), Some(&tb)).await)["group"]["id"], id);
    assert_eq!(count(&s, "/api/v2/search/?search=zebra", Some(&tb)).await, 3);
    let comment = s.create("/api/v2/comment/", &tb, json!({"text": "hi", "post": pid})).await;
    // the mentioned member is notified, the mentioned stranger is not
    assert_eq!(notes(&s, &tb).await, 1);
    assert_eq!(notes(&s, &tc).await, 0);
    // cat (a stranger) and anonymous callers: nothing of it anywhere
    for tok in [Some(tc.as_str()), None] {
        assert_eq!(s.status(&format!("/api/v2/group/{id}/feed/"), tok).await, 403);
        assert_eq!(s.status(&format!("/api/v2/post/{pid}/"), tok).await, 404);
        assert_eq!(s.status(&format!("/api/v2/discussion/{did}/"), tok).await, 404);
        assert_eq!(s.status(&format!("/api/v2/post/{pid}/vote/"), tok).await, 404);
        assert_eq!(s.status(&format!("/api/v2/post/{pid}/contributors/"), tok).await, 404);
        assert_eq!(count(&s, "/api/v2/search/?search=zebra", tok).await, 1);
        assert_eq!(count(&s, &format!("/api/v2/comment/?post={pid}"), tok).await, 0);
        assert_eq!(s.status(&format!("/api/v2/comment/{}/", comment["id"]), tok).await, 404);
    }
    let r = s.post("/api/v2/comment/", Some(&tc), json!({"text": "hi", "post": pid})).await;
    r.assert_field_error("post", "invalid");
    let r = s.post(&format!("/api/v2/post/{pid}/vote/"), Some(&tc), json!({})).await;
    assert_eq!(r.status, 404, "{}", r.text);
    // the community-wide lists and feeds: group items are their group's, for everyone
    for tok in [Some(ta.as_str()), Some(tc.as_str()), None] {
        assert_eq!(s.list_ids("/api/v2/post/", tok).await, [public]);
        assert_eq!(count(&s, "/api/v2/post/", tok).await, 1);
        assert_eq!(count(&s, "/api/v2/discussion/", tok).await, 0);
        let explore = ok(&s.get("/api/v2/feed/explore/", tok).await);
        assert_eq!((unit_ids(&explore), explore["count"].as_i64()), (vec![public], Some(1)));
    }
    assert_eq!(unit_ids(&ok(&s.get("/api/v2/feed/", Some(&ta)).await)), [public]);
    assert!(unit_ids(&ok(&s.get(&format!("/api/v2/user/{a}/feed/"), None).await)).is_empty());
    // a member who leaves loses sight of it
    assert_eq!(s.delete(&format!("/api/v2/group/{id}/subscribe/"), Some(&tb)).await.status, 204);
    assert_eq!(s.status(&format!("/api/v2/post/{pid}/"), Some(&tb)).await, 404);
    assert_eq!(count(&s, "/api/v2/search/?search=zebra", Some(&tb)).await, 1);
    s.assert_consistent();
    s.stop().await;
}

/// A public group's items are everyone's (its feed, detail), still only in its feed;
/// a hidden private group is not found by those who do not belong; a deleted group
/// takes its items with it.
#[tokio::test]
async fn public_and_hidden_groups() {
    let s = server().await;
    let [a, c] = s.users(["ann", "cat"]);
    let [ta, tc] = [a, c].map(|u| s.jwt(u));
    let open = create(&s, &ta, json!({"name": "Open"})).await["id"].as_i64().unwrap();
    let hidden = create(&s, &ta, json!({"name": "Hidden", "privacy": "private", "visible": false}))
        .await["id"]
        .as_i64()
        .unwrap();
    // anyone joins a public group at once, and may then post in it
    assert_eq!(
        s.post_empty(&format!("/api/v2/group/{open}/subscribe/"), Some(&tc)).await.status,
        204
    );
    let pid = s.create_id("/api/v2/post/", &tc, json!({"text": "open words", "group": open})).await;
    let feed = ok(&s.get(&format!("/api/v2/group/{open}/feed/"), None).await);
    assert_eq!(unit_ids(&feed), [pid]);
    assert_eq!(ok(&s.get(&format!("/api/v2/post/{pid}/"), None).await)["group"]["id"], open);
    assert!(unit_ids(&ok(&s.get("/api/v2/feed/explore/", None).await)).is_empty());
    // the hidden group: its creator finds it, others do not
    assert_eq!(s.list_ids("/api/v2/group/search/", Some(&ta)).await, [hidden, open]);
    assert_eq!(s.list_ids("/api/v2/group/search/", Some(&tc)).await, [open]);
    assert_eq!(s.list_ids("/api/v2/group/search/?search=HID", Some(&ta)).await, [hidden]);
    assert_eq!(s.status(&format!("/api/v2/group/{hidden}/"), Some(&tc)).await, 404);
    let r = s.post_empty(&format!("/api/v2/group/{hidden}/subscribe/"), Some(&tc)).await;
    assert_eq!(r.status, 404, "{}", r.text);
    // deleted: the group and its items are gone for everyone
    assert_eq!(s.delete(&format!("/api/v2/group/{open}/"), Some(&ta)).await.status, 204);
    assert_eq!(s.status(&format!("/api/v2/post/{pid}/"), Some(&tc)).await, 404);
    assert_eq!(s.status(&format!("/api/v2/group/{open}/feed/"), Some(&tc)).await, 404);
    s.assert_consistent();
    s.stop().await;
}

/// A group's feed count is the group's kept count of live items (version 11), less
/// the items of the authors the viewer hides; a deleted item leaves it, comments are
/// not counted, and `hearth check` agrees with what was kept.
#[tokio::test]
async fn a_groups_feed_counts_its_live_items_as_each_viewer_sees_them() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let [ta, tb, tc] = [a, b, c].map(|u| s.jwt(u));
    let g = create(&s, &ta, json!({"name": "Open"})).await["id"].as_i64().unwrap();
    assert_eq!(s.post_empty(&format!("/api/v2/group/{g}/subscribe/"), Some(&tb)).await.status, 204);
    let feed = format!("/api/v2/group/{g}/feed/");
    let mut ids = Vec::new();
    for (tok, text) in [(&ta, "one"), (&tb, "two"), (&tb, "three")] {
        ids.push(s.create_id("/api/v2/post/", tok, json!({"text": text, "group": g})).await);
    }
    s.create("/api/v2/comment/", &ta, json!({"text": "a comment", "post": ids[1]})).await;
    assert_eq!((feed_count(&s, &feed, None).await, feed_count(&s, &feed, Some(&tc)).await), (3, 3));
    // cat hides bob: bob's two items leave cat's feed and its count, nobody else's
    assert_eq!(s.post_empty(&format!("/api/v2/user/{b}/hide/"), Some(&tc)).await.status, 204);
    assert_eq!(feed_count(&s, &feed, Some(&tc)).await, 1);
    assert_eq!(unit_ids(&ok(&s.get(&feed, Some(&tc)).await)), [ids[0]]);
    assert_eq!(feed_count(&s, &feed, Some(&ta)).await, 3);
    // a deleted item leaves every count
    assert_eq!(s.delete(&format!("/api/v2/post/{}/", ids[0]), Some(&ta)).await.status, 204);
    assert_eq!((feed_count(&s, &feed, None).await, feed_count(&s, &feed, Some(&tc)).await), (2, 0));
    s.assert_consistent();
    s.stop().await;
}

/// A feed's `count` as `tok`'s user reads it.
async fn feed_count(s: &crate::common::TestServer, feed: &str, tok: Option<&str>) -> i64 {
    ok(&s.get(feed, tok).await)["count"].as_i64().unwrap()
}
