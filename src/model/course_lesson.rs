//! A course's lessons and their comments (the kit's `SCCourseLessonType` and
//! `SCCourseCommentType`): the stored records, the bodies they are written with, their
//! JSON, and where each lesson stands for a caller (seen, locked, completed).

use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value};

use super::body_fields::Fields;
use super::course_enums::{Completion, LessonStatus, LessonType};
use super::field::FieldError;
use super::user::UserMinimal;
use crate::clock::{Timestamp, rfc3339};

/// Longest lesson name.
pub const NAME_MAX: usize = 255;
/// Longest lesson text, in characters (as a contribution's).
pub const TEXT_MAX: usize = 1 << 20;
/// Longest lesson comment, in characters.
pub const COMMENT_MAX: usize = 10_000;
/// Most lessons in one course: its page and editor list them all, and a member's lock
/// is worked out over them (so each of those stays bounded).
pub const LESSONS_MAX: i64 = 1000;

/// A lesson as stored. Lists read it without its text (`text` and `html` empty).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lesson {
    pub id: i64,
    pub course_id: i64,
    pub section_id: i64,
    pub name: String,
    pub kind: LessonType,
    pub status: LessonStatus,
    pub comments_enabled: bool,
    pub created_at: Timestamp,
    pub created_by: Option<i64>,
    pub text: String,
    pub html: String,
}

/// Where a lesson stands for one caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// The course enforces its lessons' order and an earlier published lesson is not
    /// completed yet: the lesson cannot be opened or completed.
    pub locked: bool,
    pub completed: bool,
}

/// Where each of a course's lessons stands for a caller, `lessons` being the course's
/// lessons in course order (sections in `sections_order`, each's in `lessons_order`):
/// `None` for a lesson the caller does not see (a draft, to anyone but the creator and
/// managers). With `enforce` (the course's `enforce_lessons_order`), every published
/// lesson after the first the caller has not completed is locked; nothing is locked
/// for the creator and managers (`manages`), who see every lesson.
pub fn standings(
    lessons: &[(i64, LessonStatus)],
    completed: &HashSet<i64>,
    enforce: bool,
    manages: bool,
) -> Vec<Option<Standing>> {
    let mut open = true;
    lessons
        .iter()
        .map(|&(id, status)| {
            let done = completed.contains(&id);
            if status != LessonStatus::Published {
                return manages.then_some(Standing { locked: false, completed: done });
            }
            let locked = enforce && !manages && !open;
            if !done {
                open = false;
            }
            Some(Standing { locked, completed: done })
        })
        .collect()
}

/// Lesson JSON.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CourseLesson)]
pub struct LessonJson {
    pub id: i64,
    pub course_id: i64,
    pub section_id: i64,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: LessonType,
    /// Drafts are seen by the course's creator and managers only.
    pub status: LessonStatus,
    /// Whether members may comment on it.
    pub comments_enabled: bool,
    /// The text as written; only on the lesson's own routes (not in a course's
    /// `sections`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The text as sanitized HTML (SPEC §5's rich-text rules); only on the lesson's own
    /// routes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Only on the lesson's own routes; null when its author is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<Option<UserMinimal>>,
    /// Always []: hearth keeps no attachments on lessons (a non-empty `medias` on a
    /// write is 400).
    pub medias: Vec<Value>,
    /// For the caller: the course enforces the lessons' order and an earlier lesson is
    /// not completed yet (never for the creator and managers).
    pub locked: bool,
    /// Whether the caller marked it complete.
    pub completion_status: Completion,
}

impl Lesson {
    /// The JSON for a caller where the lesson stands as `standing`: with its text and
    /// author when `full` (`creator`: the author's minimal JSON, None when gone).
    pub fn to_json(&self, standing: Standing, full: Option<Option<UserMinimal>>) -> LessonJson {
        let with_text = full.is_some();
        LessonJson {
            id: self.id,
            course_id: self.course_id,
            section_id: self.section_id,
            name: self.name.clone(),
            kind: self.kind,
            status: self.status,
            comments_enabled: self.comments_enabled,
            text: with_text.then(|| self.text.clone()),
            html: with_text.then(|| self.html.clone()),
            created_at: rfc3339(self.created_at),
            created_by: full,
            medias: Vec::new(),
            locked: standing.locked,
            completion_status: if standing.completed {
                Completion::Completed
            } else {
                Completion::Uncompleted
            },
        }
    }
}

