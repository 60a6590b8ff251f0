//! The choices of a course (SEED-API's Course table, SPEC §5 "Courses"): its `type`,
//! its `privacy` and a user's `join_status` in it. Each is one enum, stored in SQLite
//! and sent in JSON as exactly the string the schema's `CHECK` constraints and the API
//! have always used, so that code compares variants, not strings (kanidm's typed
//! protocol enums, STYLE.md rule 5): a misspelt status no longer compiles.

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One enum whose variants are strings: `as_str`, `ALL`, and the SQLite and serde
/// impls that read and write those strings (an unknown one is the enum's `parse`
/// error).
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in the order SEED-API lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The stored and JSON string.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            fn find(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                $name::parse(&s).map_err(serde::de::Error::custom)
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.as_str().as_bytes())))
            }
        }

        /// The OpenAPI schema: a string, one of the values.
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some([$($text,)+]))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                $name::parse(value.as_str()?).map_err(|m| FromSqlError::Other(m.into()))
            }
        }
    };
}

string_enum! {
    /// A course's `type`.
    #[derive(Default)]
    CourseType {
        /// Starts on enrollment; all content is available at once. (The default only
        /// fills a record being built: `type` is required on create.)
        #[default]
        SelfPaced = "self-paced",
        /// Starts on enrollment; content follows a schedule.
        Structured = "structured",
        /// Starts on a date.
        Scheduled = "scheduled",
    }
}

string_enum! {
    /// A course's `privacy`: who sees it (see [`super::course::visible`]).
    #[derive(Default)]
    Privacy {
        /// `""`: a draft, seen by its creator and managers; a course's privacy cannot
        /// go back to it once set.
        #[default]
        Draft = "",
        /// Seen by everyone; anyone may join.
        Open = "open",
        /// Seen by everyone; joining is a request.
        Private = "private",
        /// Seen by its members, managers and invited users only.
        Secret = "secret",
    }
}

string_enum! {
    /// A user's `join_status` in a course.
    JoinStatus {
        /// The user who made the course (exactly one per course; it never changes).
        Creator = "creator",
        /// A member who manages the course.
        Manager = "manager",
        /// A member.
        Joined = "joined",
        /// Invited by a manager, not yet joined.
        Invited = "invited",
        /// Asked to join a private course, not yet accepted.
        Requested = "requested",
    }
}

string_enum! {
    /// A group's `privacy` (SPEC §10 Groups; see `db::groups::VISIBLE`).
    GroupPrivacy {
        /// Everyone sees it and its items; anyone may join.
        Public = "public",
        /// Its feed and members are for its members; joining is a request.
        Private = "private",
    }
}

string_enum! {
    /// A group's `subscription_status` for a user: the course statuses as the kit's
    /// `SCGroupSubscriptionStatusType` names them (creator, manager and joined are
    /// `subscribed`).
    SubscriptionStatus {
        /// A member.
        Subscribed = "subscribed",
        /// Asked to join a private group, not yet accepted.
        Requested = "requested",
        /// Invited, not yet joined.
        Invited = "invited",
    }
}

string_enum! {
    /// An event's `recurring` (the kit's `SCEventRecurrenceType`; model::event_time).
    Recurrence {
        /// Once.
        Never = "never",
        /// Every day at the same wall-clock time in the event's zone.
        Daily = "daily",
        /// Every week on the same weekday and time.
        Weekly = "weekly",
        /// Every month on the same day (the month's last when it is shorter).
        Monthly = "monthly",
    }
}

string_enum! {
    /// An event's `location` (the kit's `SCEventLocationType` without live streams,
    /// which hearth does not have: SPEC §10 "Not in turn 3").
    Location {
        /// At a place (`geolocation`, with optional coordinates).
        Person = "in person",
        /// Online, at `link`.
        Online = "virtual",
    }
}

string_enum! {
    /// An event's `subscription_status` for a user (the kit's
    /// `SCEventSubscriptionStatusType`): a member's answer when it gave one.
    EventStatus {
        /// A member who has not answered.
        Subscribed = "subscribed",
        /// Asked to join a private event, not yet accepted.
        Requested = "requested",
        /// Invited, not yet joined.
        Invited = "invited",
        /// A member going.
        Going = "going",
        /// A member not going.
        NotGoing = "not_going",
    }
}

string_enum! {
    /// A course lesson's `type` (the kit's `SCCourseLessonTypologyType`).
    #[derive(Default)]
    LessonType {
        /// A page of text.
        #[default]
        Lesson = "lesson",
        /// A quiz (the kit names it; hearth keeps its text like a lesson's).
        Quiz = "quiz",
    }
}

string_enum! {
    /// A course lesson's `status`: only published lessons reach the course's members.
    #[derive(Default)]
    LessonStatus {
        /// Seen by the course's creator and managers only.
        #[default]
        Draft = "draft",
        /// Seen by the course's members, counted in its progress.
        Published = "published",
    }
}

string_enum! {
    /// Whether the caller completed a lesson (the kit's
    /// `SCCourseLessonCompletionStatusType`; hearth keeps no quiz results, so never
    /// `failed`).
    Completion {
        /// Not completed.
        Uncompleted = "uncompleted",
        /// Marked complete by the caller.
        Completed = "completed",
    }
}

impl LessonType {
    /// The type named `s`, or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid choice (lesson, quiz)."))
    }
}

impl LessonStatus {
    /// The status named `s`, or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid choice (draft, published)."))
    }
}

impl Completion {
    /// The completion named `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid completion status."))
    }
}

