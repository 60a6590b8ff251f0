//! An event's photo gallery and the pictures it shows: the kit's chunked upload
//! (`/api/v2/media/upload/chunk/`, `complete/`), each chunk where the last one ended,
//! the MD5 the kit sends, the image pipeline's refusals; who adds to and reads a
//! gallery; the open-upload limit under parallel uploads.

use md5::Digest;
use reqwest::Method;
use reqwest::multipart::Form;
use serde_json::{Value, json};

use super::{body, create, ok, server};
use crate::common::{Resp, TestServer, image_part, multipart, png};

/// Sends `bytes` as a whole file (no `Content-Range`), the first chunk of a new upload.
async fn chunk(s: &TestServer, tok: &str, id: Option<&str>, bytes: &[u8], _from: usize) -> Resp {
    let mut form =
        Form::new().part("image", image_part(bytes.to_vec(), "blob", "application/octet-stream"));
    if let Some(id) = id {
        form = form.text("upload_id", id.to_owned());
    }
    multipart(s, Method::POST, "/api/v2/media/upload/chunk/", tok, form).await
}

/// Sends a chunk with its `Content-Range`.
async fn ranged(
    s: &TestServer,
    tok: &str,
    id: Option<&str>,
    file: &[u8],
    range: std::ops::Range<usize>,
) -> Resp {
    let mut form = Form::new().part(
        "image",
        image_part(file[range.clone()].to_vec(), "blob", "application/octet-stream"),
    );
    if let Some(id) = id {
        form = form.text("upload_id", id.to_owned());
    }
    let r = s
        .client
        .post(format!("{}/api/v2/media/upload/chunk/", s.url))
        .bearer_auth(tok)
        .header("Content-Range", format!("bytes {}-{}/{}", range.start, range.end - 1, file.len()))
        .multipart(form)
        .send()
        .await
        .unwrap();
    TestServer::read(r).await
}

async fn complete(s: &TestServer, tok: &str, id: &str, md5: Option<String>) -> Resp {
    let mut b = json!({"upload_id": id, "type": "image"});
    if let Some(m) = md5 {
        b["md5"] = json!(m);
    }
    s.post("/api/v2/media/upload/complete/", Some(tok), b).await
}

/// Uploads `file` in two chunks and completes it: the media.
pub async fn upload(s: &TestServer, tok: &str, file: &[u8]) -> Value {
    let half = file.len() / 2;
    let first = ranged(s, tok, None, file, 0..half).await;
    let id = ok(&first)["upload_id"].as_str().unwrap().to_owned();
    ok(&ranged(s, tok, Some(&id), file, half..file.len()).await);
    let r = complete(s, tok, &id, Some(format!("{:x}", md5::Md5::digest(file)))).await;
    assert_eq!(r.status, 201, "{}", r.text);
    r.json()
}