/// The writable fields of a lesson body; `None`: not in the body.
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = CourseLessonWrite,
    description = "The writable fields of a lesson. Read-only (id, course_id, section_id, created_at, created_by, locked, completion_status, html) and unknown fields are ignored; null is 400 on any field. name is required on create and PUT; all errors are reported at once."
)]
pub struct LessonInput {
    /// 1-255 characters after trimming.
    #[schema(min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// lesson (the default) or quiz; 400 invalid_choice otherwise.
    #[schema(rename = "type")]
    pub kind: Option<LessonType>,
    /// draft (the default: seen by the creator and managers only) or published.
    pub status: Option<LessonStatus>,
    /// Whether members may comment (default true).
    pub comments_enabled: Option<bool>,
    /// HTML from the kit's editor, or plain text; stored as written and served as
    /// sanitized `html`. At most 1048576 characters.
    pub text: Option<String>,
    /// Attachment ids: only an empty list (hearth keeps no attachments on lessons);
    /// anything else is 400.
    #[schema(max_items = 0)]
    pub medias: Option<Vec<i64>>,
}

impl LessonInput {
    /// Reads a body with every rule that needs no database; `name` required when `full`
    /// (create and PUT). Returns the input and every problem found.
    pub fn parse(map: &Map<String, Value>, full: bool) -> (LessonInput, Vec<FieldError>) {
        let mut f = Fields::new(map);
        let name = f.text("name");
        let kind = f.text("type");
        let status = f.text("status");
        let comments_enabled = f.boolean("comments_enabled");
        let text = f.text("text");
        let medias = f.read("medias", no_attachments);
        let mut errors = f.errors;
        let name = match name.map(|n| n.trim().to_owned()) {
            None if full && !map.contains_key("name") => {
                errors.push(FieldError::required("name"));
                None
            }
            Some(n) if n.is_empty() => {
                errors.push(FieldError::new("name", "required", "This field may not be blank."));
                None
            }
            Some(n) if n.chars().count() > NAME_MAX => {
                errors.push(FieldError::new(
                    "name",
                    "max_length",
                    format!("Ensure this field has no more than {NAME_MAX} characters."),
                ));
                None
            }
            n => n,
        };
        let kind = choice(&mut errors, "type", kind.as_deref().map(LessonType::parse));
        let status = choice(&mut errors, "status", status.as_deref().map(LessonStatus::parse));
        if text.as_ref().is_some_and(|t| t.chars().count() > TEXT_MAX) {
            errors.push(FieldError::new(
                "text",
                "max_length",
                format!("Ensure this field has no more than {TEXT_MAX} characters."),
            ));
        }
        (LessonInput { name, kind, status, comments_enabled, text, medias }, errors)
    }
}

/// A choice read: its value, or its `invalid_choice` error recorded in `errors`.
fn choice<T>(
    errors: &mut Vec<FieldError>,
    field: &str,
    read: Option<Result<T, String>>,
) -> Option<T> {
    match read? {
        Ok(v) => Some(v),
        Err(m) => {
            errors.push(FieldError::new(field, "invalid_choice", m));
            None
        }
    }
}

/// `medias`: a list, and an empty one (hearth keeps no attachments on lessons and their
/// comments; a list it dropped silently would be lost work).
fn no_attachments(v: &Value) -> Result<Vec<i64>, FieldError> {
    match v {
        Value::Array(items) if items.is_empty() => Ok(Vec::new()),
        Value::Array(_) => Err(FieldError::new(
            "medias",
            "invalid",
            "Attachments are not supported here: send the text only.",
        )),
        _ => Err(FieldError::new("medias", "invalid", "Expected a list of items.")),
    }
}

/// A member of a course and their progress in it (the teacher's dashboard).
#[derive(Debug, Clone, PartialEq)]
pub struct MemberProgress {
    /// Brief (its minimal JSON's fields) with `date_joined`.
    pub user: super::user::User,
    pub status: super::course_enums::JoinStatus,
    /// When they came to the course.
    pub joined_at: Timestamp,
    /// Published lessons they completed.
    pub completed: i64,
    /// Their latest completion in the course; None before the first.
    pub last_active_at: Option<Timestamp>,
}

/// An item of a course's dashboard list: User Minimal with the member's progress.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CourseMemberProgress)]
pub struct ProgressJson {
    #[serde(flatten)]
    pub user: UserMinimal,
    /// When they joined the community.
    #[schema(format = DateTime)]
    pub date_joined: String,
    pub join_status: super::course_enums::JoinStatus,
    /// When they came to the course.
    #[schema(format = DateTime)]
    pub joined_at: String,
    /// Their latest lesson completed in the course; null before the first.
    #[schema(format = DateTime)]
    pub last_active_at: Option<String>,
    /// Published lessons they completed.
    pub num_lessons_completed: i64,
    /// Percentage (rounded down) of the course's published lessons they completed.
    pub user_completion_rate: i64,
}

