//! Groups (SPEC §10 "Groups, events and private messages"; the kit's `SCGroupType`):
//! the stored record, its JSON, and the body it is written with. Memberships are the
//! course members' statuses ([`JoinStatus`]), shown as the kit's
//! [`SubscriptionStatus`].

use serde::Serialize;
use serde_json::{Map, Value};

use super::PublicUrl;
pub use super::course_enums::{GroupPrivacy, JoinStatus, SubscriptionStatus};
use super::field::FieldError;
use super::ids;
use super::user::UserMinimal;
use crate::clock::{Timestamp, rfc3339};

/// The default avatar of a group without one, served by hearth.
pub const DEFAULT_IMAGE: &str = "/static/default/course.svg";
/// The default cover (`emotional_image`).
pub const DEFAULT_COVER: &str = "/static/default/cover.svg";
/// Longest name, in characters (the kit's `GROUP_TITLE_MAX_LENGTH`).
pub const NAME_MAX: usize = 40;
/// Longest description, in characters (the kit's `GROUP_DESCRIPTION_MAX_LENGTH`).
pub const DESCRIPTION_MAX: usize = 500;
/// Longest `color` (`#rrggbb` and the like).
pub const COLOR_MAX: usize = 16;
/// The side of the cover kept: the largest square of the image pipeline.
pub const COVER_SIDE: u32 = 600;

/// A group as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub id: i64,
    pub name: String,
    pub slug: String,
    pub description: String,
    pub color: String,
    pub privacy: GroupPrivacy,
    pub visible: bool,
    /// Media path of the avatar's squares with `{side}` left out (as a course's
    /// `image_key`); `None`: the default.
    pub image_key: Option<String>,
    /// Media path of the cover's square; `None`: the default.
    pub cover_key: Option<String>,
    pub created_at: Timestamp,
    pub created_by: i64,
    pub deleted: bool,
    pub subscribers_counter: i64,
}

impl Group {
    /// A new group of `creator` (id 0 until stored).
    pub fn new(creator: i64, now: Timestamp) -> Self {
        Group {
            id: 0,
            name: String::new(),
            slug: String::new(),
            description: String::new(),
            color: String::new(),
            privacy: GroupPrivacy::Public,
            visible: true,
            image_key: None,
            cover_key: None,
            created_at: now,
            created_by: creator,
            deleted: false,
            subscribers_counter: 0,
        }
    }

    /// The group's JSON for a caller whose membership is `status`, `creator` its
    /// creator (who is also its admin, `managed_by`).
    pub fn to_json(
        &self,
        base: &PublicUrl,
        status: Option<JoinStatus>,
        creator: UserMinimal,
    ) -> GroupJson {
        let url = |side: u32| match &self.image_key {
            Some(k) => base.at(&format!("/media/{}", super::course::media_path(k, side))),
            None => base.at(DEFAULT_IMAGE),
        };
        let subscription_status = status.map(SubscriptionStatus::of);
        GroupJson {
            id: self.id,
            name: self.name.clone(),
            description: self.description.clone(),
            slug: self.slug.clone(),
            color: self.color.clone(),
            privacy: self.privacy,
            visible: self.visible,
            active: !self.deleted,
            subscription_status,
            subscribed: subscription_status == Some(SubscriptionStatus::Subscribed),
            image_bigger: url(600),
            image_big: url(400),
            image_medium: url(200),
            image_small: url(100),
            emotional_image: match &self.cover_key {
                Some(k) => base.at(&format!("/media/{}", super::course::media_path(k, COVER_SIDE))),
                None => base.at(DEFAULT_COVER),
            },
            emotional_image_position: 0,
            created_at: rfc3339(self.created_at),
            managed_by: creator.clone(),
            created_by: creator,
            subscribers_counter: self.subscribers_counter,
            paywalls: Vec::new(),
        }
    }
}

/// A group as one caller sees it beside something else (an item made in it, a
/// notification about it): the record, the caller's status, its creator.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSeen {
    pub group: Group,
    pub status: Option<JoinStatus>,
    pub creator: super::user::User,
}

