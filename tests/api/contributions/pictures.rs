//! Pictures in discussions and posts (`medias`, the kit's Composer): uploaded by the
//! author, shown by one item at most, in the order given; a post of pictures needs no
//! text; an edit replaces them; they are seen by those who see the item.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::{TestServer, png};
use crate::events::gallery::upload;

fn ids(item: &Value) -> Vec<i64> {
    item["medias"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

fn id(media: &Value) -> i64 {
    media["id"].as_i64().unwrap()
}

/// A post of two pictures and no text shows them in the order given, in its own read, in
/// the post list; a discussion shows them too; the author's data export lists them.
#[tokio::test]
async fn a_post_shows_its_pictures_in_order_without_text() {
    let s = TestServer::start().await;
    let (ann, a) = s.login("ann");
    let (_, b) = s.login("bob");
    let [m1, m2] = [upload(&s, &a, &png(40, 30)).await, upload(&s, &a, &png(30, 40)).await];
    let post = s.create("/api/v2/post/", &a, json!({"medias": [id(&m2), id(&m1)]})).await;
    assert_eq!(ids(&post), [id(&m2), id(&m1)]);
    assert_eq!(post["text"], "");
    assert_eq!(post["medias"][0]["order"], 0);
    assert_eq!(post["medias"][1]["order"], 1);
    assert_eq!(post["medias"][0]["type"], "image");
    assert_eq!(post["medias"][0]["image"], m2["image"]);
    assert_eq!(post["medias"][1]["image_width"], 40);
    let pid = post["id"].as_i64().unwrap();
    let read = s.get(&format!("/api/v2/post/{pid}/"), Some(&b)).await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.text);
    assert_eq!(ids(&read.json()), [id(&m2), id(&m1)]);
    let list = s.get("/api/v2/post/", Some(&b)).await.json();
    assert_eq!(ids(&list["results"][0]), [id(&m2), id(&m1)]);
    // another reader sees a picture the item shows
    let media = s.get(&format!("/api/v2/media/{}/", id(&m1)), Some(&b)).await;
    assert_eq!(media.status, StatusCode::OK, "{}", media.text);
    let m3 = upload(&s, &a, &png(20, 20)).await;
    let d =
        s.create("/api/v2/discussion/", &a, json!({"title": "Crumb", "medias": [id(&m3)]})).await;
    assert_eq!(ids(&d), [id(&m3)]);
    // the author's data export lists them, with what shows each
    let now = s.clock.now();
    let files = s.db_read(move |c| hearth::db::export::files(c, ann, now, &|_, _| {})).unwrap();
    let (_, bytes) = files.iter().find(|(n, _)| n == "media.json").unwrap();
    let pictures: Value = serde_json::from_slice(bytes).unwrap();
    let shown: Vec<(i64, &str)> = pictures
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["shown_in_id"].as_i64().unwrap(), p["shown_in_kind"].as_str().unwrap()))
        .collect();
    assert_eq!(shown, [(pid, "post"), (pid, "post"), (d["id"].as_i64().unwrap(), "discussion")]);
}

/// Someone else's picture, one another item shows, an unknown id, too many, a list of
/// non-ids, pictures on a status or a comment, and a post of nothing are refused on
/// their field; nothing is made.
#[tokio::test]
async fn pictures_that_are_not_the_authors_to_show_are_refused() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let (_, b) = s.login("bob");
    let mine = id(&upload(&s, &a, &png(20, 20)).await);
    let bobs = id(&upload(&s, &b, &png(20, 20)).await);
    for medias in [json!([bobs]), json!([mine, 99_999]), json!(["x"]), json!({"id": mine})] {
        let r = s.post("/api/v2/post/", Some(&a), json!({"text": "t", "medias": medias})).await;
        r.assert_field_error("medias", "invalid");
    }
    let many: Vec<i64> = (1..=21).collect();
    let r = s.post("/api/v2/post/", Some(&a), json!({"text": "t", "medias": many})).await;
    r.assert_field_error("medias", "max_length");
    let r = s.post("/api/v2/status/", Some(&a), json!({"text": "t", "medias": [mine]})).await;
    r.assert_field_error("medias", "invalid");
    let host = s.create_id("/api/v2/post/", &a, json!({"text": "host"})).await;
    let r = s
        .post("/api/v2/comment/", Some(&a), json!({"text": "t", "post": host, "medias": [mine]}))
        .await;
    r.assert_field_error("medias", "invalid");
    for body in [json!({}), json!({"text": "  "}), json!({"text": " ", "medias": []})] {
        let r = s.post("/api/v2/post/", Some(&a), body).await;
        r.assert_field_error("text", "required");
    }
    s.create("/api/v2/post/", &a, json!({"text": "mine", "medias": [mine]})).await;
    let r = s.post("/api/v2/post/", Some(&a), json!({"text": "again", "medias": [mine]})).await;
    r.assert_field_error("medias", "invalid");
    // the picture another item shows stays in its first item only
    let posts = s.get("/api/v2/post/", Some(&a)).await.json();
    let showing: Vec<&Value> =
        posts["results"].as_array().unwrap().iter().filter(|p| ids(p) == [mine]).collect();
    assert_eq!(showing.len(), 1);
}