impl MemberProgress {
    /// The JSON, `lessons` being the course's published lessons.
    pub fn to_json(&self, base: &super::PublicUrl, lessons: i64) -> ProgressJson {
        ProgressJson {
            user: self.user.minimal(base),
            date_joined: rfc3339(self.user.date_joined),
            join_status: self.status,
            joined_at: rfc3339(self.joined_at),
            last_active_at: self.last_active_at.map(rfc3339),
            num_lessons_completed: self.completed,
            user_completion_rate: rate(self.completed, lessons),
        }
    }
}

/// `done` of `all` in percent, rounded down (0 when `all` is).
pub fn rate(done: i64, all: i64) -> i64 {
    if all > 0 { (done.saturating_mul(100) / all).clamp(0, 100) } else { 0 }
}

/// A comment on a lesson as stored, with what its JSON shows of its lesson.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LessonComment {
    pub id: i64,
    pub lesson_id: i64,
    pub course_id: i64,
    pub text: String,
    pub html: String,
    pub created_at: Timestamp,
    pub created_by: i64,
    /// The course's slug, the section's id and name, the lesson's name (`extras`).
    pub course_slug: String,
    pub section_id: i64,
    pub section_name: String,
    pub lesson_name: String,
}

/// A lesson comment's JSON (the kit's `SCCourseCommentType`). Comments on lessons are
/// flat: `parent` and `in_reply_to` are null, `replies` empty.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CourseLessonComment)]
pub struct CommentJson {
    pub id: i64,
    /// As written.
    pub text: String,
    /// Sanitized HTML (SPEC §5's rich-text rules).
    pub html: String,
    /// Always null: comments on lessons have no replies.
    pub parent: Option<i64>,
    /// Always null.
    pub in_reply_to: Option<i64>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Its author; null when gone.
    pub created_by: Option<UserMinimal>,
    /// Always [] (no attachments).
    pub medias: Vec<Value>,
    /// Always null.
    pub latest_reply: Option<Value>,
    /// Always [].
    pub replies: Vec<Value>,
    pub extras: CommentExtras,
}

/// Where a comment was written.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CourseLessonCommentExtras)]
pub struct CommentExtras {
    /// `{"id", "slug"}` of the course.
    pub course: Value,
    /// `{"id", "name"}` of the section.
    pub section: Value,
    /// `{"id", "name"}` of the lesson.
    pub lesson: Value,
}

impl LessonComment {
    /// The JSON, with its author's minimal JSON (None when gone).
    pub fn to_json(&self, author: Option<UserMinimal>) -> CommentJson {
        CommentJson {
            id: self.id,
            text: self.text.clone(),
            html: self.html.clone(),
            parent: None,
            in_reply_to: None,
            created_at: rfc3339(self.created_at),
            created_by: author,
            medias: Vec::new(),
            latest_reply: None,
            replies: Vec::new(),
            extras: CommentExtras {
                course: serde_json::json!({"id": self.course_id, "slug": self.course_slug}),
                section: serde_json::json!({"id": self.section_id, "name": self.section_name}),
                lesson: serde_json::json!({"id": self.lesson_id, "name": self.lesson_name}),
            },
        }
    }
}

/// A lesson comment's body.
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = CourseLessonCommentWrite,
    description = "A comment on a lesson. Unknown fields are ignored; replies (parent) are not supported (400)."
)]
pub struct CommentInput {
    /// HTML from the kit's editor or plain text, not blank once its markup is removed;
    /// at most 10000 characters. Served as sanitized html.
    #[schema(min_length = 1, max_length = 10000)]
    pub text: String,
    /// Only an empty list (no attachments); anything else is 400.
    #[schema(max_items = 0)]
    pub medias: Option<Vec<i64>>,
    /// Must be absent or null: comments on lessons are flat (400 otherwise).
    pub parent: Option<i64>,
}

