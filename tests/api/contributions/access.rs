//! Who may write and read: missing, bad and read-only tokens, other users, and staff.

use hearth::model::contribution::Kind;
use reqwest::{Method, StatusCode};

use super::{a_post, body, create_id, item, path, restore};
use crate::common::TestServer;

#[tokio::test]
async fn protected_routes_reject_missing_bad_and_wrong_users() {
    let s = TestServer::start().await;
    let (alice, a) = s.login("alice");
    let (_, b) = s.login("bob");
    let a_read = s.oauth_token(alice, "read");
    let a_write = s.oauth_token(alice, "read write");
    let host = a_post(&s, &a).await;
    let bad = crate::common::bad_tokens(&s).await;
    for kind in Kind::ALL {
        let live = create_id(&s, &a, kind, body(kind, host)).await;
        let dead = create_id(&s, &a, kind, body(kind, host)).await;
        s.delete(&item(kind, dead), Some(&a)).await;

        let mut routes = vec![
            (Method::POST, path(kind), Some(body(kind, host))),
            (Method::DELETE, item(kind, live), None),
            (Method::DELETE, item(kind, 999), None),
            (Method::POST, restore(kind, live), None),
            (Method::POST, restore(kind, 999), None),
        ];
        if kind == Kind::Discussion {
            routes.push((Method::DELETE, restore(kind, live), None));
        }
        if kind == Kind::Comment {
            routes.push((Method::POST, format!("/api/v2/comment/{live}/restore"), None));
        }
        for (m, p, bdy) in &routes {
            for (what, token) in &bad {
                let r = s.call(m.clone(), p, token.as_deref(), bdy.clone()).await;
                assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{m} {p} with {what}");
                let code =
                    if token.is_some() { "authentication_failed" } else { "not_authenticated" };
                assert_eq!(r.error_code(), code, "{m} {p} with {what}");
                assert!(r.header("www-authenticate").is_some());
            }
            // a read-only token may not write, whether the id exists or not
            let r = s.call(m.clone(), p, Some(&a_read), bdy.clone()).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {p} read-only");
            assert_eq!(r.error_code(), "insufficient_scope");
        }
        // reads reject a bad token too, and accept none
        for (what, token) in &bad {
            for p in [path(kind), item(kind, live)] {
                let r = s.get(&p, token.as_deref()).await;
                let want = if token.is_some() { StatusCode::UNAUTHORIZED } else { StatusCode::OK };
                assert_eq!(r.status, want, "GET {p} with {what}");
            }
        }
        // another user: 403 on what they can see, 404 on another's deleted item
        for (m, p) in [(Method::DELETE, item(kind, live)), (Method::POST, restore(kind, live))] {
            let r = s.call(m.clone(), &p, Some(&b), None).await;
            assert_eq!(r.status, StatusCode::FORBIDDEN, "{m} {p} by bob");
            assert_eq!(r.error_code(), "permission_denied");
        }
        for (m, p) in [(Method::DELETE, item(kind, dead)), (Method::POST, restore(kind, dead))] {
            let r = s.call(m.clone(), &p, Some(&b), None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{m} {p} by bob");
        }
        assert_eq!(s.get(&item(kind, dead), Some(&b)).await.status, StatusCode::NOT_FOUND);
        // unknown ids are 404 for an authenticated writer
        for (m, p) in [(Method::DELETE, item(kind, 999)), (Method::POST, restore(kind, 999))] {
            let r = s.call(m.clone(), &p, Some(&a), None).await;
            assert_eq!(r.status, StatusCode::NOT_FOUND, "{m} {p}");
            assert_eq!(r.error_code(), "not_found");
        }
        assert_eq!(s.get(&item(kind, 999), None).await.status, StatusCode::NOT_FOUND);
        // staff are not creators either
        let staff = s.jwt(s.user(&format!("staff{}", kind.as_str()), None, true));
        let r = s.delete(&item(kind, live), Some(&staff)).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        // the creator's write-scoped OAuth token works
        let r = s.delete(&item(kind, live), Some(&a_write)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
        let r = s.call(Method::POST, &restore(kind, live), Some(&a_write), None).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
        // and the read-only token can read
        assert_eq!(s.get(&item(kind, dead), Some(&a_read)).await.json()["deleted"], true);
    }
    s.assert_consistent();
}