impl GroupSeen {
    /// Its JSON.
    pub fn to_json(&self, base: &PublicUrl) -> GroupJson {
        self.group.to_json(base, self.status, self.creator.minimal(base))
    }
}

/// Group JSON (`SCGroupType`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Group)]
pub struct GroupJson {
    pub id: i64,
    pub name: String,
    /// Plain text (the kit shows it as text)
    pub description: String,
    pub slug: String,
    pub color: String,
    pub privacy: GroupPrivacy,
    /// Whether a private group is listed and seen by users who are not its members
    /// (a public group always is)
    pub visible: bool,
    /// Always true: a deleted group is not shown
    pub active: bool,
    /// The caller's membership: subscribed (creator, admin or member), requested,
    /// invited; null for none or an anonymous caller
    pub subscription_status: Option<SubscriptionStatus>,
    pub subscribed: bool,
    /// 600×600 center-cropped square of the avatar under /media/; the default image
    /// /static/default/course.svg when there is none
    #[schema(format = "uri")]
    pub image_bigger: String,
    #[schema(format = "uri")]
    pub image_big: String,
    #[schema(format = "uri")]
    pub image_medium: String,
    #[schema(format = "uri")]
    pub image_small: String,
    /// The cover: a 600×600 center-cropped square under /media/; /static/default/cover.svg
    /// when there is none
    #[schema(format = "uri")]
    pub emotional_image: String,
    pub emotional_image_position: i64,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub created_by: UserMinimal,
    /// The group's admin: its creator
    pub managed_by: UserMinimal,
    /// Members: the creator, admins and subscribed members
    pub subscribers_counter: i64,
    /// Always empty: hearth has no payments
    pub paywalls: Vec<Value>,
}

/// The writable fields of a group body (JSON, or the kit's multipart form as text);
/// `None` means "not in the body". Its schema is the group writes' request body
/// (`GroupWrite`); the doc comments are its descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = GroupWrite,
    description = "The writable fields of a group, as JSON or as the kit's multipart/form-data text fields (booleans as true/false/1/0, invite_users as invite_users[0], invite_users[1]...). On create and PUT name is required. Read-only and unknown fields (the kit's products) are ignored. All field errors are reported at once."
)]
pub struct GroupInput {
    /// 1-40 characters (blank is 400 required), unique case-insensitively (400 unique); leading and
    /// trailing spaces are trimmed. The slug comes from it as course slugs do.
    #[schema(nullable = false, min_length = 1, max_length = 40)]
    pub name: Option<String>,
    /// Plain text, at most 500 characters.
    #[schema(nullable = false, max_length = 500)]
    pub description: Option<String>,
    /// At most 16 characters (trimmed).
    #[schema(nullable = false, max_length = 16)]
    pub color: Option<String>,
    /// public (the default) or private: private only while
    /// configurations.groups_private_enabled is true, else 400 invalid_choice. A private
    /// group never becomes public again (400 on privacy).
    #[schema(nullable = false)]
    pub privacy: Option<GroupPrivacy>,
    /// Whether a private group is listed for non-members (default true); false only
    /// while configurations.groups_visibility_enabled is true.
    #[schema(nullable = false)]
    pub visible: Option<bool>,
    /// Users to invite (create only; each notified with user_invited_to_join_group):
    /// integer ids or numeric strings, a lone id counts as a list of one, repeats
    /// collapse; an id that is no live user is 400. At most 1000 items (400 max_length).
    #[schema(max_items = 1000)]
    pub invite_users: Option<Vec<i64>>,
    /// `image_original` (described by [`avatar_field`]).
    #[schema(rename = "image_original", schema_with = avatar_field, required = false)]
    pub clear_image: bool,
    /// `emotional_image_original` (described by [`cover_field`]).
    #[schema(rename = "emotional_image_original", schema_with = cover_field, required = false)]
    pub clear_cover: bool,
}

