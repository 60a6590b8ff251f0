//! Courses (SPEC §5 "Courses", SEED-API's Course table): the stored record, its rules
//! (choices, visibility, who manages), the body it is written with and its JSON shapes.

use serde::Serialize;

use super::PublicUrl;
use super::category::{Category, CategoryJson};
pub use super::course_enums::{CourseType, JoinStatus, Privacy};
use super::course_lesson::LessonJson;
use super::user::UserMinimal;
use crate::clock::{Timestamp, rfc3339};

/// The default image of a course without one, served by hearth.
pub const DEFAULT_IMAGE: &str = "/static/default/course.svg";
/// Longest name.
pub const NAME_MAX: usize = 255;
/// Longest section name.
pub const SECTION_NAME_MAX: usize = 255;

/// A course as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Course {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub description: String,
    pub kind: CourseType,
    pub privacy: Privacy,
    pub enforce_lessons_order: bool,
    pub new_comment_notification_enabled: bool,
    pub hide_member_count: bool,
    pub meta_title: String,
    pub meta_description: String,
    pub og_title: String,
    pub og_description: String,
    pub og_image: String,
    pub sections_order: Vec<i64>,
    /// Media path of the squares with `{side}` left out: `course/12/ab3k.jpg` stands for
    /// `course/12/ab3k-600.jpg`, ...; `None`: the default image.
    pub image_key: Option<String>,
    pub deleted: bool,
    pub created_at: Timestamp,
    pub created_by: i64,
}

/// The key names are unique by (case-insensitive).
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// Whether a caller with `status` (None: no membership or anonymous) is the creator
/// or a manager.
pub fn manages(status: Option<JoinStatus>) -> bool {
    status.is_some_and(JoinStatus::manages)
}

/// Whether a caller with `status` (None: no membership or anonymous) may see a course
/// (SPEC §5): a draft only its creator and managers; open and private everyone; secret
/// members, invited users and managers; a deleted course only its creator.
pub fn visible(course: &Course, status: Option<JoinStatus>) -> bool {
    if course.deleted {
        return status == Some(JoinStatus::Creator);
    }
    match course.privacy {
        Privacy::Open | Privacy::Private => true,
        Privacy::Secret => matches!(
            status,
            Some(
                JoinStatus::Creator
                    | JoinStatus::Manager
                    | JoinStatus::Joined
                    | JoinStatus::Invited
            )
        ),
        Privacy::Draft => manages(status),
    }
}

/// The media path of one square of an image key.
pub fn media_path(key: &str, side: u32) -> String {
    match key.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}-{side}.{ext}"),
        None => format!("{key}-{side}"),
    }
}

