//! Courses (SPEC §5 "Courses", SEED-API's Course table): the stored record, its rules
//! (choices, visibility, who manages), the body it is written with and its JSON shapes.

use serde::Serialize;

use super::PublicUrl;
use super::category::{Category, CategoryJson};
use super::user::UserMinimal;
use crate::clock::{Timestamp, rfc3339};

/// Allowed `type` values.
pub const TYPES: [&str; 3] = ["self-paced", "structured", "scheduled"];
/// Allowed `privacy` values (`""` is the draft).
pub const PRIVACIES: [&str; 4] = ["", "open", "private", "secret"];
/// Every `join_status`.
pub const STATUSES: [&str; 5] = ["creator", "manager", "joined", "invited", "requested"];
/// The statuses that count as members (`member_count`, default list filters).
pub const MEMBER_STATUSES: [&str; 3] = ["creator", "manager", "joined"];
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
    pub kind: String,
    pub privacy: String,
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

/// Whether a status is the creator's or a manager's.
pub fn manages(status: Option<&str>) -> bool {
    matches!(status, Some("creator" | "manager"))
}

/// Whether a caller with `status` (None: no membership or anonymous) may see a course
/// (SPEC §5): a draft only its creator and managers; open and private everyone; secret
/// members, invited users and managers; a deleted course only its creator.
pub fn visible(course: &Course, status: Option<&str>) -> bool {
    if course.deleted {
        return status == Some("creator");
    }
    match course.privacy.as_str() {
        "open" | "private" => true,
        "secret" => matches!(status, Some("creator" | "manager" | "joined" | "invited")),
        _ => manages(status),
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
#[derive(Debug, Clone, Serialize)]
pub struct CourseJson {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub privacy: String,
    pub enforce_lessons_order: bool,
    pub new_comment_notification_enabled: bool,
    pub hide_member_count: bool,
    pub meta_title: String,
    pub meta_description: String,
    pub og_title: String,
    pub og_description: String,
    pub og_image: String,
    pub sections_order: Vec<i64>,
    pub image_bigger: String,
    pub image_big: String,
    pub image_medium: String,
    pub image_small: String,
    pub deleted: bool,
    pub join_status: Option<String>,
    pub user_completion_rate: i64,
    pub created_at: String,
    pub created_by: UserMinimal,
    pub categories: Vec<CategoryJson>,
    pub member_count: Option<i64>,
    pub num_sections: i64,
    pub num_lessons: i64,
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
        status: Option<String>,
        created_by: UserMinimal,
        categories: Vec<Category>,
        counts: Counts,
    ) -> CourseJson {
        let url = |side: u32| match &self.image_key {
            Some(k) => base.at(&format!("/media/{}", media_path(k, side))),
            None => base.at(DEFAULT_IMAGE),
        };
        let show_members = !self.hide_member_count || manages(status.as_deref());
        let rate = if counts.lessons > 0 {
            (counts.completed * 100 / counts.lessons).clamp(0, 100)
        } else {
            0
        };
        CourseJson {
            id: self.id,
            name: self.name.clone(),
            slug: self.slug.clone(),
            description: self.description.clone(),
            kind: self.kind.clone(),
            privacy: self.privacy.clone(),
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
        }
    }
}

/// A section: (id, name, lessons).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub id: i64,
    pub course_id: i64,
    pub name: String,
    pub num_lessons: i64,
}

/// Section JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionJson {
    pub id: i64,
    pub name: String,
    pub num_lessons: i64,
}

/// An item of the member and request lists: User Minimal plus `join_status`.
#[derive(Debug, Clone, Serialize)]
pub struct MemberJson {
    #[serde(flatten)]
    pub user: UserMinimal,
    pub join_status: String,
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
pub fn parse_statuses(
    s: Option<&str>,
    default: &[&'static str],
) -> Result<Vec<&'static str>, String> {
    let Some(s) = s.filter(|s| !s.trim().is_empty()) else {
        return Ok(default.to_vec());
    };
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match STATUSES.iter().find(|x| **x == part) {
            Some(x) if !out.contains(x) => out.push(*x),
            Some(_) => {}
            None => return Err(format!("\"{part}\" is not a valid join status.")),
        }
    }
    Ok(out)
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
        e.iter()
            .map(|f| (f.field.clone(), f.messages[0].code))
            .collect()
    }

    #[test]
    fn create_needs_name_and_type() {
        let (_, e) = parse(json!({}), true);
        assert_eq!(
            codes(&e),
            vec![("name".into(), "required"), ("type".into(), "required")]
        );
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
            Some("creator"),
            Some("manager"),
            Some("joined"),
            Some("invited"),
            Some("requested"),
            None,
        ];
        let see = |c: &Course| all.map(|s| visible(c, s));
        c.privacy = String::new();
        assert_eq!(see(&c), [true, true, false, false, false, false]);
        c.privacy = "open".into();
        assert_eq!(see(&c), [true; 6]);
        c.privacy = "private".into();
        assert_eq!(see(&c), [true; 6]);
        c.privacy = "secret".into();
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
        assert_eq!(
            parse_statuses(Some("joined, invited"), &MEMBER_STATUSES),
            Ok(vec!["joined", "invited"])
        );
        assert!(parse_statuses(Some("joined,x"), &MEMBER_STATUSES).is_err());
        assert_eq!(
            parse_statuses(None, &MEMBER_STATUSES),
            Ok(MEMBER_STATUSES.to_vec())
        );
    }
}