/// `image_original`, the avatar: null in JSON, a file in a multipart form.
fn avatar_field() -> utoipa::openapi::schema::Object {
    super::field::image_schema(
        "The avatar. In JSON only null: back to the default avatar. In \
         multipart/form-data the image file: JPEG, PNG, WebP or GIF, at most 10 MiB and \
         8000x8000 pixels, through the image pipeline (center-cropped squares of 600, 400, \
         200 and 100 px); an empty field is null. Anything else is 400 invalid.",
    )
}

/// `emotional_image_original`, the cover: null in JSON, a file in a multipart form.
fn cover_field() -> utoipa::openapi::schema::Object {
    super::field::image_schema(
        "The cover. In JSON only null: back to the default cover. In multipart/form-data \
         the image file: JPEG, PNG, WebP or GIF, at most 10 MiB and 8000x8000 pixels, kept \
         as its center-cropped 600 px square; an empty field is null. Anything else is 400 \
         invalid.",
    )
}

/// The image fields of a group form.
pub const IMAGE_FIELD: &str = "image_original";
pub const COVER_FIELD: &str = "emotional_image_original";

/// A text field of a body (`None`: absent; null and non-strings are errors).
pub(super) fn text(
    map: &Map<String, Value>,
    field: &'static str,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    match map.get(field)? {
        Value::String(s) => Some(s.clone()),
        Value::Null => {
            errors.push(FieldError::new(field, "null", "This field may not be null."));
            None
        }
        _ => {
            errors.push(FieldError::new(field, "invalid", "Not a valid string."));
            None
        }
    }
}

/// The `max_length` error of `field`.
pub(super) fn too_long(field: &'static str, max: usize) -> FieldError {
    FieldError::new(
        field,
        "max_length",
        format!("Ensure this field has no more than {max} characters."),
    )
}

/// Whether `field` of the body asks for the default image back (null or an empty
/// text field); an error when it holds text that is no file.
pub(super) fn clears_image(
    map: &Map<String, Value>,
    field: &'static str,
    errors: &mut Vec<FieldError>,
) -> bool {
    match map.get(field) {
        None => false,
        Some(Value::Null) => true,
        Some(Value::String(s)) if s.is_empty() => true,
        Some(_) => {
            errors.push(FieldError::new(
                field,
                "invalid",
                "The submitted data was not a file. Upload it with multipart/form-data.",
            ));
            false
        }
    }
}

/// A boolean field of a body: a JSON boolean or a form's text (DRF's grammar).
pub(super) fn boolean(
    map: &Map<String, Value>,
    field: &'static str,
    errors: &mut Vec<FieldError>,
) -> Option<bool> {
    let parsed = match map.get(field)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => super::boolean::parse_field(s),
        _ => None,
    };
    if parsed.is_none() {
        errors.push(FieldError::new(field, "invalid", "Must be a valid boolean."));
    }
    parsed
}

/// The `invite_users` list of a body (a lone id counts as a list of one).
pub(super) fn invite_list(map: &Map<String, Value>, e: &mut Vec<FieldError>) -> Option<Vec<i64>> {
    match map.get("invite_users") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) => ids::from_values(items)
            .map(ids::dedup)
            .map_err(|err| e.push(err.on("invite_users", "Must be a list of user ids.")))
            .ok(),
        Some(v) => ids::id_value(v).map(|id| vec![id]).or_else(|| {
            e.push(FieldError::new("invite_users", "invalid", "Must be a list of user ids."));
            None
        }),
    }
}

