//! Course images: multipart create and update, the resized versions and their URLs,
//! bad and oversized files, deep PNGs, and decoding against the memory budget.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{has, patch};
use crate::common::{TestServer, image_part, multipart, png};

#[tokio::test]
async fn multipart_create_with_an_image() {
    use reqwest::multipart::Form;
    let s = TestServer::start().await;
    let (_, ta) = s.login("alice");
    let [sci, art] = s.categories(["Science", "Art"]);
    let form = Form::new()
        .text("name", "Painting 101")
        .text("type", "scheduled")
        .text("privacy", "open")
        .text("hide_member_count", "true")
        .text("categories[0]", sci.to_string())
        .text("categories[1]", art.to_string())
        .text("join_status", "joined")
        .part("image_original", image_part(png(300, 200), "photo.png", "image/png"));
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let c = r.json();
    assert_eq!(c["name"], "Painting 101");
    assert_eq!(c["hide_member_count"], true);
    assert_eq!(c["join_status"], "creator");
    assert_eq!(c["categories"].as_array().unwrap().len(), 2);
    let id = c["id"].as_i64().unwrap();
    let mut first_urls = Vec::new();
    for (field, side) in
        [("image_bigger", 600), ("image_big", 400), ("image_medium", 200), ("image_small", 100)]
    {
        let url = c[field].as_str().unwrap().to_owned();
        assert!(url.starts_with(&format!("{}/media/course/{id}/", s.url)), "{url}");
        let r = s.client.get(&url).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert!(r.headers()["cache-control"].to_str().unwrap().contains("immutable"));
        assert_eq!(r.headers()["content-type"], "image/jpeg");
        let bytes = r.bytes().await.unwrap();
        let img = image::load_from_memory(&bytes).unwrap();
        assert_eq!((img.width(), img.height()), (side, side), "{field}");
        first_urls.push(url);
    }
    // repeated `categories` and a new image by PATCH: new versioned URLs, old ones gone
    let form = Form::new()
        .text("categories", sci.to_string())
        .part("image_original", image_part(png(50, 120), "p.png", "image/png"));
    let r = multipart(&s, Method::PATCH, &format!("/api/v2/course/{id}/"), &ta, form).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["categories"].as_array().unwrap().len(), 1);
    let new_url = r.json()["image_small"].as_str().unwrap().to_owned();
    assert_ne!(new_url, first_urls[3]);
    assert_eq!(s.client.get(&first_urls[3]).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(s.client.get(&new_url).send().await.unwrap().status(), StatusCode::OK);
    // image_original: null in JSON goes back to the default image
    let r = patch(&s, &ta, id, json!({"image_original": null})).await;
    assert_eq!(r.json()["image_small"], format!("{}/static/default/course.svg", s.url).as_str());
    assert_eq!(s.client.get(&new_url).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    // a string is not a file
    let r = patch(&s, &ta, id, json!({"image_original": "http://x/y.png"})).await;
    assert!(has(&r, "image_original", "invalid"), "{}", r.text);
    // not an image: 400 on image_original, with the other field errors, nothing created
    let post = |form| multipart(&s, Method::POST, "/api/v2/course/", &ta, form);
    let gif = b"GIF89a but not really".to_vec();
    let r = post(scheduled("Painting 101", gif, "x.gif", "image/gif")).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(has(&r, "image_original", "invalid") && has(&r, "name", "unique"), "{}", r.text);
    // over 10 MiB: 400; over 12 MiB: 413
    let (big, huge) = (vec![0u8; 10 * 1024 * 1024 + 10], vec![0u8; 13 * 1024 * 1024]);
    for (name, bytes, file, mime) in
        [("Text", b"hello".to_vec(), "x.txt", "text/plain"), ("Big", big, "big.png", "image/png")]
    {
        let r = post(scheduled(name, bytes, file, mime)).await;
        assert!(has(&r, "image_original", "invalid"), "{name}: {}", r.text);
    }
    let r = post(scheduled("Huge", huge, "huge.png", "image/png")).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    // a multipart body without an image; anonymous multipart is 401
    let form = Form::new().text("name", "Plain").text("type", "self-paced");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(r.json()["categories"], json!([]));
    let r = s
        .client
        .post(format!("{}/api/v2/course/", s.url))
        .multipart(Form::new().text("name", "Anon"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    s.assert_consistent();
}

/// A `side`×`side` 16-bit RGBA PNG of one colour, written a row at a time.
fn png16(side: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, side, side);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Sixteen);
    enc.set_compression(png::Compression::Fastest);
    let mut writer = enc.write_header().unwrap();
    let mut rows = writer.stream_writer().unwrap();
    // R max, G half, B none, alpha opaque; big-endian samples
    let row: Vec<u8> = [0xFF, 0xFF, 0x80, 0x80, 0, 0, 0xFF, 0xFF].repeat(side as usize);
    for _ in 0..side {
        std::io::Write::write_all(&mut rows, &row).unwrap();
    }
    rows.finish().unwrap();
    writer.finish().unwrap();
    out
}

fn jpeg(w: u32, h: u32) -> Vec<u8> {
    let img = image::DynamicImage::ImageRgb8(image::ImageBuffer::from_pixel(
        w,
        h,
        image::Rgb([20, 120, 220]),
    ));
    let mut buf = std::io::Cursor::new(Vec::new());
    img.write_to(&mut buf, image::ImageFormat::Jpeg).unwrap();
    buf.into_inner()
}

/// A scheduled course named `name` with an image part (made of anything).
fn scheduled(
    name: &'static str,
    bytes: Vec<u8>,
    file: &str,
    mime: &str,
) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new()
        .text("name", name)
        .text("type", "scheduled")
        .part("image_original", image_part(bytes, file, mime))
}