/// An edit's `medias` replaces the item's pictures (a picture left out is free to show
/// elsewhere); an edit without `medias` keeps them.
#[tokio::test]
async fn an_edit_replaces_the_pictures_or_keeps_them() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let [m1, m2] =
        [id(&upload(&s, &a, &png(20, 20)).await), id(&upload(&s, &a, &png(20, 20)).await)];
    let pid = s.create_id("/api/v2/post/", &a, json!({"text": "t", "medias": [m1, m2]})).await;
    let path = format!("/api/v2/post/{pid}/");
    let r = s.put(&path, Some(&a), json!({"text": "edited"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(ids(&r.json()), [m1, m2]);
    let r = s.put(&path, Some(&a), json!({"text": "edited", "medias": [m2]})).await;
    assert_eq!(ids(&r.json()), [m2]);
    let other = s.create("/api/v2/post/", &a, json!({"medias": [m1]})).await;
    assert_eq!(ids(&other), [m1]);
    let r = s.put(&path, Some(&a), json!({"text": "edited", "medias": [m2, m1]})).await;
    r.assert_field_error("medias", "invalid");
    let r = s.put(&path, Some(&a), json!({"text": "edited", "medias": []})).await;
    assert_eq!(ids(&r.json()), Vec::<i64>::new());
}

/// A picture is seen by who sees its item: not before it shows in one, not once the item
/// is deleted, not in a group's item by a non-member; deleting the picture takes it out
/// of its item.
#[tokio::test]
async fn a_picture_is_seen_by_who_sees_its_item() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let (_, b) = s.login("bob");
    let m = id(&upload(&s, &a, &png(20, 20)).await);
    let media = format!("/api/v2/media/{m}/");
    assert_eq!(s.get(&media, Some(&b)).await.status, StatusCode::NOT_FOUND);
    let pid = s.create_id("/api/v2/post/", &a, json!({"text": "t", "medias": [m]})).await;
    assert_eq!(s.get(&media, Some(&b)).await.status, StatusCode::OK);
    assert_eq!(s.get(&media, None).await.status, StatusCode::OK);
    assert_eq!(s.delete(&format!("/api/v2/post/{pid}/"), Some(&a)).await.status, 204);
    assert_eq!(s.get(&media, Some(&b)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&media, Some(&a)).await.status, StatusCode::OK);
    // a private group's item: its members only
    s.set_pref("configurations", "groups_enabled", json!(true));
    s.set_pref("configurations", "groups_private_enabled", json!(true));
    let g =
        s.create_id("/api/v2/group/", &a, json!({"name": "Bakers", "privacy": "private"})).await;
    let m2 = id(&upload(&s, &a, &png(20, 20)).await);
    s.create("/api/v2/post/", &a, json!({"text": "in", "group": g, "medias": [m2]})).await;
    let r = s.get(&format!("/api/v2/media/{m2}/"), Some(&b)).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "{}", r.text);
    // deleting the picture takes it out of the item
    let m3 = id(&upload(&s, &a, &png(20, 20)).await);
    let pid = s.create_id("/api/v2/post/", &a, json!({"text": "t", "medias": [m3]})).await;
    assert_eq!(s.delete(&format!("/api/v2/media/{m3}/"), Some(&a)).await.status, 204);
    let post = s.get(&format!("/api/v2/post/{pid}/"), Some(&a)).await.json();
    assert_eq!(ids(&post), Vec::<i64>::new());
}

/// Two posts made at once with the same picture: one shows it, the other is refused.
#[tokio::test]
async fn two_posts_at_once_cannot_show_the_same_picture() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let m = id(&upload(&s, &a, &png(20, 20)).await);
    let tries = (0..8).map(|i| {
        let (s, a) = (&s, &a);
        async move {
            s.post("/api/v2/post/", Some(a), json!({"text": format!("p{i}"), "medias": [m]})).await
        }
    });
    let answers = futures_util::future::join_all(tries).await;
    let made = answers.iter().filter(|r| r.status == StatusCode::CREATED).count();
    assert_eq!(made, 1, "{:?}", answers.iter().map(|r| r.status).collect::<Vec<_>>());
    for r in answers.iter().filter(|r| r.status != StatusCode::CREATED) {
        r.assert_field_error("medias", "invalid");
    }
}

/// An edit checks the post it leaves: blank text keeps its pictures when the body has no
/// `medias`, and is refused when it takes them all away.
#[tokio::test]
async fn an_edit_may_blank_a_post_that_keeps_its_pictures() {
    let s = TestServer::start().await;
    let (_, a) = s.login("ann");
    let m = id(&upload(&s, &a, &png(20, 20)).await);
    let pid = s.create_id("/api/v2/post/", &a, json!({"text": "t", "medias": [m]})).await;
    let path = format!("/api/v2/post/{pid}/");
    let r = s.put(&path, Some(&a), json!({"text": ""})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(ids(&r.json()), [m]);
    let r = s.put(&path, Some(&a), json!({"text": " ", "medias": []})).await;
    r.assert_field_error("text", "required");
    let post = s.get(&path, Some(&a)).await.json();
    assert_eq!(ids(&post), [m]);
}
