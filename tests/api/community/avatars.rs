//! Avatars (SPEC §10 People, `/api/v2/user/avatar/`): upload, list, make primary, delete,
//! the current one, the limits, and other members' avatars out of reach.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{TestServer, image_part, multipart, png};

fn form(bytes: Vec<u8>) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new().part("avatar", image_part(bytes, "me.png", "image/png"))
}

async fn upload(s: &TestServer, token: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let r = multipart(s, Method::POST, "/api/v2/user/avatar/", token, form(bytes)).await;
    let body = if r.text.is_empty() { Value::Null } else { r.json() };
    (r.status, body)
}

async fn avatar_of(s: &TestServer, id: i64) -> String {
    s.get(&format!("/api/v2/user/{id}/"), None).await.json()["avatar"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[tokio::test]
async fn an_uploaded_avatar_is_a_400_pixel_square_that_becomes_the_members_avatar() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (code, first) = upload(&s, &a, png(300, 200)).await;
    assert_eq!(code, StatusCode::CREATED, "{first}");
    assert_eq!((first["primary"].clone(), first["user"].clone()), (json!(true), json!(alice)));
    let url = first["avatar"].as_str().unwrap_or("").to_owned();
    assert!(url.starts_with(&format!("{}/media/avatar/{alice}/", s.url)), "{url}");
    assert_eq!(avatar_of(&s, alice).await, url, "User JSON shows it");
    let me = s.get("/api/v2/user/me/avatar/", Some(&a)).await;
    assert_eq!(me.json(), json!({ "avatar": url }));
    // served: a 400×400 PNG, cached as immutable
    let r = s.client.get(&url).send().await.unwrap();
    assert_eq!(r.headers()["cache-control"], "public, max-age=31536000, immutable");
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (400, 400));
    // a second one takes its place; the list has both, the second primary
    let (_, second) = upload(&s, &a, png(100, 100)).await;
    let list = s.get("/api/v2/user/avatar/", Some(&a)).await.json();
    assert_eq!(list["count"], 2);
    let flags: Vec<(Value, Value)> = list["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["id"].clone(), x["primary"].clone()))
        .collect();
    assert_eq!(
        flags,
        vec![(first["id"].clone(), json!(false)), (second["id"].clone(), json!(true))]
    );
    // the first made primary again
    let r = s.patch("/api/v2/user/avatar/", Some(&a), json!({"avatar_id": first["id"]})).await;
    assert_eq!((r.status, r.json()["primary"].clone()), (StatusCode::OK, json!(true)));
    assert_eq!(avatar_of(&s, alice).await, url);
    // deleting the primary one: the newest remaining takes its place, its image is gone
    let r = s
        .call(
            Method::DELETE,
            "/api/v2/user/avatar/",
            Some(&a),
            Some(json!({"avatar_id": first["id"]})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.text);
    assert_eq!(avatar_of(&s, alice).await, second["avatar"].as_str().unwrap_or(""));
    assert_eq!(s.client.get(&url).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    // the last one gone: hearth's default
    s.call(
        Method::DELETE,
        "/api/v2/user/avatar/",
        Some(&a),
        Some(json!({"avatar_id": second["id"]})),
    )
    .await;
    assert_eq!(avatar_of(&s, alice).await, format!("{}/static/default/avatar.svg", s.url));
    s.assert_consistent();
}

#[tokio::test]
async fn bad_uploads_others_avatars_and_the_limit_are_refused() {
    let s = TestServer::start().await;
    let (_, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let (code, body) = upload(&s, &a, b"not an image".to_vec()).await;
    assert_eq!(
        (code, body["errors"][0]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("avatar"))
    );
    let none = reqwest::multipart::Form::new().text("x", "1");
    let r = multipart(&s, Method::POST, "/api/v2/user/avatar/", &a, none).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = s.post("/api/v2/user/avatar/", None, json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    // bob cannot touch alice's avatar: 404, and hers is unchanged
    let (_, mine) = upload(&s, &a, png(50, 50)).await;
    for method in [Method::PATCH, Method::DELETE] {
        let r = s
            .call(
                method.clone(),
                "/api/v2/user/avatar/",
                Some(&b),
                Some(json!({"avatar_id": mine["id"]})),
            )
            .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{method}");
    }
    for bad in [json!({}), json!({"avatar_id": "x"}), json!({"avatar_id": 1, "more": 2})] {
        let r = s.patch("/api/v2/user/avatar/", Some(&a), bad.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
    }
    // at most 20 each
    for _ in 1..20 {
        assert_eq!(upload(&s, &a, png(20, 20)).await.0, StatusCode::CREATED);
    }
    let (code, body) = upload(&s, &a, png(20, 20)).await;
    assert_eq!(
        (code, body["errors"][0]["messages"][0]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("max_value"))
    );
    s.assert_consistent();
}

#[tokio::test]
async fn thirty_parallel_uploads_keep_exactly_twenty() {
    let s = TestServer::start_with(|c| c.max_connections_per_address = 64).await;
    let (alice, a) = s.login("alice");
    let uploads = (0..30).map(|i| {
        let (s, a) = (&s, a.clone());
        async move { upload(s, &a, png(20 + i, 20)).await.0 }
    });
    let codes = futures_util::future::join_all(uploads).await;
    let made = codes.iter().filter(|c| **c == StatusCode::CREATED).count();
    let refused = codes.iter().filter(|c| **c == StatusCode::BAD_REQUEST).count();
    assert_eq!((made, refused), (20, 10), "{codes:?}");
    assert_eq!(s.get("/api/v2/user/avatar/", Some(&a)).await.json()["count"], 20);
    let images = s.db_read(|c| {
        c.query_row(
            "SELECT count(*) FROM media WHERE path LIKE ?1",
            [format!("avatar/{alice}/%")],
            |r| r.get::<_, i64>(0),
        )
    });
    assert_eq!(images, 20, "no image is left behind by a refused upload");
    s.assert_consistent();
}

/// The kit's `ChangeCover`: a form with a `cover` picture on `PATCH /user/{id}/` sets the
/// member's cover (re-encoded, at most 1280 px a side, served from `/media/`), a new one
/// replaces it (the old one is gone), an empty `cover` puts the default back, and a
/// non-picture or another member's id is refused. JSON cannot set it.
#[tokio::test]
async fn a_cover_picture_is_uploaded_replaced_and_removed() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let path = format!("/api/v2/user/{alice}/");
    let cover_form = |bytes: Vec<u8>| {
        reqwest::multipart::Form::new().part("cover", image_part(bytes, "wide.png", "image/png"))
    };
    let r = multipart(&s, Method::PATCH, &path, &a, cover_form(png(2000, 500))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let cover = r.json()["cover"].as_str().unwrap().to_owned();
    assert!(cover.contains(&format!("/media/user/{alice}/cover/")), "{cover}");
    let served = s.client.get(&cover).send().await.unwrap();
    assert_eq!(served.status(), StatusCode::OK);
    let img = image::load_from_memory(&served.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (1280, 320), "the whole picture, at most 1280 px");
    assert_eq!(s.get(&path, Some(&b)).await.json()["cover"], cover.as_str());
    // a new one replaces it: one stored file
    let r = multipart(&s, Method::PATCH, &path, &a, cover_form(png(300, 100))).await;
    let second = r.json()["cover"].as_str().unwrap().to_owned();
    assert_ne!(second, cover);
    assert_eq!(s.client.get(&cover).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    let stored = |s: &TestServer| {
        s.db_read(|c| {
            c.query_row(
                "SELECT count(*) FROM media WHERE path LIKE ?1",
                [format!("user/{alice}/cover/%")],
                |r| r.get::<_, i64>(0),
            )
        })
    };
    assert_eq!(stored(&s), 1);
    // refused: not a picture, another member's profile; JSON's `cover` changes nothing
    let text = reqwest::multipart::Form::new()
        .part("cover", image_part(b"<svg onload=alert(1)>".to_vec(), "x.svg", "image/svg+xml"));
    let r = multipart(&s, Method::PATCH, &path, &a, text).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text);
    assert!(r.text.contains("cover"), "{}", r.text);
    let r = multipart(&s, Method::PATCH, &path, &b, cover_form(png(30, 30))).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let r = s.patch(&path, Some(&a), json!({"cover": "javascript:alert(1)"})).await;
    assert_eq!(r.json()["cover"], second.as_str());
    // an empty cover: the default again, and the file gone
    let clear = reqwest::multipart::Form::new().text("cover", "");
    let r = multipart(&s, Method::PATCH, &path, &a, clear).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert!(r.json()["cover"].as_str().unwrap().ends_with("/static/default/cover.svg"));
    assert_eq!(stored(&s), 0);
    // erasing the account takes a cover with it
    multipart(&s, Method::PATCH, &path, &a, cover_form(png(40, 40))).await;
    assert_eq!(s.delete(&path, Some(&a)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(stored(&s), 0);
    s.assert_consistent();
}