impl GroupInput {
    /// Reads a body with every rule that needs no database: lengths, choices, the
    /// `invite_users` list; `name` required when `full` (create and PUT).
    /// Read-only and unknown fields (`products`...) are ignored.
    pub fn parse(map: &Map<String, Value>, full: bool) -> (GroupInput, Vec<FieldError>) {
        let mut e = Vec::new();
        let name = text(map, "name", &mut e).map(|s| s.trim().to_owned());
        let description = text(map, "description", &mut e);
        let color = text(map, "color", &mut e).map(|s| s.trim().to_owned());
        let privacy = text(map, "privacy", &mut e);
        let visible = boolean(map, "visible", &mut e);
        let invite_users = invite_list(map, &mut e);
        let mut input = GroupInput {
            name,
            description,
            color,
            privacy: None,
            visible,
            invite_users,
            clear_image: clears_image(map, IMAGE_FIELD, &mut e),
            clear_cover: clears_image(map, COVER_FIELD, &mut e),
        };
        match &input.name {
            Some(n) if n.is_empty() => {
                e.push(FieldError::new("name", "required", "This field may not be blank."));
            }
            Some(n) if n.chars().count() > NAME_MAX => e.push(too_long("name", NAME_MAX)),
            None if full && !map.contains_key("name") => e.push(FieldError::required("name")),
            _ => {}
        }
        if input.description.as_ref().is_some_and(|d| d.chars().count() > DESCRIPTION_MAX) {
            e.push(too_long("description", DESCRIPTION_MAX));
        }
        if input.color.as_ref().is_some_and(|c| c.chars().count() > COLOR_MAX) {
            e.push(too_long("color", COLOR_MAX));
        }
        match privacy.as_deref().map(GroupPrivacy::parse) {
            Some(Ok(p)) => input.privacy = Some(p),
            Some(Err(m)) => e.push(FieldError::new("privacy", "invalid_choice", m)),
            None => {}
        }
        (input, e)
    }

    /// Applies the input to a group (after validation).
    pub fn apply(&self, g: &mut Group) {
        use super::update;
        update(&mut g.name, self.name.clone());
        update(&mut g.description, self.description.clone());
        update(&mut g.color, self.color.clone());
        update(&mut g.privacy, self.privacy);
        update(&mut g.visible, self.visible);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(v: Value, full: bool) -> (GroupInput, Vec<(String, &'static str)>) {
        let Value::Object(m) = v else { unreachable!() };
        let (i, e) = GroupInput::parse(&m, full);
        (i, e.into_iter().map(|f| (f.field, f.messages[0].code)).collect())
    }

    /// The documented body is the one the parser reads; a PATCH may leave out each field.
    #[test]
    fn every_documented_field_is_read() {
        crate::model::field::assert_patch_body::<GroupInput>(|m| GroupInput::parse(m, false).1);
    }

    #[test]
    fn a_body_is_read_with_every_rule_that_needs_no_database() {
        let (i, e) = parse(
            json!({"name": " Hikers ", "privacy": "private", "visible": "false",
                   "invite_users": ["2", 3, 3], "products": "[]"}),
            true,
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(i.name.as_deref(), Some("Hikers"));
        assert_eq!(i.privacy, Some(GroupPrivacy::Private));
        assert_eq!(i.visible, Some(false));
        assert_eq!(i.invite_users, Some(vec![2, 3]));
        let (_, e) = parse(
            json!({"name": "x".repeat(41), "privacy": "secret", "visible": "maybe",
                   "description": "d".repeat(501), "image_original": "text"}),
            true,
        );
        let fields: Vec<&str> = e.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["visible", "image_original", "name", "description", "privacy"]);
        assert_eq!(e[4].1, "invalid_choice");
        let (_, e) = parse(json!({}), true);
        assert_eq!(e, [("name".to_owned(), "required")]);
        let (i, e) = parse(json!({"image_original": null, "emotional_image_original": ""}), false);
        assert!(e.is_empty() && i.clear_image && i.clear_cover);
    }

    #[test]
    fn statuses_show_as_the_kits_subscription_statuses() {
        let shown: Vec<SubscriptionStatus> =
            JoinStatus::ALL.iter().map(|s| SubscriptionStatus::of(*s)).collect();
        use SubscriptionStatus::*;
        assert_eq!(shown, [Subscribed, Subscribed, Subscribed, Invited, Requested]);
    }
}
