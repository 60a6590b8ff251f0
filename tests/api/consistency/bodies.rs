//! Request bodies alike everywhere: no-body routes, content types, parse errors, sizes.

use reqwest::{Method, StatusCode};

use super::{contributions, course_with_section, start};

/// SPEC §3: routes that take no body accept an empty body whatever its content type,
/// and `{}`.
#[tokio::test]
async fn no_body_routes_accept_empty_bodies_and_empty_objects() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let bodies: [(Option<&str>, &[u8]); 6] = [
        (None, b""),
        (Some("application/json"), b""),
        (Some("text/plain"), b""),
        (Some("application/x-www-form-urlencoded"), b""),
        (Some("application/json"), b"{}"),
        (Some("application/json; charset=utf-8"), b" { } "),
    ];
    for (ct, body) in bodies {
        let what = format!("{ct:?} {:?}", String::from_utf8_lossy(body));
        // follow (toggles: twice leaves things as they were)
        for _ in 0..2 {
            let r = s
                .raw(
                    Method::POST,
                    &format!("/api/v2/user/{}/follow/", w.bob),
                    Some(t),
                    ct,
                    Some(body.to_vec()),
                )
                .await;
            assert_eq!(r.status, StatusCode::NO_CONTENT, "follow {what}: {}", r.text);
        }
        // contributions: delete and restore, every kind and form
        let (d, p, st, c) = contributions(&s, t).await;
        for (m, path) in [
            (Method::DELETE, format!("/api/v2/comment/{c}/")),
            (Method::POST, format!("/api/v2/comment/{c}/restore/")),
            (Method::DELETE, format!("/api/v2/comment/{c}/")),
            (Method::POST, format!("/api/v2/comment/{c}/restore")),
            (Method::DELETE, format!("/api/v2/discussion/{d}/")),
            (Method::POST, format!("/api/v2/discussion/{d}/restore/")),
            (Method::DELETE, format!("/api/v2/discussion/{d}/")),
            (Method::DELETE, format!("/api/v2/discussion/{d}/restore/")),
            (Method::DELETE, format!("/api/v2/post/{p}/")),
            (Method::POST, format!("/api/v2/post/{p}/restore/")),
            (Method::DELETE, format!("/api/v2/status/{st}/")),
            (Method::POST, format!("/api/v2/status/{st}/restore/")),
        ] {
            let r = s.raw(m.clone(), &path, Some(t), ct, Some(body.to_vec())).await;
            assert_eq!(r.status, StatusCode::NO_CONTENT, "{m} {path} {what}: {}", r.text);
        }
        // courses: join, leave, delete a section, delete the course
        let name = format!("C {}", s.clock.now());
        let (course, sec) = course_with_section(&s, t, &name).await;
        s.clock.advance(hearth::clock::SECOND);
        for (m, path, tok, want) in [
            (Method::POST, format!("/api/v2/course/{course}/join/"), &w.bob_t, StatusCode::OK),
            (
                Method::DELETE,
                format!("/api/v2/course/{course}/join/"),
                &w.bob_t,
                StatusCode::NO_CONTENT,
            ),
            (
                Method::DELETE,
                format!("/api/v2/course/{course}/section/{sec}/"),
                t,
                StatusCode::NO_CONTENT,
            ),
            (Method::DELETE, format!("/api/v2/course/{course}/"), t, StatusCode::NO_CONTENT),
        ] {
            let r = s.raw(m.clone(), &path, Some(tok), ct, Some(body.to_vec())).await;
            assert_eq!(r.status, want, "{m} {path} {what}: {}", r.text);
        }
    }
    let _ = w.ann;
}

