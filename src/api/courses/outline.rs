//! A course's outline as one caller sees it: its sections in `sections_order`, each with
//! its lessons in `lessons_order` (drafts only for the creator and managers), and where
//! each lesson stands for the caller (locked, completed). The course page, its editor,
//! the section routes and the lesson routes all read it here.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use crate::db::course_lessons as lessons;
use crate::db::courses as db;
use crate::error::ApiError;
use crate::model::course::{Course, JoinStatus, Section, SectionJson, manages};
use crate::model::course_enums::LessonStatus;
use crate::model::course_lesson::{Lesson, Standing, standings};
use crate::model::ids::in_given_order;

/// A lesson and where it stands for the caller (None: unseen).
type Placed = (Lesson, Option<Standing>);

/// A course's sections and lessons in order, with the caller's standing in each lesson.
pub(super) struct Outline {
    pub sections: Vec<(Section, Vec<Placed>)>,
}

impl Outline {
    /// The outline of `course` for `user`, whose status in it is `status`: one statement
    /// for the sections, one for the lessons (without their text), one for the user's
    /// completions.
    pub fn read(
        c: &Connection,
        course: &Course,
        status: Option<JoinStatus>,
        user: Option<i64>,
    ) -> Result<Outline, ApiError> {
        let sections =
            in_given_order(db::sections(c, course.id)?, |s| s.id, &course.sections_order);
        let mut by_section: HashMap<i64, Vec<Lesson>> = HashMap::new();
        for l in lessons::of_course(c, course.id)? {
            by_section.entry(l.section_id).or_default().push(l);
        }
        let completed = match user {
            Some(u) => lessons::completed(c, course.id, u)?,
            None => HashSet::new(),
        };
        let ordered: Vec<(Section, Vec<Lesson>)> = sections
            .into_iter()
            .map(|s| {
                let mine = by_section.remove(&s.id).unwrap_or_default();
                let mine = in_given_order(mine, |l| l.id, &s.lessons_order);
                (s, mine)
            })
            .collect();
        let flat: Vec<(i64, LessonStatus)> =
            ordered.iter().flat_map(|(_, ls)| ls.iter().map(|l| (l.id, l.status))).collect();
        let mut stand =
            standings(&flat, &completed, course.enforce_lessons_order, manages(status)).into_iter();
        let sections = ordered
            .into_iter()
            .map(|(s, ls)| {
                let ls = ls.into_iter().map(|l| (l, stand.next().flatten())).collect();
                (s, ls)
            })
            .collect();
        Ok(Outline { sections })
    }

    /// Where lesson `id` stands for the caller (None: unseen, or not in the course).
    pub fn standing(&self, id: i64) -> Option<Standing> {
        self.sections.iter().flat_map(|(_, ls)| ls).find(|(l, _)| l.id == id).and_then(|(_, s)| *s)
    }

    /// The sections' JSON, each with the lessons the caller sees.
    pub fn json(self) -> Vec<SectionJson> {
        self.sections.into_iter().map(|(s, ls)| section_json(s, ls)).collect()
    }

    /// Section `id`'s JSON (None: not in the course).
    pub fn section_json(self, id: i64) -> Option<SectionJson> {
        self.sections.into_iter().find(|(s, _)| s.id == id).map(|(s, ls)| section_json(s, ls))
    }
}

fn section_json(s: Section, lessons: Vec<Placed>) -> SectionJson {
    let seen: Vec<(Lesson, Standing)> =
        lessons.into_iter().filter_map(|(l, st)| st.map(|st| (l, st))).collect();
    let completed =
        seen.iter().filter(|(l, st)| l.status == LessonStatus::Published && st.completed).count();
    // the order names only what the caller sees (a member learns nothing of drafts)
    let lessons_order = seen.iter().map(|(l, _)| l.id).collect();
    SectionJson {
        id: s.id,
        name: s.name,
        lessons_order,
        num_lessons: s.num_lessons,
        num_lessons_completed: i64::try_from(completed).unwrap_or(i64::MAX),
        lessons: seen.into_iter().map(|(l, st)| l.to_json(st, None)).collect(),
    }
}