/// Course JSON: SEED-API's Course table in order (without the write-only
/// `image_original`), plus `member_count`, `num_sections`, `num_lessons`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Course)]
pub struct CourseJson {
    pub id: i64,
    /// Unique case-insensitively (400 unique). Leading and trailing spaces are trimmed.
    #[schema(max_length = 255)]
    pub name: String,
    /// Unique (400 unique). When absent or empty on create: generated from name (Latin letters folded to ASCII, lowercase, other runs of characters one -, at most 100; course when nothing is left; -2, -3... on collision). Changing the name does not change the slug.
    #[schema(max_length = 100)]
    pub slug: String,
    pub description: String,
    /// 400 invalid_choice otherwise.
    #[serde(rename = "type")]
    pub kind: CourseType,
    /// "" is the draft; once another value is set it can never go back to "" (400 on privacy).
    pub privacy: Privacy,
    pub enforce_lessons_order: bool,
    pub new_comment_notification_enabled: bool,
    /// When true, member_count is null for callers who are not creator or manager.
    pub hide_member_count: bool,
    pub meta_title: String,
    pub meta_description: String,
    pub og_title: String,
    pub og_description: String,
    pub og_image: String,
    /// Must list exactly the ids of the course's sections, in any order (400 otherwise; [] on create).
    pub sections_order: Vec<i64>,
    /// 600×600 center-cropped square under /media/ (versioned path, cached as immutable), JPEG or PNG (PNG when the upload has transparency); the default image /static/default/course.svg when there is none.
    #[schema(format = "uri")]
    pub image_bigger: String,
    /// 400×400 center-cropped square under /media/ (versioned path, cached as immutable), JPEG or PNG (PNG when the upload has transparency); the default image /static/default/course.svg when there is none.
    #[schema(format = "uri")]
    pub image_big: String,
    /// 200×200 center-cropped square under /media/ (versioned path, cached as immutable), JPEG or PNG (PNG when the upload has transparency); the default image /static/default/course.svg when there is none.
    #[schema(format = "uri")]
    pub image_medium: String,
    /// 100×100 center-cropped square under /media/ (versioned path, cached as immutable), JPEG or PNG (PNG when the upload has transparency); the default image /static/default/course.svg when there is none.
    #[schema(format = "uri")]
    pub image_small: String,
    pub deleted: bool,
    /// The caller's status; null for anonymous callers and users without one.
    pub join_status: Option<JoinStatus>,
    /// Percentage (rounded down) of the course's lessons the caller completed; 0 without lessons or for anonymous callers.
    pub user_completion_rate: i64,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub created_by: UserMinimal,
    pub categories: Vec<CategoryJson>,
    /// Users whose status is creator, manager or joined; null for non-managers when hide_member_count.
    pub member_count: Option<i64>,
    pub num_sections: i64,
    /// Its published lessons.
    pub num_lessons: i64,
    /// Of those, the ones the caller completed (0 for anonymous callers).
    pub num_lessons_completed: i64,
    /// Only in `?view=dashboard` for the creator and managers: the joined members'
    /// completed published lessons over (members × published lessons), in percent
    /// rounded down: their mean rate before rounding (0 without members or lessons).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_completion_rate: Option<i64>,
    /// Only in `GET /api/v2/course/{id}/?view=user|edit|dashboard` (what the kit's course
    /// page, dashboard and editor ask): the sections in `sections_order` order, as
    /// `GET /api/v2/course/{id}/section/` lists them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<Vec<SectionJson>>,
}

/// What is counted about a course for its JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub members: i64,
    pub sections: i64,
    pub lessons: i64,
    /// Lessons the caller completed.
    pub completed: i64,
}

impl Course {
    /// The JSON for a caller whose status is `status`.
    pub fn to_json(
        &self,
        base: &PublicUrl,
        status: Option<JoinStatus>,
        created_by: UserMinimal,
        categories: Vec<Category>,
        counts: Counts,
    ) -> CourseJson {
        let url = |side: u32| match &self.image_key {
            Some(k) => base.at(&format!("/media/{}", media_path(k, side))),
            None => base.at(DEFAULT_IMAGE),
        };
        let show_members = !self.hide_member_count || manages(status);
        let rate = super::course_lesson::rate(counts.completed, counts.lessons);
        CourseJson {
            id: self.id,
            name: self.name.clone(),
            slug: self.slug.clone(),
            description: self.description.clone(),
            kind: self.kind,
            privacy: self.privacy,
            enforce_lessons_order: self.enforce_lessons_order,
            new_comment_notification_enabled: self.new_comment_notification_enabled,
            hide_member_count: self.hide_member_count,
            meta_title: self.meta_title.clone(),
            meta_description: self.meta_description.clone(),
            og_title: self.og_title.clone(),
            og_description: self.og_description.clone(),
            og_image: self.og_image.clone(),
            sections_order: self.sections_order.clone(),
            image_bigger: url(600),
            image_big: url(400),
            image_medium: url(200),
            image_small: url(100),
            deleted: self.deleted,
            join_status: status,
            user_completion_rate: rate,
            created_at: rfc3339(self.created_at),
            created_by,
            categories: categories.iter().map(|c| c.to_json(base)).collect(),
            member_count: show_members.then_some(counts.members),
            num_sections: counts.sections,
            num_lessons: counts.lessons,
            num_lessons_completed: counts.completed,
            avg_completion_rate: None,
            sections: None,
        }
    }
}

/// A section as stored, with its count of published lessons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub id: i64,
    pub course_id: i64,
    pub name: String,
    /// Its lessons' ids in order (those it misses go last, by id).
    pub lessons_order: Vec<i64>,
    pub num_lessons: i64,
}

