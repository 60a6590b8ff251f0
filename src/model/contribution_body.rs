//! The bodies contributions are written with, one type per kind: what
//! [`validate`](super::contribution::validate) (create) and
//! [`validate_edit`](super::contribution::validate_edit) (`PUT`) read for that kind, as
//! the documented request bodies of its writes. The parser is one function for the four
//! kinds (their rules are mostly shared); each type's `parse` is that function for its
//! kind, and a test per type proves each documented property is read under its name.
//! Ids are JSON integers or numeric strings ([`NumericId`]).

use serde_json::{Map, Value};

use super::contribution::{Draft, Kind, validate, validate_edit};
use super::field::FieldError;
use super::ids::NumericId;

/// A discussion's body (create, and `PUT`, whose body replaces its title, text,
/// categories and addressing; a `group` or `event` must then be its own, `poll` is
/// parsed but not edited).
#[derive(utoipa::ToSchema)]
#[schema(
    as = DiscussionCreate,
    description = "A discussion. Unknown fields are ignored, but a non-empty recipients (the platform's addressing to users, not supported: it would make the item public) is 400; all field errors are reported at once."
)]
pub struct DiscussionBody {
    /// 1-250 characters once trimmed; absent or blank is 400 required, null 400 null.
    #[schema(min_length = 1, max_length = 250)]
    pub title: String,
    /// The text (HTML through SPEC §5's sanitizer); default empty; null is 400.
    #[schema(nullable = false, default = "")]
    pub text: Option<String>,
    /// Category ids (integers or numeric strings; duplicates are ignored; null is none).
    /// Unknown or deleted category ids are 400 on categories. Required (non-empty) when
    /// the preference configurations.post_category_required_enabled is true. At most
    /// 1000 items (400 max_length on the field).
    #[schema(max_items = 1000)]
    pub categories: Option<Vec<NumericId>>,
    /// Tag ids the item is addressed to (duplicates ignored; [] or null is none). Each
    /// must be a tag the author may address to (`GET
    /// /api/v2/user/tag/tags_to_address_a_contribution/`: staff every active tag, a
    /// member the active tags they hold), else 400 invalid on addressing; not with
    /// `group` or `event`. Required (non-empty) for an item outside groups and events
    /// while configurations.post_addressing_required_enabled is true (400 required). An
    /// addressed item, its comments, votes and notifications are shown only to its
    /// author, staff and the holders of one of its tags; everyone else gets 404 and does
    /// not find it in feeds, lists or search. At most 1000 items (400 max_length).
    #[schema(max_items = 1000)]
    pub addressing: Option<Vec<NumericId>>,
    /// The group it is made in (null is none): one the author is a member of, else 400
    /// on group. Not with `event`. On `PUT` only its own group.
    pub group: Option<NumericId>,
    /// The event it is made in (null is none): one the author is a member of, else 400
    /// on event; not with `group` (400 on event). On `PUT` only its own event.
    pub event: Option<NumericId>,
    /// Its poll (null is none; made with the item, not edited): `{"title", "choices":
    /// [{"choice"}], "multiple_choices", "expiration_at"}` (described by [`poll_field`]).
    #[schema(schema_with = poll_field)]
    pub poll: Option<Value>,
    /// The media it shows, in order: ids of the author's pictures
    /// (`/api/v2/media/upload/chunk/`, `complete/`), links or a share (`POST
    /// /api/v2/media/`) that no other item shows, else 400 invalid on medias; a share
    /// comes alone, of an item that may still be shared; at most 20 (400 max_length);
    /// duplicates ignored; [] or null is none. On `PUT` the list replaces the item's
    /// media (those left out stay their owner's); absent, they stay as they are.
    #[schema(max_items = 20)]
    pub medias: Option<Vec<NumericId>>,
}

/// A post's body (create, and `PUT`, as a discussion's but without a title).
#[derive(utoipa::ToSchema)]
#[schema(
    as = PostCreate,
    description = "A post. Unknown fields (title included) are ignored, but a non-empty recipients (the platform's addressing to users, not supported: it would make the item public) is 400; all field errors are reported at once."
)]
pub struct PostBody {
    /// The text (HTML through SPEC §5's sanitizer); absent or blank (whitespace only) is
    /// 400 required unless the post shows media (`medias`) or a poll; null is 400 null.
    #[schema(nullable = false)]
    pub text: Option<String>,
    /// As a discussion's categories.
    #[schema(max_items = 1000)]
    pub categories: Option<Vec<NumericId>>,
    /// As a discussion's addressing: tag ids the post is addressed to, at most 1000; not
    /// with `group` or `event`.
    #[schema(max_items = 1000)]
    pub addressing: Option<Vec<NumericId>>,
    /// The group it is made in (null is none), as a discussion's.
    pub group: Option<NumericId>,
    /// The event it is made in (null is none), as a discussion's.
    pub event: Option<NumericId>,
    /// Its poll, as a discussion's (described by [`poll_field`]).
    #[schema(schema_with = poll_field)]
    pub poll: Option<Value>,
    /// The media it shows, as a discussion's.
    #[schema(max_items = 20)]
    pub medias: Option<Vec<NumericId>>,
}