/// A no-body route given a real body says so the same way everywhere (400
/// `parse_error`), and an oversized one is 413.
#[tokio::test]
async fn no_body_routes_refuse_real_bodies_alike() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let (d, p, st, c) = contributions(&s, t).await;
    let (course, sec) = course_with_section(&s, t, "C").await;
    let routes = [
        (Method::POST, format!("/api/v2/user/{}/follow/", w.bob), t),
        (Method::DELETE, format!("/api/v2/discussion/{d}/"), t),
        (Method::POST, format!("/api/v2/discussion/{d}/restore/"), t),
        (Method::DELETE, format!("/api/v2/discussion/{d}/restore/"), t),
        (Method::DELETE, format!("/api/v2/post/{p}/"), t),
        (Method::POST, format!("/api/v2/post/{p}/restore/"), t),
        (Method::DELETE, format!("/api/v2/status/{st}/"), t),
        (Method::POST, format!("/api/v2/status/{st}/restore/"), t),
        (Method::DELETE, format!("/api/v2/comment/{c}/"), t),
        (Method::POST, format!("/api/v2/comment/{c}/restore/"), t),
        (Method::POST, format!("/api/v2/comment/{c}/restore"), t),
        (Method::POST, format!("/api/v2/course/{course}/join/"), &w.bob_t),
        (Method::DELETE, format!("/api/v2/course/{course}/join/"), &w.bob_t),
        (Method::DELETE, format!("/api/v2/course/{course}/section/{sec}/"), t),
        (Method::DELETE, format!("/api/v2/course/{course}/"), t),
    ];
    let big = vec![b' '; 1024 * 1024 + 1];
    let parse_error = (StatusCode::BAD_REQUEST, "parse_error");
    let too_large = (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    let bodies = [
        (&b"{\"a\": 1}"[..], parse_error),
        (b"[]", parse_error),
        (b"{", parse_error),
        (&big, too_large),
    ];
    for (m, path, tok) in &routes {
        for (body, (status, code)) in bodies {
            let json = Some("application/json");
            let r = s.raw(m.clone(), path, Some(tok), json, Some(body.to_vec())).await;
            assert_eq!(r.status, status, "{m} {path}: {}", r.text);
            assert_eq!(r.error_code(), code, "{m} {path}");
        }
    }
}

/// What a bad-body case sends and expects: name, content type, body, status, code.
type BodyCase = (&'static str, Option<&'static str>, Vec<u8>, StatusCode, &'static str);

/// The same bad body gets the same status and code on every route that reads one.
#[tokio::test]
async fn body_errors_are_the_same_everywhere() {
    let (s, w) = start().await;
    let t = &w.ann_t;
    let (course, sec) = course_with_section(&s, t, "C").await;
    let routes = [
        (Method::PATCH, "/api/v2/dynamic_preference/".to_owned()),
        (Method::POST, "/api/v2/discussion/".into()),
        (Method::POST, "/api/v2/post/".into()),
        (Method::POST, "/api/v2/status/".into()),
        (Method::POST, "/api/v2/comment/".into()),
        (Method::POST, "/api/v2/course/".into()),
        (Method::PUT, format!("/api/v2/course/{course}/")),
        (Method::PATCH, format!("/api/v2/course/{course}/")),
        (Method::POST, format!("/api/v2/course/{course}/invite/")),
        (Method::DELETE, format!("/api/v2/course/{course}/invite/")),
        (Method::POST, format!("/api/v2/course/{course}/role/")),
        (Method::POST, format!("/api/v2/course/{course}/section/")),
        (Method::PUT, format!("/api/v2/course/{course}/section/{sec}/")),
        (Method::PATCH, format!("/api/v2/course/{course}/section/{sec}/")),
    ];
    let big = format!("{{\"text\": \"{}\"}}", "x".repeat(1024 * 1024 + 10)).into_bytes();
    let cases: [BodyCase; 7] = [
        (
            "text/plain",
            Some("text/plain"),
            b"{}".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        ),
        (
            "no content type",
            None,
            b"{}".to_vec(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
        ),
        (
            "bad json",
            Some("application/json"),
            b"{\"a\":".to_vec(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "empty json body",
            Some("application/json"),
            Vec::new(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "a list",
            Some("application/json"),
            b"[]".to_vec(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "a string",
            Some("application/json"),
            b"\"x\"".to_vec(),
            StatusCode::BAD_REQUEST,
            "parse_error",
        ),
        (
            "too large",
            Some("application/json"),
            big,
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
        ),
    ];
    let mut failures = Vec::new();
    for (m, path) in &routes {
        for (what, ct, body, status, code) in &cases {
            let r = s.raw(m.clone(), path, Some(t), *ct, Some(body.clone())).await;
            if r.status != *status || r.error_code() != *code {
                failures.push(format!(
                    "{m} {path} {what}: {} {}",
                    r.status,
                    r.text.chars().take(200).collect::<String>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