/// Section JSON.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CourseSection)]
pub struct SectionJson {
    pub id: i64,
    pub name: String,
    /// The ids of its lessons the caller sees, in order (the creator and managers see
    /// every lesson). PATCH it with exactly the ids of the section's lessons (any order;
    /// 400 otherwise) to reorder them.
    pub lessons_order: Vec<i64>,
    /// Its published lessons.
    pub num_lessons: i64,
    /// Of those, the ones the caller completed.
    pub num_lessons_completed: i64,
    /// Its lessons the caller sees, in `lessons_order` order (drafts only for the
    /// course's creator and managers), without their text: what the kit's course page
    /// and editor list.
    pub lessons: Vec<LessonJson>,
}

/// An item of the member and request lists: User Minimal plus `join_status`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CourseMember)]
pub struct MemberJson {
    #[serde(flatten)]
    pub user: UserMinimal,
    pub join_status: JoinStatus,
}

/// Whether `sections_order` lists exactly `ids` (any order, no duplicates).
pub fn same_ids(order: &[i64], ids: &[i64]) -> bool {
    let mut a = order.to_vec();
    let mut b = ids.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    let before = a.len();
    a.dedup();
    a.len() == before && a == b
}

/// A course with SEED-API's defaults.
pub fn new_course(created_by: i64, now: Timestamp) -> Course {
    Course {
        new_comment_notification_enabled: true,
        created_at: now,
        created_by,
        ..Course::default()
    }
}