impl CommentInput {
    /// Reads a body; every problem found.
    pub fn parse(map: &Map<String, Value>) -> Result<CommentInput, Vec<FieldError>> {
        let mut f = Fields::new(map);
        let text = f.text("text");
        let medias = f.read("medias", no_attachments);
        let mut errors = f.errors;
        if map.get("parent").is_some_and(|p| !p.is_null()) {
            errors.push(FieldError::new(
                "parent",
                "invalid",
                "Replies to lesson comments are not supported.",
            ));
        }
        let text = match text {
            None if !map.contains_key("text") => {
                errors.push(FieldError::required("text"));
                String::new()
            }
            None => String::new(),
            Some(t) if super::rich_text::plain(&t).trim().is_empty() => {
                errors.push(FieldError::new("text", "required", "This field may not be blank."));
                t
            }
            Some(t) if t.chars().count() > COMMENT_MAX => {
                errors.push(FieldError::new(
                    "text",
                    "max_length",
                    format!("Ensure this field has no more than {COMMENT_MAX} characters."),
                ));
                t
            }
            Some(t) => t,
        };
        if errors.is_empty() {
            Ok(CommentInput { text, medias, parent: None })
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use serde_json::json;

    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    const P: LessonStatus = LessonStatus::Published;
    const D: LessonStatus = LessonStatus::Draft;

    fn locked(s: &[Option<Standing>]) -> Vec<Option<bool>> {
        s.iter().map(|s| s.map(|s| s.locked)).collect()
    }

    #[test]
    fn with_the_order_enforced_lessons_after_the_first_not_completed_are_locked() {
        let lessons = [(1, P), (2, D), (3, P), (4, P), (5, P)];
        let done = HashSet::from([1, 4]);
        // 3 is the first not completed: 4 (completed, yet after it) and 5 are locked;
        // the draft is not seen
        let s = standings(&lessons, &done, true, false);
        assert_eq!(locked(&s), [Some(false), None, Some(false), Some(true), Some(true)]);
        assert!(s[3].unwrap().completed);
        // without the order nothing is locked
        let s = standings(&lessons, &done, false, false);
        assert_eq!(locked(&s), [Some(false), None, Some(false), Some(false), Some(false)]);
        // the creator and managers see the draft and nothing locked
        let s = standings(&lessons, &done, true, true);
        assert!(s.iter().all(|s| s.is_some_and(|s| !s.locked)));
        // nothing completed: only the first is open
        let s = standings(&lessons, &HashSet::new(), true, false);
        assert_eq!(locked(&s), [Some(false), None, Some(true), Some(true), Some(true)]);
    }

    #[test]
    fn a_lesson_body_is_checked_field_by_field() {
        let (input, errors) = LessonInput::parse(
            &map(json!({"name": "  Intro ", "type": "quiz", "status": "published",
                        "comments_enabled": false, "text": "<p>Hi</p>", "medias": []})),
            true,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(input.name.as_deref(), Some("Intro"));
        assert_eq!(input.kind, Some(LessonType::Quiz));
        assert_eq!(input.status, Some(LessonStatus::Published));
        assert_eq!(input.comments_enabled, Some(false));
        let (_, errors) = LessonInput::parse(
            &map(json!({"type": "video", "status": "live", "medias": [3], "text": null})),
            true,
        );
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["text", "medias", "name", "type", "status"]);
        // PATCH: nothing is required
        assert!(LessonInput::parse(&Map::new(), false).1.is_empty());
        let long = "x".repeat(NAME_MAX + 1);
        assert_eq!(
            LessonInput::parse(&map(json!({"name": long})), false).1[0].messages[0].code,
            "max_length"
        );
        assert_eq!(
            LessonInput::parse(&map(json!({"name": " "})), false).1[0].messages[0].code,
            "required"
        );
    }

    #[test]
    fn a_comment_needs_text_and_takes_no_replies_or_attachments() {
        assert_eq!(
            CommentInput::parse(&map(json!({"text": "<p>ok</p>"}))).unwrap().text,
            "<p>ok</p>"
        );
        let codes = |v: Value| -> Vec<String> {
            CommentInput::parse(&map(v))
                .unwrap_err()
                .into_iter()
                .map(|e| e.messages[0].code.to_owned())
                .collect()
        };
        assert_eq!(codes(json!({})), ["required"]);
        assert_eq!(codes(json!({"text": "<p> </p>"})), ["required"]);
        assert_eq!(codes(json!({"text": "a", "parent": 3})), ["invalid"]);
        assert_eq!(codes(json!({"text": "a", "medias": [1]})), ["invalid"]);
        assert_eq!(codes(json!({"text": "x".repeat(COMMENT_MAX + 1)})), ["max_length"]);
    }

    #[test]
    fn every_documented_field_of_the_bodies_is_read() {
        let unread = crate::model::field::unread_properties::<LessonInput>(|m| {
            LessonInput::parse(m, false).1
        });
        assert!(unread.is_empty(), "{unread:?}");
        let unread = crate::model::field::unread_properties::<CommentInput>(|m| {
            CommentInput::parse(m).err().unwrap_or_default()
        });
        assert!(unread.is_empty(), "{unread:?}");
    }
}