impl Recurrence {
    /// The recurrence named `s`, or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| {
            format!("\"{s}\" is not a valid choice (never, daily, weekly, monthly).")
        })
    }
}

impl Location {
    /// The location named `s`, or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid choice (in person, virtual)."))
    }
}

impl EventStatus {
    /// The status named `s`, or the API's message for an unknown one.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid subscription status."))
    }

    /// How a membership and a member's answer (`going`) show.
    pub const fn of(status: JoinStatus, going: Option<bool>) -> Self {
        match (status, going) {
            (JoinStatus::Invited, _) => Self::Invited,
            (JoinStatus::Requested, _) => Self::Requested,
            (_, Some(true)) => Self::Going,
            (_, Some(false)) => Self::NotGoing,
            (_, None) => Self::Subscribed,
        }
    }
}

impl GroupPrivacy {
    /// The privacy named `s`, or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid choice (public, private)."))
    }
}

impl SubscriptionStatus {
    /// The status named `s`, or the API's message for an unknown one.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid subscription status."))
    }

    /// How a course-style membership status shows in a group.
    pub const fn of(status: JoinStatus) -> Self {
        match status {
            JoinStatus::Creator | JoinStatus::Manager | JoinStatus::Joined => Self::Subscribed,
            JoinStatus::Invited => Self::Invited,
            JoinStatus::Requested => Self::Requested,
        }
    }
}

impl CourseType {
    /// The type named `s`, or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| {
            format!("\"{s}\" is not a valid choice (self-paced, structured, scheduled).")
        })
    }
}

impl Privacy {
    /// The privacy named `s` (`""` is the draft), or the API's `invalid_choice` message.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s)
            .ok_or_else(|| format!("\"{s}\" is not a valid choice (\"\", open, private, secret)."))
    }
}

impl JoinStatus {
    /// The statuses that count as members (`member_count`, the default list filters).
    pub const MEMBERS: [JoinStatus; 3] =
        [JoinStatus::Creator, JoinStatus::Manager, JoinStatus::Joined];

    /// The status named `s`, or the API's message for an unknown one.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::find(s).ok_or_else(|| format!("\"{s}\" is not a valid join status."))
    }

    /// Whether the status is the creator's or a manager's (who may change the course).
    pub fn manages(self) -> bool {
        matches!(self, JoinStatus::Creator | JoinStatus::Manager)
    }
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use rusqlite::Connection;

    use super::*;

    #[test]
    fn every_value_round_trips_through_sqlite_and_json_as_its_string() {
        let conn = Connection::open_in_memory().unwrap();
        fn check<T>(conn: &Connection, all: &[T], strings: &[&str])
        where
            T: ToSql + FromSql + Serialize + for<'de> Deserialize<'de> + PartialEq + fmt::Debug,
        {
            assert_eq!(all.len(), strings.len());
            for (v, s) in all.iter().zip(strings) {
                let stored: String = conn.query_row("SELECT ?1", [v], |r| r.get(0)).unwrap();
                assert_eq!(stored, *s);
                let back: T = conn.query_row("SELECT ?1", [s], |r| r.get(0)).unwrap();
                assert_eq!(&back, v);
                assert_eq!(serde_json::to_value(v).unwrap(), *s);
                assert_eq!(&serde_json::from_value::<T>((*s).into()).unwrap(), v);
            }
        }
        check(&conn, CourseType::ALL, &["self-paced", "structured", "scheduled"]);
        check(&conn, Privacy::ALL, &["", "open", "private", "secret"]);
        check(&conn, JoinStatus::ALL, &["creator", "manager", "joined", "invited", "requested"]);
        check(&conn, LessonType::ALL, &["lesson", "quiz"]);
        check(&conn, LessonStatus::ALL, &["draft", "published"]);
        check(&conn, Completion::ALL, &["uncompleted", "completed"]);
        assert_eq!(Privacy::default(), Privacy::Draft);
        assert_eq!(JoinStatus::Invited.to_string(), "invited");
    }

    #[test]
    fn unknown_strings_are_errors_with_the_api_messages() {
        assert_eq!(
            CourseType::parse("weekly"),
            Err("\"weekly\" is not a valid choice (self-paced, structured, scheduled).".into())
        );
        assert_eq!(
            Privacy::parse("public"),
            Err("\"public\" is not a valid choice (\"\", open, private, secret).".into())
        );
        assert_eq!(
            JoinStatus::parse("Joined"),
            Err("\"Joined\" is not a valid join status.".into())
        );
        assert_eq!(Privacy::parse(""), Ok(Privacy::Draft));
        // a stored value outside the enum is a read error, not a silent default
        let conn = Connection::open_in_memory().unwrap();
        let r = conn.query_row("SELECT 'weird'", [], |r| r.get::<_, JoinStatus>(0));
        let e = r.unwrap_err().to_string();
        assert!(e.contains("\"weird\" is not a valid join status."), "{e}");
        let r = conn.query_row("SELECT 7", [], |r| r.get::<_, Privacy>(0));
        assert!(r.is_err(), "a number is not a privacy");
        let e = serde_json::from_str::<CourseType>("\"weekly\"").unwrap_err();
        assert!(e.to_string().contains("is not a valid choice"), "{e}");
        assert!(serde_json::from_str::<Privacy>("null").is_err());
    }

    #[test]
    fn creators_and_managers_manage() {
        let manages: Vec<bool> = JoinStatus::ALL.iter().map(|s| s.manages()).collect();
        assert_eq!(manages, [true, true, false, false, false]);
    }
}