fn image_form(name: &str, bytes: Vec<u8>, file: &str, mime: &str) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new()
        .text("name", name.to_owned())
        .text("type", "self-paced")
        .text("privacy", "open")
        .part("image_original", image_part(bytes, file, mime))
}

#[tokio::test]
async fn sixteen_bit_png_of_6000_pixels_is_accepted() {
    let s = TestServer::start().await;
    let (_, ta) = s.login("alice");
    let form = image_form("Deep", png16(6000), "deep.png", "image/png");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let url = r.json()["image_bigger"].as_str().unwrap().to_owned();
    let r = s.client.get(&url).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "image/png");
    let img = image::load_from_memory(&r.bytes().await.unwrap()).unwrap();
    assert_eq!((img.width(), img.height()), (600, 600));
    let px = img.to_rgba8().get_pixel(300, 300).0;
    assert_eq!((px[0], px[2], px[3]), (255, 0, 255), "{px:?}");
    assert!((126..=130).contains(&px[1]), "{px:?}");
    let budget = &s.state.body_budget;
    assert_eq!(budget.available(), budget.total());
}

#[tokio::test]
async fn image_decoding_counts_against_the_memory_budget() {
    let bytes = jpeg(2000, 1500);
    let peak = hearth::images::plan(&bytes).unwrap().peak;
    // a budget with room for the decode, most of it held by other requests: 503, and
    // the upload goes through once they are done
    let s = TestServer::start_with(|c| c.max_body_memory = peak + 4 * 1024 * 1024).await;
    let (_, ta) = s.login("alice");
    let budget = s.state.body_budget.clone();
    let others = budget.take(budget.total() - peak + 1).unwrap();
    let form = image_form("Busy", bytes.clone(), "p.jpg", "image/jpeg");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.text);
    assert_eq!(r.error_code(), "service_unavailable");
    assert!(r.header("retry-after").is_some());
    assert_eq!(budget.available(), budget.total() - others.bytes());
    drop(others);
    let form = image_form("Busy", bytes.clone(), "p.jpg", "image/jpeg");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    assert_eq!(budget.available(), budget.total());
    let r = s.get("/api/v2/course/", Some(&ta)).await;
    assert_eq!(r.json()["count"], 1);

    // a decode that could never fit beside its own body: 400 on the field, saying so
    let s = TestServer::start_with(|c| c.max_body_memory = peak).await;
    let (_, ta) = s.login("alice");
    let form = image_form("Never", bytes, "p.jpg", "image/jpeg");
    let r = multipart(&s, Method::POST, "/api/v2/course/", &ta, form).await;
    assert!(has(&r, "image_original", "invalid"), "{}", r.text);
    let message = r.json()["errors"][0]["messages"][0]["message"].clone();
    assert!(message.as_str().unwrap().contains("memory"), "{message}");
    let budget = &s.state.body_budget;
    assert_eq!(budget.available(), budget.total());
}