/// Chunks in order make the picture, re-encoded and scaled to 1280 on its long side;
/// a chunk out of place, a wrong MD5, another's upload and a file that is no picture
/// are refused on their field; the upload is the uploader's alone.
#[tokio::test]
async fn a_picture_is_sent_in_chunks_and_checked() {
    let s = server().await;
    let [a, b] = s.users(["ann", "bob"]);
    let [ta, tb] = [a, b].map(|u| s.jwt(u));
    let file = png(2000, 500);
    let half = file.len() / 2;
    let first = ok(&ranged(&s, &ta, None, &file, 0..half).await);
    let id = first["upload_id"].as_str().unwrap().to_owned();
    assert_eq!(first["offset"], half);
    // the same bytes again, or a gap: the offset expected is named
    let r = ranged(&s, &ta, Some(&id), &file, 0..half).await;
    r.assert_field_error("upload_id", "invalid");
    assert!(r.text.contains(&format!("byte {half}")), "{}", r.text);
    // bob cannot add to ann's upload, nor complete it
    ranged(&s, &tb, Some(&id), &file, half..file.len())
        .await
        .assert_field_error("upload_id", "invalid");
    complete(&s, &tb, &id, None).await.assert_field_error("upload_id", "invalid");
    // not all bytes yet
    complete(&s, &ta, &id, None).await.assert_field_error("upload_id", "invalid");
    ok(&ranged(&s, &ta, Some(&id), &file, half..file.len()).await);
    // a wrong MD5 ends the upload without a picture
    complete(&s, &ta, &id, Some("0".repeat(32))).await.assert_field_error("md5", "invalid");
    complete(&s, &ta, &id, None).await.assert_field_error("upload_id", "invalid");
    let m = upload(&s, &ta, &file).await;
    assert_eq!(
        (m["type"].as_str(), m["image_width"].as_i64(), m["image_height"].as_i64()),
        (Some("image"), Some(1280), Some(320))
    );
    let url = m["image"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/media/m/", s.url)), "{url}");
    let got = s.client.get(url).send().await.unwrap();
    assert_eq!(got.headers()["content-type"], "image/jpeg");
    let img = image::load_from_memory(&got.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (1280, 320));
    // the owner sees it, others do not (it is in no gallery), and only the owner deletes
    let path = format!("/api/v2/media/{}/", m["id"]);
    assert_eq!(ok(&s.get(&path, Some(&ta)).await)["id"], m["id"]);
    assert_eq!(s.status(&path, Some(&tb)).await, 404);
    assert_eq!(s.delete(&path, Some(&tb)).await.status, 404);
    // bytes that are no picture, and a chunk with no file
    let id = ok(&chunk(&s, &ta, None, b"<svg onload=alert(1)>", 0).await)["upload_id"]
        .as_str()
        .unwrap()
        .to_owned();
    complete(&s, &ta, &id, None).await.assert_field_error("image", "invalid");
    let r =
        multipart(&s, Method::POST, "/api/v2/media/upload/chunk/", &ta, Form::new().text("x", "1"))
            .await;
    r.assert_field_error("image", "required");
    let r = s
        .post(
            "/api/v2/media/upload/complete/",
            Some(&ta),
            json!({"upload_id": "x", "type": "document"}),
        )
        .await;
    r.assert_field_error("type", "invalid");
    assert_eq!(s.delete(&path, Some(&ta)).await.status, 204);
    assert_eq!(s.status(&path, Some(&ta)).await, 404);
    s.stop().await;
}

/// A member has at most 20 unfinished uploads, however many start at once.
#[tokio::test]
async fn the_open_upload_limit_holds_under_parallel_uploads() {
    let s = server().await;
    let [a] = s.users(["ann"]);
    let ta = s.jwt(a);
    let starts = (0..30).map(|_| chunk(&s, &ta, None, b"x", 0));
    let answers = futures_util::future::join_all(starts).await;
    let taken = answers.iter().filter(|r| r.status == 200).count();
    assert_eq!(taken, 20, "{:?}", answers.iter().map(|r| r.status).collect::<Vec<_>>());
    assert!(answers.iter().all(|r| r.status == 200 || r.status == 403));
    // a day later they expired: new uploads start again
    s.clock.advance(24 * 3600 * hearth::clock::SECOND + 1);
    let ta = s.jwt(a);
    assert_eq!(chunk(&s, &ta, None, b"x", 0).await.status, 200);
    s.stop().await;
}

/// The event's managers add their own pictures and take them out; everyone who sees a
/// public event reads its gallery; a private event's gallery (and its pictures) are
/// its members'.
#[tokio::test]
async fn an_events_gallery_is_its_managers_to_fill_and_its_readers_to_see() {
    let s = server().await;
    let [a, b, c] = s.users(["ann", "bob", "cat"]);
    let [ta, tb, tc] = [a, b, c].map(|u| s.jwt(u));
    let id = create(&s, &ta, body(&s, "Fair", 5, 6, json!({}))).await["id"].as_i64().unwrap();
    let gallery = format!("/api/v2/event/{id}/gallery/");
    let mine = upload(&s, &ta, &png(300, 200)).await;
    let bobs = upload(&s, &tb, &png(200, 300)).await;
    assert_eq!(ok(&s.get(&gallery, None).await)["count"], 0);
    let r = s.post(&gallery, Some(&tb), json!({"media": bobs["id"]})).await;
    assert_eq!(r.status, 403, "bob does not manage the event: {}", r.text);
    s.post(&gallery, Some(&ta), json!({"media": bobs["id"]}))
        .await
        .assert_field_error("media", "invalid");
    s.post(&gallery, Some(&ta), json!({"media": "one"}))
        .await
        .assert_error(reqwest::StatusCode::BAD_REQUEST, "parse_error");
    for _ in 0..2 {
        let r = s.post(&gallery, Some(&ta), json!({"media": mine["id"]})).await;
        assert_eq!(r.status, 201, "{}", r.text);
        assert_eq!(r.json()["id"], mine["id"]);
    }
    let page = ok(&s.get(&gallery, None).await);
    assert_eq!(
        (page["count"].as_i64(), page["results"][0]["image"].clone()),
        (Some(1), mine["image"].clone())
    );
    // shown in a public gallery: anyone reads the item
    assert_eq!(s.status(&format!("/api/v2/media/{}/", mine["id"]), Some(&tc)).await, 200);
    // private: the gallery and its pictures are its members'
    let r =
        s.patch(&format!("/api/v2/event/{id}/"), Some(&ta), json!({"privacy": "private"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(s.status(&gallery, Some(&tc)).await, 403);
    assert_eq!(s.status(&format!("/api/v2/media/{}/", mine["id"]), Some(&tc)).await, 404);
    assert_eq!(ok(&s.get(&gallery, Some(&ta)).await)["count"], 1);
    // out of the gallery (bob may not), still ann's
    let out = json!({"medias": [mine["id"]]});
    assert_eq!(s.call(Method::DELETE, &gallery, Some(&tb), Some(out.clone())).await.status, 403);
    assert_eq!(s.call(Method::DELETE, &gallery, Some(&ta), Some(out)).await.status, 204);
    assert_eq!(ok(&s.get(&gallery, Some(&ta)).await)["count"], 0);
    assert_eq!(s.status(&format!("/api/v2/media/{}/", mine["id"]), Some(&ta)).await, 200);
    s.stop().await;
}