/// A status's body (create, and `PUT`, which replaces its action, text and categories).
#[derive(utoipa::ToSchema)]
#[schema(
    as = StatusCreate,
    description = "A status. Unknown fields are ignored, but a non-empty recipients (the platform's addressing to users, not supported: it would make the item public) is 400; group, event, addressing, poll and a non-empty medias are 400 (only discussions and posts take them). All field errors are reported at once."
)]
pub struct StatusBody {
    /// The text; absent or blank is 400 required, null 400 null.
    #[schema(min_length = 1)]
    pub text: String,
    /// The action; absent or null is "".
    #[schema(default = "")]
    pub action: Option<String>,
    /// As a discussion's categories.
    #[schema(max_items = 1000)]
    pub categories: Option<Vec<NumericId>>,
}

/// A comment's create body.
#[derive(utoipa::ToSchema)]
#[schema(
    as = CommentCreate,
    description = "A comment: exactly one of discussion, post, status (null counts as absent); none or several is 400 on non_field_errors. An unknown or deleted target is 400 on its field. Comments take no categories (ignored); group, event, addressing, poll and a non-empty medias are 400, and so is a non-empty recipients (addressing to users, not supported). Unknown fields are ignored."
)]
pub struct CommentBody {
    /// The text; absent or blank is 400 required, null 400 null.
    #[schema(min_length = 1)]
    pub text: String,
    /// The discussion commented on.
    pub discussion: Option<NumericId>,
    /// The post commented on.
    pub post: Option<NumericId>,
    /// The status commented on.
    pub status: Option<NumericId>,
    /// A live comment on the same item (else 400 on parent).
    pub parent: Option<NumericId>,
}

/// A comment's `PUT` body: its text (its item and parent do not change and are not
/// read).
#[derive(utoipa::ToSchema)]
#[schema(
    as = CommentEdit,
    description = "A comment's new text. discussion, post, status and parent are not read; group, event, addressing, poll and a non-empty medias are 400; unknown fields are ignored."
)]
pub struct CommentEditBody {
    /// The text; absent or blank is 400 required, null 400 null.
    #[schema(min_length = 1)]
    pub text: String,
}

/// `poll`: an object, or null.
fn poll_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .description(Some(
            "Its poll (null is none; made with the item, not edited): {\"title\": 1-160 \
             characters, \"choices\": 2-20 of {\"choice\": 1-160 characters}, \
             \"multiple_choices\": true or false (default false), \"expiration_at\": RFC \
             3339 or null/empty, a time that has not passed}. Anything else is 400 invalid \
             on poll.",
        ))
        .build()
}

impl DiscussionBody {
    /// The create parser of discussions.
    pub fn parse(body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
        validate(Kind::Discussion, body)
    }
}

impl PostBody {
    /// The create parser of posts.
    pub fn parse(body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
        validate(Kind::Post, body)
    }
}

impl StatusBody {
    /// The create parser of statuses.
    pub fn parse(body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
        validate(Kind::Status, body)
    }
}

impl CommentBody {
    /// The create parser of comments.
    pub fn parse(body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
        validate(Kind::Comment, body)
    }
}

impl CommentEditBody {
    /// The edit parser of comments.
    pub fn parse(body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
        validate_edit(Kind::Comment, body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::unread_properties;

    /// Each documented body is the one its kind's parser reads (a discussion's, post's
    /// and status's edit is their create parser: only comments differ).
    #[test]
    fn every_documented_field_is_read() {
        assert_eq!(unread_properties::<DiscussionBody>(|m| DiscussionBody::parse(m).1), [""; 0]);
        assert_eq!(unread_properties::<PostBody>(|m| PostBody::parse(m).1), [""; 0]);
        assert_eq!(unread_properties::<StatusBody>(|m| StatusBody::parse(m).1), [""; 0]);
        assert_eq!(unread_properties::<CommentBody>(|m| CommentBody::parse(m).1), [""; 0]);
        assert_eq!(unread_properties::<CommentEditBody>(|m| CommentEditBody::parse(m).1), [""; 0]);
        for kind in [Kind::Discussion, Kind::Post, Kind::Status] {
            let body = Map::from_iter([("text".into(), Value::from("t"))]);
            assert_eq!(validate(kind, &body), validate_edit(kind, &body), "{kind:?}");
        }
    }
}
