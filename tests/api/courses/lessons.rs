//! Lessons: written by the course's creator and managers, drafts hidden from members,
//! opened only by members, locked in order when the course enforces it, completed by
//! members (the course's progress counts published lessons), reordered in their
//! section; and their comments.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{create, has, patch, set_status};
use crate::common::TestServer;

/// A course of alice's (open) with one section; bob joined, carol signed in only.
struct Fixture {
    s: TestServer,
    id: i64,
    sid: i64,
    alice: String,
    bob: String,
    carol: String,
    bob_id: i64,
}

async fn fixture() -> Fixture {
    let s = TestServer::start().await;
    let [alice, bob, carol] = s.users(["alice", "bob", "carol"]);
    let ta = s.jwt(alice);
    let c = create(&s, &ta, json!({"name": "C", "type": "self-paced", "privacy": "open"})).await;
    let id = c["id"].as_i64().unwrap();
    let r = s.post(&format!("/api/v2/course/{id}/section/"), Some(&ta), json!({"name": "S"})).await;
    let sid = r.json()["id"].as_i64().unwrap();
    set_status(&s, id, bob, "joined");
    Fixture { id, sid, alice: ta, bob: s.jwt(bob), carol: s.jwt(carol), bob_id: bob, s }
}

impl Fixture {
    fn lessons(&self) -> String {
        format!("/api/v2/course/{}/section/{}/lesson/", self.id, self.sid)
    }

    fn lesson(&self, lid: i64) -> String {
        format!("{}{lid}/", self.lessons())
    }

    async fn add(&self, body: Value) -> i64 {
        let r = self.s.post(&self.lessons(), Some(&self.alice), body).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.json()["id"].as_i64().unwrap()
    }

    async fn course(&self, tok: &str) -> Value {
        self.s.get(&format!("/api/v2/course/{}/?view=user", self.id), Some(tok)).await.json()
    }
}