/// The statuses of a `statuses` query parameter (comma-separated); an unknown one is
/// an error naming it.
pub fn parse_statuses(s: Option<&str>, default: &[JoinStatus]) -> Result<Vec<JoinStatus>, String> {
    let Some(s) = s.filter(|s| !s.trim().is_empty()) else {
        return Ok(default.to_vec());
    };
    // the kit's course editor sends a JSON array (`["joined","manager","creator"]`)
    let parts: Vec<String> = match serde_json::from_str::<Vec<String>>(s.trim()) {
        Ok(list) if s.trim_start().starts_with('[') => list,
        _ => s.split(',').map(|p| p.trim().to_owned()).collect(),
    };
    let mut out = Vec::new();
    for part in parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let status = JoinStatus::parse(part)?;
        if !out.contains(&status) {
            out.push(status);
        }
    }
    // `[]` (or `,`) names nothing: the default, as an empty parameter
    Ok(if out.is_empty() { default.to_vec() } else { out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::course_input::CourseInput;
    use crate::model::field::FieldError;
    use serde_json::{Map, Value, json};

    fn parse(v: Value, full: bool) -> (CourseInput, Vec<FieldError>) {
        CourseInput::parse(v.as_object().cloned().as_ref().unwrap_or(&Map::new()), full)
    }

    fn codes(e: &[FieldError]) -> Vec<(String, &'static str)> {
        e.iter().map(|f| (f.field.clone(), f.messages[0].code)).collect()
    }

    /// The documented body is the one the parser reads.
    #[test]
    fn every_documented_field_is_read() {
        crate::model::field::assert_patch_body::<CourseInput>(|m| CourseInput::parse(m, false).1);
    }

    #[test]
    fn create_needs_name_and_type() {
        let (_, e) = parse(json!({}), true);
        assert_eq!(codes(&e), vec![("name".into(), "required"), ("type".into(), "required")]);
        let (_, e) = parse(json!({}), false);
        assert!(e.is_empty());
    }

    #[test]
    fn all_errors_at_once() {
        let (_, e) = parse(
            json!({"name": "x".repeat(256), "type": "weekly", "privacy": "public", "slug": "Bad Slug", "hide_member_count": "maybe"}),
            true,
        );
        let got = codes(&e);
        for want in [
            ("name", "max_length"),
            ("type", "invalid_choice"),
            ("privacy", "invalid_choice"),
            ("slug", "invalid"),
            ("hide_member_count", "invalid"),
        ] {
            assert!(got.contains(&(want.0.into(), want.1)), "{got:?}");
        }
    }

    #[test]
    fn choices_are_typed_and_their_errors_keep_their_words_and_order() {
        let (i, e) = parse(json!({"name": "A", "type": "scheduled", "privacy": ""}), true);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!((i.kind, i.privacy), (Some(CourseType::Scheduled), Some(Privacy::Draft)));
        let mut c = new_course(1, 0);
        c.privacy = Privacy::Open;
        i.apply(&mut c);
        assert_eq!((c.kind, c.privacy), (CourseType::Scheduled, Privacy::Draft));
        let (i, e) =
            parse(json!({"privacy": "public", "name": "", "og_image": 3, "type": "weekly"}), true);
        assert_eq!((i.kind, i.privacy), (None, None));
        let got: Vec<(&str, &str, &str)> = e
            .iter()
            .map(|f| (f.field.as_str(), f.messages[0].code, f.messages[0].message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("og_image", "invalid", "Not a valid string."),
                ("name", "required", "This field may not be blank."),
                (
                    "type",
                    "invalid_choice",
                    "\"weekly\" is not a valid choice (self-paced, structured, scheduled)."
                ),
                (
                    "privacy",
                    "invalid_choice",
                    "\"public\" is not a valid choice (\"\", open, private, secret)."
                ),
            ]
        );
        // a null type is `null`, not also `required`
        let (_, e) = parse(json!({"name": "A", "type": null}), true);
        assert_eq!(codes(&e), vec![("type".into(), "null")]);
        let (_, e) = parse(json!({"name": "A", "type": 1}), false);
        assert_eq!(codes(&e), vec![("type".into(), "invalid")]);
    }

    #[test]
    fn multipart_text_values() {
        let (i, e) = parse(
            json!({"name": " A ", "type": "structured", "enforce_lessons_order": "true",
                   "categories": ["1", "2"], "sections_order": "[3, 4]"}),
            true,
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(i.name.as_deref(), Some("A"));
        assert_eq!(i.enforce_lessons_order, Some(true));
        assert_eq!(i.categories, Some(vec![1, 2]));
        assert_eq!(i.sections_order, Some(vec![3, 4]));
    }

    #[test]
    fn visibility_matrix() {
        let mut c = new_course(1, 0);
        let all = [
            Some(JoinStatus::Creator),
            Some(JoinStatus::Manager),
            Some(JoinStatus::Joined),
            Some(JoinStatus::Invited),
            Some(JoinStatus::Requested),
            None,
        ];
        let see = |c: &Course| all.map(|s| visible(c, s));
        c.privacy = Privacy::Draft;
        assert_eq!(see(&c), [true, true, false, false, false, false]);
        c.privacy = Privacy::Open;
        assert_eq!(see(&c), [true; 6]);
        c.privacy = Privacy::Private;
        assert_eq!(see(&c), [true; 6]);
        c.privacy = Privacy::Secret;
        assert_eq!(see(&c), [true, true, true, true, false, false]);
        c.deleted = true;
        assert_eq!(see(&c), [true, false, false, false, false, false]);
    }

    #[test]
    fn sections_order_must_match() {
        assert!(same_ids(&[3, 1, 2], &[1, 2, 3]));
        assert!(!same_ids(&[1, 2], &[1, 2, 3]));
        assert!(!same_ids(&[1, 1, 2], &[1, 2]));
        assert!(same_ids(&[], &[]));
    }

    #[test]
    fn media_paths_and_statuses() {
        assert_eq!(media_path("course/1/ab.jpg", 600), "course/1/ab-600.jpg");
        let members = JoinStatus::MEMBERS;
        assert_eq!(
            parse_statuses(Some("joined, invited,joined"), &members),
            Ok(vec![JoinStatus::Joined, JoinStatus::Invited])
        );
        assert_eq!(
            parse_statuses(Some("joined,x"), &members),
            Err("\"x\" is not a valid join status.".into())
        );
        assert_eq!(parse_statuses(None, &members), Ok(members.to_vec()));
        assert_eq!(parse_statuses(Some(" "), &members), Ok(members.to_vec()));
        // the kit's course editor sends a JSON array
        assert_eq!(
            parse_statuses(Some(r#"["joined","manager"]"#), &members),
            Ok(vec![JoinStatus::Joined, JoinStatus::Manager])
        );
        assert!(parse_statuses(Some(r#"["joined","x"]"#), &members).is_err());
        assert_eq!(parse_statuses(Some("[]"), &members), Ok(members.to_vec()));
    }
}
