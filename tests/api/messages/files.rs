//! A message's file as the kit's uploader sends it: chunks, `?done`, a thumbnail, then
//! the message naming it; types from the bytes, the limits, and a taken-back file gone.

use reqwest::multipart::{Form, Part};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{TestServer, image_part, multipart, png};

async fn upload(s: &TestServer, token: &str, query: &str, form: Form) -> crate::common::Resp {
    multipart(s, Method::POST, &format!("/api/v2/pm/upload/{query}"), token, form).await
}

fn chunk(bytes: Vec<u8>) -> Part {
    Part::bytes(bytes).file_name("blob".to_owned())
}

#[tokio::test]
async fn a_file_in_chunks_becomes_whole_gets_a_thumbnail_and_goes_with_its_message() {
    let s = TestServer::start().await;
    s.set_pref("addons", "private_messages_enabled", json!(true));
    let (alice, a) = s.login("alice");
    let (bob, b) = s.login("bob");
    let pdf: Vec<u8> = [b"%PDF-1.7\n".as_slice(), &vec![b'x'; 300_000]].concat();
    let (first, second) = pdf.split_at(200_000);
    // chunk 0 makes the file; chunk 1 names it
    let r = upload(
        &s,
        &a,
        "",
        Form::new()
            .text("partindex", "0")
            .text("totalparts", "2")
            .part("file", chunk(first.to_vec())),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let uuid = r.json()["file_uuid"].as_str().unwrap().to_owned();
    // bob cannot add to alice's upload
    upload(
        &s,
        &b,
        "",
        Form::new()
            .text("partindex", "1")
            .text("uuid", uuid.clone())
            .part("file", chunk(second.to_vec())),
    )
    .await
    .assert_field_error("uuid", "invalid");
    let r = upload(
        &s,
        &a,
        "",
        Form::new()
            .text("partindex", "1")
            .text("totalparts", "2")
            .text("uuid", uuid.clone())
            .part("file", chunk(second.to_vec())),
    )
    .await;
    assert_eq!(r.json()["file_uuid"], uuid.as_str());
    // done: a wrong part count is refused, the right one makes it whole
    upload(
        &s,
        &a,
        "?done",
        Form::new().text("uuid", uuid.clone()).text("filename", "r.pdf").text("totalparts", "3"),
    )
    .await
    .assert_field_error("partindex", "invalid");
    let r = upload(
        &s,
        &a,
        "?done",
        Form::new()
            .text("uuid", uuid.clone())
            .text("filename", "../report.pdf")
            .text("totalparts", "2"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let url = r.json()["file_url"].as_str().unwrap().to_owned();
    let got = s.client.get(&url).send().await.unwrap();
    assert_eq!(got.headers()["content-type"], "application/pdf");
    assert_eq!(got.bytes().await.unwrap().len(), pdf.len());
    // the thumbnail must be an image; its answer names the parent, which a message sends
    upload(
        &s,
        &a,
        "",
        Form::new().text("parentuuid", uuid.clone()).part("file", chunk(b"<svg/>".to_vec())),
    )
    .await
    .assert_field_error("file", "invalid");
    let r = upload(
        &s,
        &a,
        "",
        Form::new()
            .text("parentuuid", uuid.clone())
            .part("file", image_part(png(40, 30), "t.png", "image/png")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        (r.json()["file_uuid"].clone(), r.json()["parent_file_uuid"].clone()),
        (json!(uuid), json!(uuid))
    );
    let thumb = r.json()["file_url"].as_str().unwrap().to_owned();
    // bob cannot send alice's file; alice can, once
    let body = |to: i64| json!({"recipients": [to], "message": "", "file_uuid": uuid});
    s.post("/api/v2/pm/", Some(&b), body(alice)).await.assert_field_error("file_uuid", "invalid");
    let r = s.post("/api/v2/pm/", Some(&a), body(bob)).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let m = r.json()[0].clone();
    let f = &m["file"];
    assert_eq!(
        (f["filename"].clone(), f["mimetype"].clone(), f["filesize"].clone()),
        (json!("report.pdf"), json!("application/pdf"), json!(pdf.len()))
    );
    assert_eq!(
        (f["url"].as_str(), f["thumbnail"].as_str()),
        (Some(url.as_str()), Some(thumb.as_str()))
    );
    s.post("/api/v2/pm/", Some(&a), body(bob)).await.assert_field_error("file_uuid", "invalid");
    let read: Value = s.get(&format!("/api/v2/pm/{}/", m["id"]), Some(&b)).await.json();
    assert_eq!(read["file"]["uuid"], uuid.as_str());
    // taken back: the file and its thumbnail are gone
    assert_eq!(
        s.delete(&format!("/api/v2/pm/{}/", m["id"]), Some(&a)).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(s.client.get(&url).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(s.client.get(&thumb).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    s.assert_consistent();
}

#[tokio::test]
async fn a_whole_upload_is_typed_by_its_bytes_and_the_size_is_capped() {
    let s = TestServer::start().await;
    s.set_pref("addons", "private_messages_enabled", json!(true));
    let (_, a) = s.login("alice");
    // markup is never served as markup from hearth's origin
    let r = upload(
        &s,
        &a,
        "",
        Form::new().text("filename", "x.svg").part(
            "file",
            Part::bytes(b"<svg onload=alert(1)>".to_vec())
                .file_name("x.svg")
                .mime_str("image/svg+xml")
                .unwrap(),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let url = r.json()["file_url"].as_str().unwrap().to_owned();
    assert_eq!(
        s.client.get(&url).send().await.unwrap().headers()["content-type"],
        "application/octet-stream"
    );
    // the kit's single-chunk flow: a whole file, then `?done` for it
    let uuid = r.json()["file_uuid"].as_str().unwrap().to_owned();
    let r = upload(
        &s,
        &a,
        "?done",
        Form::new().text("uuid", uuid).text("filename", "pic.svg").text("totalparts", "1"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    // more than 10 MiB in all is refused, chunk by chunk
    let big = vec![0u8; 6 * 1024 * 1024];
    let r = upload(&s, &a, "", Form::new().text("partindex", "0").part("file", chunk(big.clone())))
        .await;
    let uuid = r.json()["file_uuid"].as_str().unwrap().to_owned();
    upload(
        &s,
        &a,
        "",
        Form::new().text("partindex", "1").text("uuid", uuid.clone()).part("file", chunk(big)),
    )
    .await
    .assert_field_error("file", "max_value");
    upload(
        &s,
        &a,
        "",
        Form::new().text("partindex", "64").text("uuid", uuid).part("file", chunk(vec![1])),
    )
    .await
    .assert_field_error("partindex", "invalid");
    upload(&s, &a, "", Form::new().text("filename", "x"))
        .await
        .assert_field_error("file", "required");
    upload(&s, &a, "?done", Form::new().text("filename", "x"))
        .await
        .assert_field_error("uuid", "required");
}