fn names(section: &Value) -> Vec<String> {
    section["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn managers_write_lessons_and_members_see_only_the_published_ones() {
    let f = fixture().await;
    let s = &f.s;
    let r = s
        .post(
            &f.lessons(),
            Some(&f.alice),
            json!({"name": " Intro ", "type": "lesson",
              "text": "<p>Hello <script>alert(1)</script><a href=\"javascript:x()\">x</a></p>"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let intro = r.json();
    let lid = intro["id"].as_i64().unwrap();
    assert_eq!(intro["name"], "Intro");
    assert_eq!(intro["status"], "draft");
    assert_eq!(intro["comments_enabled"], true);
    assert_eq!(intro["course_id"], f.id);
    assert_eq!(intro["section_id"], f.sid);
    assert_eq!(intro["created_by"]["username"], "alice");
    assert_eq!(intro["completion_status"], "uncompleted");
    assert_eq!(intro["medias"], json!([]));
    // the text is kept as written, its html sanitized
    let html = intro["html"].as_str().unwrap();
    assert!(html.contains("Hello") && !html.contains("script") && !html.contains("javascript"));
    // a draft: the members' course page and list leave it out, its page is 404 to them
    assert_eq!(names(&f.course(&f.bob).await["sections"][0]), Vec::<String>::new());
    assert_eq!(f.course(&f.bob).await["num_lessons"], 0);
    assert_eq!(s.get(&f.lesson(lid), Some(&f.bob)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&f.lessons(), Some(&f.bob)).await.json(), json!([]));
    // nor its id in the section's order
    assert_eq!(f.course(&f.bob).await["sections"][0]["lessons_order"], json!([]));
    assert_eq!(f.course(&f.alice).await["sections"][0]["lessons_order"], json!([lid]));
    // the creator sees it everywhere
    assert_eq!(names(&f.course(&f.alice).await["sections"][0]), ["Intro"]);
    assert_eq!(s.get(&f.lesson(lid), Some(&f.alice)).await.status, StatusCode::OK);
    // published (the kit's status switch: a PATCH of the status alone)
    let r = s.patch(&f.lesson(lid), Some(&f.alice), json!({"status": "published"})).await;
    assert_eq!(r.json()["status"], "published");
    assert_eq!(r.json()["name"], "Intro", "a PATCH keeps the other fields");
    let c = f.course(&f.bob).await;
    assert_eq!(c["num_lessons"], 1);
    assert_eq!(c["sections"][0]["num_lessons"], 1);
    let listed = &c["sections"][0]["lessons"][0];
    assert_eq!(listed["id"], lid);
    assert!(listed.get("text").is_none() && listed.get("html").is_none(), "{listed}");
    let r = s.get(&f.lesson(lid), Some(&f.bob)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["html"], html);
    // the kit's save: PUT with every field (name required)
    let r = s
        .put(
            &f.lesson(lid),
            Some(&f.alice),
            json!({"name": "Intro 2", "type": "quiz",
             "text": "plain <b>text</b>", "medias": [], "comments_enabled": false,
             "status": "published"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(
        (r.json()["type"].clone(), r.json()["comments_enabled"].clone()),
        (json!("quiz"), json!(false))
    );
    let r = s.put(&f.lesson(lid), Some(&f.alice), json!({"type": "lesson"})).await;
    assert!(has(&r, "name", "required"), "{}", r.text);
    // bad fields, all reported; attachments are refused rather than dropped
    let r = s
        .post(&f.lessons(), Some(&f.alice), json!({"name": "", "type": "video", "medias": [1]}))
        .await;
    for (field, code) in [("name", "required"), ("type", "invalid_choice"), ("medias", "invalid")] {
        assert!(has(&r, field, code), "{field}: {}", r.text);
    }
    // members and others do not write lessons
    for tok in [&f.bob, &f.carol] {
        let r = s.post(&f.lessons(), Some(tok), json!({"name": "Mine"})).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        let r = s.patch(&f.lesson(lid), Some(tok), json!({"name": "Mine"})).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN);
        assert_eq!(s.delete(&f.lesson(lid), Some(tok)).await.status, StatusCode::FORBIDDEN);
    }
    // a lesson of another section or course is 404 there
    let other = format!("/api/v2/course/{}/section/{}/lesson/{lid}/", f.id, f.sid + 1000);
    assert_eq!(s.get(&other, Some(&f.alice)).await.status, StatusCode::NOT_FOUND);
    // deleted: out of its section's order, 404
    assert_eq!(s.delete(&f.lesson(lid), Some(&f.alice)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&f.lesson(lid), Some(&f.alice)).await.status, StatusCode::NOT_FOUND);
    let c = f.course(&f.alice).await;
    assert_eq!(c["sections"][0]["lessons_order"], json!([]));
    s.assert_consistent();
}

#[tokio::test]
async fn only_members_open_lessons() {
    let f = fixture().await;
    let s = &f.s;
    let lid = f.add(json!({"name": "L", "status": "published", "text": "secret sauce"})).await;
    // anyone who sees the course sees the lesson's name, not its text
    let c = s.get(&format!("/api/v2/course/{}/?view=user", f.id), None).await.json();
    assert_eq!(names(&c["sections"][0]), ["L"]);
    assert!(!c.to_string().contains("secret sauce"));
    assert_eq!(s.get(&f.lesson(lid), None).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(s.get(&f.lesson(lid), Some("nope")).await.status, StatusCode::UNAUTHORIZED);
    let r = s.get(&f.lesson(lid), Some(&f.carol)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN, "{}", r.text);
    let complete = format!("{}complete/", f.lesson(lid));
    assert_eq!(s.post_empty(&complete, Some(&f.carol)).await.status, StatusCode::FORBIDDEN);
    // a requested or invited user is no member yet
    let [dave] = s.users(["dave"]);
    set_status(s, f.id, dave, "requested");
    assert_eq!(s.get(&f.lesson(lid), Some(&s.jwt(dave))).await.status, StatusCode::FORBIDDEN);
    // a secret course is not there at all for who may not see it
    patch(s, &f.alice, f.id, json!({"privacy": "secret"})).await;
    assert_eq!(s.get(&f.lesson(lid), Some(&f.carol)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&f.lessons(), Some(&f.carol)).await.status, StatusCode::NOT_FOUND);
    assert_eq!(s.get(&f.lesson(lid), Some(&f.bob)).await.status, StatusCode::OK);
    // a read-only token reads but does not complete
    let ro = s.oauth_token(f.bob_id, "read");
    assert_eq!(s.get(&f.lesson(lid), Some(&ro)).await.status, StatusCode::OK);
    assert_eq!(s.post_empty(&complete, Some(&ro)).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn an_enforced_order_locks_lessons_until_the_earlier_ones_are_completed() {
    let f = fixture().await;
    let s = &f.s;
    patch(s, &f.alice, f.id, json!({"enforce_lessons_order": true})).await;
    let mut ids = Vec::new();
    for name in ["One", "Two", "Three"] {
        ids.push(f.add(json!({"name": name, "status": "published"})).await);
    }
    // a draft between them locks nothing
    f.add(json!({"name": "Draft"})).await;
    let locked = |c: &Value| -> Vec<bool> {
        c["sections"][0]["lessons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["locked"].as_bool().unwrap())
            .collect()
    };
    assert_eq!(locked(&f.course(&f.bob).await), [false, true, true]);
    assert_eq!(locked(&f.course(&f.alice).await), [false, false, false, false]);
    assert_eq!(s.get(&f.lesson(ids[1]), Some(&f.bob)).await.status, StatusCode::FORBIDDEN);
    let done = |i: usize| format!("{}complete/", f.lesson(ids[i]));
    assert_eq!(s.post_empty(&done(1), Some(&f.bob)).await.status, StatusCode::FORBIDDEN);
    // completing the first opens the second; again is no change
    for _ in 0..2 {
        assert_eq!(s.post_empty(&done(0), Some(&f.bob)).await.status, StatusCode::NO_CONTENT);
    }
    let c = f.course(&f.bob).await;
    assert_eq!(locked(&c), [false, false, true]);
    assert_eq!(c["sections"][0]["lessons"][0]["completion_status"], "completed");
    assert_eq!(
        (c["num_lessons"].clone(), c["num_lessons_completed"].clone()),
        (json!(3), json!(1))
    );
    assert_eq!(c["user_completion_rate"], 33);
    assert_eq!(c["sections"][0]["num_lessons_completed"], 1);
    let r = s.get(&f.lesson(ids[1]), Some(&f.bob)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["locked"], false);
    // the first undone again locks what follows
    let undo = format!("{}incomplete/", f.lesson(ids[0]));
    assert_eq!(s.post_empty(&undo, Some(&f.bob)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(locked(&f.course(&f.bob).await), [false, true, true]);
    assert_eq!(f.course(&f.bob).await["user_completion_rate"], 0);
    // without the order, nothing is locked
    patch(s, &f.alice, f.id, json!({"enforce_lessons_order": false})).await;
    assert_eq!(locked(&f.course(&f.bob).await), [false, false, false]);
    assert_eq!(s.post_empty(&done(2), Some(&f.bob)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(f.course(&f.bob).await["num_lessons_completed"], 1);
    // a completion is the member's own
    assert_eq!(f.course(&f.alice).await["num_lessons_completed"], 0);
}

#[tokio::test]
async fn a_sections_lessons_are_reordered_with_exactly_their_ids() {
    let f = fixture().await;
    let s = &f.s;
    let mut ids = Vec::new();
    for name in ["A", "B", "C"] {
        ids.push(f.add(json!({"name": name, "status": "published"})).await);
    }
    let section = format!("/api/v2/course/{}/section/{}/", f.id, f.sid);
    assert_eq!(s.get(&section, None).await.json()["lessons_order"], json!(ids));
    for bad in [
        json!([ids[0], ids[1]]),
        json!([ids[0], ids[0], ids[1], ids[2]]),
        json!([ids[0], ids[1], ids[2], 999]),
        json!("1,2"),
    ] {
        let r = s.patch(&section, Some(&f.alice), json!({"lessons_order": bad})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.text);
    }
    let order = json!([ids[2], ids[0], ids[1]]);
    let r = s.patch(&section, Some(&f.alice), json!({"lessons_order": order})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(names(&r.json()), ["C", "A", "B"]);
    assert_eq!(names(&f.course(&f.bob).await["sections"][0]), ["C", "A", "B"]);
    let listed: Vec<i64> = s
        .get(&f.lessons(), None)
        .await
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_i64().unwrap())
        .collect();
    assert_eq!(json!(listed), order);
    let r = s.patch(&section, Some(&f.bob), json!({"lessons_order": order})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // a section deleted takes its lessons
    assert_eq!(s.delete(&section, Some(&f.alice)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(f.course(&f.alice).await["num_lessons"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn a_course_holds_at_most_1000_lessons_however_many_creates_race() {
    let f = fixture().await;
    let s = &f.s;
    let (sid, now) = (f.sid, s.clock.now());
    s.db_write(move |tx| {
        for i in 0..995 {
            tx.execute(
                "INSERT INTO course_lesson (section_id, name, created_at) VALUES (?1, ?2, ?3)",
                rusqlite::params![sid, format!("L{i}"), now],
            )?;
        }
        Ok(())
    });
    let path = f.lessons();
    let tries = (0..20).map(|i| s.post(&path, Some(&f.alice), json!({"name": format!("N{i}")})));
    let got = futures_util::future::join_all(tries).await;
    let made = got.iter().filter(|r| r.status == StatusCode::CREATED).count();
    assert_eq!(made, 5);
    for r in got.iter().filter(|r| r.status != StatusCode::CREATED) {
        assert!(has(r, "non_field_errors", "max_value"), "{}", r.text);
    }
    let n: i64 = s.db_read(|c| c.query_row("SELECT count(*) FROM course_lesson", [], |r| r.get(0)));
    assert_eq!(n, 1000);
}

#[tokio::test]
async fn members_comment_on_lessons_that_take_comments() {
    let f = fixture().await;
    let s = &f.s;
    let lid = f.add(json!({"name": "L", "status": "published"})).await;
    let comments = format!("{}comment/", f.lesson(lid));
    let r = s
        .post(
            &comments,
            Some(&f.bob),
            json!({"text": "<p>Nice <img src=x onerror=alert(1)></p>", "medias": []}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
    let c = r.json();
    let cid = c["id"].as_i64().unwrap();
    assert!(!c["html"].as_str().unwrap().contains("onerror"), "{c}");
    assert_eq!(c["created_by"]["username"], "bob");
    assert_eq!(c["extras"]["lesson"], json!({"id": lid, "name": "L"}));
    assert_eq!(c["extras"]["section"], json!({"id": f.sid, "name": "S"}));
    assert_eq!(c["extras"]["course"]["id"], f.id);
    assert_eq!((c["parent"].clone(), c["replies"].clone()), (Value::Null, json!([])));
    for i in 0..3 {
        s.post(&comments, Some(&f.alice), json!({"text": format!("c{i}")})).await;
    }
    // paginated; the kit asks oldest first
    let r = s.get(&format!("{comments}?limit=2&ordering=added_at"), Some(&f.bob)).await;
    assert_eq!(r.json()["count"], 4);
    assert_eq!(r.ids()[0], cid);
    assert!(r.json()["next"].is_string());
    let r = s.get(&comments, Some(&f.bob)).await;
    assert_eq!(r.ids().last(), Some(&cid), "newest first by default");
    assert_eq!(
        s.get(&format!("{comments}?ordering=x"), Some(&f.bob)).await.status,
        StatusCode::BAD_REQUEST
    );
    // no replies, no attachments, no blank text
    for body in [
        json!({"text": "r", "parent": cid}),
        json!({"text": "r", "medias": [1]}),
        json!({"text": " "}),
        json!({}),
    ] {
        let r = s.post(&comments, Some(&f.bob), body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}");
    }
    // non-members neither read nor write them
    assert_eq!(s.get(&comments, Some(&f.carol)).await.status, StatusCode::FORBIDDEN);
    let r = s.post(&comments, Some(&f.carol), json!({"text": "hi"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    // only the author edits; the author or a manager deletes
    let one = format!("{comments}{cid}/");
    let r = s.put(&one, Some(&f.alice), json!({"text": "mine now"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.put(&one, Some(&f.bob), json!({"text": "<b>edited</b>"})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["html"], "<b>edited</b>");
    assert_eq!(s.get(&one, Some(&f.bob)).await.json()["text"], "<b>edited</b>");
    let [erin] = s.users(["erin"]);
    set_status(s, f.id, erin, "joined");
    assert_eq!(s.delete(&one, Some(&s.jwt(erin))).await.status, StatusCode::FORBIDDEN);
    assert_eq!(s.delete(&one, Some(&f.alice)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&one, Some(&f.bob)).await.status, StatusCode::NOT_FOUND);
    // the teacher's dashboard: every comment of the course, for managers only
    let all = format!("/api/v2/course/{}/comment/", f.id);
    let r = s.get(&all, Some(&f.alice)).await;
    assert_eq!(r.json()["count"], 3);
    assert_eq!(r.json()["results"][0]["text"], "c2");
    assert_eq!(s.get(&all, Some(&f.bob)).await.status, StatusCode::FORBIDDEN);
    // comments off: no new ones, editing neither
    s.patch(&f.lesson(lid), Some(&f.alice), json!({"comments_enabled": false})).await;
    let r = s.post(&comments, Some(&f.bob), json!({"text": "late"})).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(s.get(&comments, Some(&f.bob)).await.json()["count"], 3);
    // a lesson deleted takes its comments
    assert_eq!(s.delete(&f.lesson(lid), Some(&f.alice)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(s.get(&all, Some(&f.alice)).await.json()["count"], 0);
    s.assert_consistent();
}

#[tokio::test]
async fn the_teachers_dashboard_reads_each_members_progress_and_the_average() {
    let f = fixture().await;
    let s = &f.s;
    let [dave] = s.users(["dave"]);
    set_status(s, f.id, dave, "joined");
    let ids = [
        f.add(json!({"name": "A", "status": "published"})).await,
        f.add(json!({"name": "B", "status": "published"})).await,
    ];
    f.add(json!({"name": "Draft"})).await;
    // bob completes both, dave none: the students' mean is 50%
    for lid in ids {
        let r = s.post_empty(&format!("{}complete/", f.lesson(lid)), Some(&f.bob)).await;
        assert_eq!(r.status, StatusCode::NO_CONTENT);
    }
    let dash = format!("/api/v2/course/{}/?view=dashboard", f.id);
    assert_eq!(s.get(&dash, Some(&f.alice)).await.json()["avg_completion_rate"], 50);
    // only for those who manage it, and only on the dashboard's view
    assert!(s.get(&dash, Some(&f.bob)).await.json().get("avg_completion_rate").is_none());
    let plain = s.get(&format!("/api/v2/course/{}/", f.id), Some(&f.alice)).await.json();
    assert!(plain.get("avg_completion_rate").is_none());
    // the students, in the order they came, with their progress
    let users = format!("/api/v2/course/{}/users/", f.id);
    let r = s.get(&users, Some(&f.alice)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(j["count"], 2);
    let rows: Vec<(String, i64, i64)> = j["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let rate = u["user_completion_rate"].as_i64().unwrap();
            (
                u["username"].as_str().unwrap().to_owned(),
                u["num_lessons_completed"].as_i64().unwrap(),
                rate,
            )
        })
        .collect();
    assert_eq!(rows, [("bob".into(), 2, 100), ("dave".into(), 0, 0)]);
    assert!(
        j["results"][0]["last_active_at"].is_string()
            && j["results"][1]["last_active_at"].is_null()
    );
    assert_eq!(j["results"][0]["join_status"], "joined");
    // the editor's filter (a JSON array) and search
    let r = s
        .get(&format!("{users}?statuses=[\"joined\",\"creator\"]&search=AL"), Some(&f.alice))
        .await;
    assert_eq!(r.json()["results"][0]["username"], "alice");
    assert_eq!(r.json()["count"], 1);
    assert_eq!(
        s.get(&format!("{users}?statuses=x"), Some(&f.alice)).await.status,
        StatusCode::BAD_REQUEST
    );
    // a student's own course, as the dashboard's "see progress" asks it
    let r = s.get(&format!("/api/v2/course/{}/?user={}", f.id, f.bob_id), Some(&f.alice)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let j = r.json();
    assert_eq!(
        (j["num_lessons_completed"].clone(), j["join_status"].clone()),
        (json!(2), json!("joined"))
    );
    assert_eq!(j["sections"][0]["lessons"].as_array().unwrap().len(), 2, "bob's view: no draft");
    assert_eq!(j["sections"][0]["lessons"][0]["completion_status"], "completed");
    let r = s.get(&format!("/api/v2/course/{}/?user={dave}", f.id), Some(&f.bob)).await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = s.get(&format!("/api/v2/course/{}/?user=x", f.id), Some(&f.alice)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // only a member's progress is there to look at
    let carol: i64 = s
        .db_read(|c| c.query_row("SELECT id FROM user WHERE username = 'carol'", [], |r| r.get(0)));
    let r = s.get(&format!("/api/v2/course/{}/?user={carol}", f.id), Some(&f.alice)).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // an empty list of statuses is the default (the students)
    assert_eq!(s.get(&format!("{users}?statuses=[]"), Some(&f.alice)).await.json()["count"], 2);
    // members and others do not read the list, nor the users to add
    for tok in [&f.bob, &f.carol] {
        assert_eq!(s.get(&users, Some(tok)).await.status, StatusCode::FORBIDDEN);
        let r = s.get(&format!("/api/v2/course/{}/user/", f.id), Some(tok)).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN);
    }
    // the users to add: not the course's members, not the caller
    let r = s.get(&format!("/api/v2/course/{}/user/?search=", f.id), Some(&f.alice)).await;
    let names: Vec<String> = r.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["carol"]);
}

#[tokio::test]
async fn a_members_lessons_are_in_their_export_and_go_with_the_account() {
    let f = fixture().await;
    let s = &f.s;
    let lid = f.add(json!({"name": "L", "status": "published"})).await;
    let r = s.post_empty(&format!("{}complete/", f.lesson(lid)), Some(&f.bob)).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r =
        s.post(&format!("{}comment/", f.lesson(lid)), Some(&f.bob), json!({"text": "mine"})).await;
    assert_eq!(r.status, StatusCode::CREATED);
    let (bob, now) = (f.bob_id, s.clock.now());
    let files = s.db_read(move |c| hearth::db::export::files(c, bob, now, &|_, _| {})).unwrap();
    let file = |name: &str| -> Value {
        let (_, bytes) = files.iter().find(|(n, _)| n == name).unwrap();
        serde_json::from_slice(bytes).unwrap()
    };
    assert_eq!(file("lesson_comments.json")[0]["text"], "mine");
    assert_eq!(file("lessons_completed.json")[0]["lesson"], "L");
    // an erased account loses its progress; erased hard, its comments too
    s.db_write(move |tx| hearth::db::account::erase(tx, bob, true));
    let left: (i64, i64) = s.db_read(|c| {
        c.query_row(
            "SELECT (SELECT count(*) FROM course_lesson_completion),
                    (SELECT count(*) FROM course_lesson_comment)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    });
    assert_eq!(left, (0, 0));
    s.assert_consistent();
}
