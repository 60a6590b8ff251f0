//! The unit tests of `model::import` (kept beside it: the file stays one page).

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]
use super::*;

#[test]
fn parses_each_kind() {
    assert!(matches!(
        parse(r#"{"record":"follow","follower":1,"followed":2}"#),
        Ok(Line::Follow(_))
    ));
    assert!(matches!(
        parse(
            r#"{"record":"course","id":1,"created_by":2,"name":"A","type":"self-paced","categories":[1]}"#
        ),
        Ok(Line::Course(_))
    ));
    assert!(matches!(
        parse(r#"{"record":"post","id":1,"author":1,"text":"t"}"#),
        Ok(Line::Post(_))
    ));
    assert!(matches!(
        parse(
            r#"{"record":"vote","user":1,"reaction":2,"comment":3,"voted_at":"2026-01-02T03:04:05Z"}"#
        ),
        Ok(Line::Vote(VoteLine { comment: Some(3), voted_at: Some(_), .. }))
    ));
    assert!(matches!(
        parse(r#"{"record":"category_follow","user":1,"category":2}"#),
        Ok(Line::CategoryFollow(CategoryFollowLine { created_at: None, .. }))
    ));
    assert!(parse(r#"{"record":"vote","user":1,"post":3}"#).unwrap_err().contains("reaction"));
    assert!(parse(r#"{"record":"category_follow","user":1,"category":2,"x":1}"#).is_err());
}

#[test]
fn explains_bad_lines() {
    assert!(parse("{").is_err());
    assert!(parse(r#"{"record":"spaceship"}"#).unwrap_err().contains("unknown record"));
    assert!(parse(r#"{"type":"user"}"#).unwrap_err().contains("record"));
    assert!(parse(r#"{"record":"follow","follower":1}"#).unwrap_err().contains("followed"));
    assert!(parse(r#"{"record":"follow","follower":"x","followed":2}"#).is_err());
}

#[test]
fn course_choices_keep_the_importer_messages() {
    let course = |extra: &str| match parse(&format!(
        r#"{{"record":"course","id":1,"created_by":2,"name":"A"{extra}}}"#
    )) {
        Ok(Line::Course(c)) => c.choices(),
        other => Err(format!("not a course line: {other:?}")),
    };
    assert_eq!(course(r#","type":"scheduled""#), Ok((CourseType::Scheduled, Privacy::Draft)));
    assert_eq!(
        course(r#","type":"structured","privacy":"secret""#),
        Ok((CourseType::Structured, Privacy::Secret))
    );
    assert_eq!(
        course(r#","type":"weird","privacy":"nope""#),
        Err("type \"weird\" is not self-paced, structured or scheduled".into())
    );
    assert_eq!(
        course(r#","type":"self-paced","privacy":"public""#),
        Err("privacy \"public\" is not \"\", open, private or secret".into())
    );
    let member = |status: &str| match parse(&format!(
        r#"{{"record":"course_member","course":1,"user":2,"join_status":"{status}"}}"#
    )) {
        Ok(Line::CourseMember(m)) => m.status(),
        other => Err(format!("not a membership line: {other:?}")),
    };
    assert_eq!(member("requested"), Ok(JoinStatus::Requested));
    assert_eq!(member("creator"), Ok(JoinStatus::Creator));
    assert_eq!(
        member("owner"),
        Err("join_status \"owner\" is not one of manager, joined, invited, requested".into())
    );
}
