//! User tags (SPEC §10 People, "Tags (user tags, addressing)"): labels staff create and
//! assign to members (`SCTagType`). The kit shows a member's visible tags on their
//! profile, and a discussion or post may be addressed to tags (its `addressing`).
//!
//! hearth keeps user tags only: the platform's category tags (`type: "category"`)
//! are refused, since no category shows tags here.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::clock::{Timestamp, rfc3339};

use super::field::FieldError;

/// Longest tag name, in characters (the platform's column).
pub const NAME_MAX: usize = 50;
/// Longest description, in characters.
pub const DESCRIPTION_MAX: usize = 500;
/// The colour of a tag made without one (the kit's chip needs a colour to contrast).
pub const DEFAULT_COLOR: &str = "#9e9e9e";
/// The one tag type hearth keeps.
pub const USER_TYPE: &str = "user";

/// A stored tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub color: String,
    pub visible: bool,
    pub visibility_boost: bool,
    pub active: bool,
    pub deleted: bool,
    /// 0 for a tag an older hearth made (when is not known)
    pub created_at: Timestamp,
}

/// `SCTagType`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = Tag)]
pub struct TagJson {
    pub id: i64,
    /// Always "user" (hearth keeps user tags only)
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Plain text
    pub name: String,
    /// Plain text
    pub description: String,
    /// `#rrggbb`
    pub color: String,
    /// Whether members see it on the profiles of those who hold it
    pub visible: bool,
    /// Kept as staff set it; hearth ranks nothing by it
    pub visibility_boost: bool,
    /// Null for a tag made before hearth kept the time
    #[schema(format = DateTime)]
    pub created_at: Option<String>,
    /// An inactive tag is kept but cannot be used to address a contribution
    pub active: bool,
    pub deleted: bool,
}

impl Tag {
    /// The JSON the kit reads.
    pub fn to_json(&self) -> TagJson {
        TagJson {
            id: self.id,
            kind: USER_TYPE,
            name: self.name.clone(),
            description: self.description.clone(),
            color: self.color.clone(),
            visible: self.visible,
            visibility_boost: self.visibility_boost,
            created_at: (self.created_at != 0).then(|| rfc3339(self.created_at)),
            active: self.active,
            deleted: self.deleted,
        }
    }
}

/// What a create or an update sets: `None` leaves a field as it is. Its schema is the
/// request body of the tag writes (`TagWrite`); the doc comments are its descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = TagWrite,
    description = "A user tag's writable fields. On create and PUT name is required; PATCH changes only the fields given. Booleans are true/false or the strings true, false, 1, 0; null leaves a field as it is. Any other key is 400; all errors are reported at once."
)]
pub struct TagInput {
    /// Plain text, unique among tags (case-insensitively); trimmed, 1-50 characters, no
    /// control characters.
    #[schema(min_length = 1, max_length = 50)]
    pub name: Option<String>,
    /// Plain text (line breaks and tabs allowed), at most 500 characters.
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// #rgb or #rrggbb (stored lower-case); default #9e9e9e.
    #[schema(pattern = "^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")]
    pub color: Option<String>,
    /// Shown on the profiles of those who hold it (default true).
    pub visible: Option<bool>,
    /// Kept; hearth ranks nothing by it (default false).
    pub visibility_boost: Option<bool>,
    /// An inactive tag stays but cannot be addressed (default true).
    pub active: Option<bool>,
    /// true deletes the tag: it leaves profiles and addressing.
    pub deleted: Option<bool>,
    /// `type` (described by [`tag_type`]): checked, nothing kept.
    #[schema(rename = "type", schema_with = tag_type, required = false)]
    pub kind: (),
}

/// `type`: "user" only.
fn tag_type() -> utoipa::openapi::schema::Object {
    let mut o = super::field::one_of(&[USER_TYPE]);
    o.description = Some("hearth keeps user tags only; \"category\" is 400.".into());
    o
}

/// The body of `POST /api/v2/tag/{id}/assign/` (`TagAssign`).
#[derive(Debug, Clone, PartialEq, Eq, utoipa::ToSchema)]
#[schema(as = TagAssign, description = "The member to give the tag. Any other key is 400.")]
pub struct TagAssign {
    /// The member's id (an integer or a numeric string); an unknown or deleted member is
    /// 400.
    #[schema(value_type = i64)]
    pub user: i64,
    /// `category` (described by [`assign_category`]): refused.
    #[schema(schema_with = assign_category, required = false)]
    pub category: (),
}

/// `category`: any value but null is 400.
fn assign_category() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .description(Some("Refused (400 unless null): hearth keeps user tags only."))
        .build()
}

impl TagAssign {
    /// Reads `{"user": N}`: an unknown key, then a `category` other than null, then a
    /// missing or non-integer `user` is 400 (the first of them).
    pub fn parse(body: &Map<String, Value>) -> Result<Self, FieldError> {
        if let Some(e) = FieldError::first_unknown(body, &["user", "category"]) {
            return Err(e);
        }
        if body.get("category").is_some_and(|v| !v.is_null()) {
            return Err(FieldError::new(
                "category",
                "invalid",
                "hearth keeps user tags only: assign a tag to a user.",
            ));
        }
        let user = match body.get("user") {
            None | Some(Value::Null) => return Err(FieldError::required("user")),
            Some(v) => super::ids::id_value(v)
                .ok_or_else(|| FieldError::new("user", "invalid", "Must be an integer user id."))?,
        };
        Ok(TagAssign { user, category: () })
    }
}

const FIELDS: [&str; 8] =
    ["name", "type", "description", "color", "visible", "visibility_boost", "active", "deleted"];

impl TagInput {
    /// Reads a `TagParams` body. `whole` (create, PUT): `name` is required; otherwise
    /// (PATCH) every field is optional. Every field error is collected.
    pub fn parse(body: &Map<String, Value>, whole: bool) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        if let Some(e) = FieldError::first_unknown(body, &FIELDS) {
            errors.push(e);
        }
        let mut input = TagInput::default();
        match body.get("name") {
            None | Some(Value::Null) if whole => errors.push(FieldError::required("name")),
            None | Some(Value::Null) => {}
            Some(v) => match v.as_str().map(check_name) {
                Some(Ok(n)) => input.name = Some(n),
                Some(Err(m)) => errors.push(FieldError::new("name", "invalid", m)),
                None => errors.push(FieldError::new("name", "invalid", "Must be a string.")),
            },
        }
        match body.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) if t == USER_TYPE => {}
            Some(_) => errors.push(FieldError::new(
                "type",
                "invalid_choice",
                "hearth keeps user tags only: type is \"user\".",
            )),
        }
        match body.get("description") {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_str().map(check_description) {
                Some(Ok(d)) => input.description = Some(d),
                Some(Err(m)) => errors.push(FieldError::new("description", "invalid", m)),
                None => {
                    errors.push(FieldError::new("description", "invalid", "Must be a string."));
                }
            },
        }
        match body.get("color") {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_str().map(check_color) {
                Some(Ok(c)) => input.color = Some(c),
                Some(Err(m)) => errors.push(FieldError::new("color", "invalid", m)),
                None => errors.push(FieldError::new("color", "invalid", "Must be a string.")),
            },
        }
        for (name, slot) in [
            ("visible", &mut input.visible),
            ("visibility_boost", &mut input.visibility_boost),
            ("active", &mut input.active),
            ("deleted", &mut input.deleted),
        ] {
            match body.get(name) {
                None | Some(Value::Null) => {}
                Some(Value::Bool(b)) => *slot = Some(*b),
                Some(Value::String(s)) if super::boolean::parse_field(s).is_some() => {
                    *slot = super::boolean::parse_field(s);
                }
                Some(_) => errors.push(FieldError::new(name, "invalid", "Must be a boolean.")),
            }
        }
        if errors.is_empty() { Ok(input) } else { Err(errors) }
    }

    /// `tag` with this input applied.
    pub fn apply(&self, mut tag: Tag) -> Tag {
        super::update(&mut tag.name, self.name.clone());
        super::update(&mut tag.description, self.description.clone());
        super::update(&mut tag.color, self.color.clone());
        super::update(&mut tag.visible, self.visible);
        super::update(&mut tag.visibility_boost, self.visibility_boost);
        super::update(&mut tag.active, self.active);
        super::update(&mut tag.deleted, self.deleted);
        tag
    }

    /// A new tag from this input (the defaults where it sets nothing).
    pub fn new_tag(&self, now: Timestamp) -> Tag {
        self.apply(Tag {
            id: 0,
            name: String::new(),
            description: String::new(),
            color: DEFAULT_COLOR.into(),
            visible: true,
            visibility_boost: false,
            active: true,
            deleted: false,
            created_at: now,
        })
    }
}

/// A name: trimmed, 1 to [`NAME_MAX`] characters, no control characters.
pub fn check_name(name: &str) -> Result<String, String> {
    let n = name.trim();
    if n.is_empty() || n.chars().count() > NAME_MAX {
        return Err(format!("A tag's name is 1 to {NAME_MAX} characters."));
    }
    if n.chars().any(char::is_control) {
        return Err("A tag's name may not hold control characters.".into());
    }
    Ok(n.to_owned())
}

/// A description: plain text, at most [`DESCRIPTION_MAX`] characters; line breaks and
/// tabs allowed, other control characters not.
pub fn check_description(d: &str) -> Result<String, String> {
    if d.chars().count() > DESCRIPTION_MAX {
        return Err(format!("A tag's description is at most {DESCRIPTION_MAX} characters."));
    }
    if d.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) {
        return Err("A tag's description may not hold control characters.".into());
    }
    Ok(d.to_owned())
}

/// A colour: `#rrggbb` (or `#rgb`), stored lower-case; what the kit's chip hands to
/// `getContrastText`, which throws on anything else.
pub fn check_color(c: &str) -> Result<String, String> {
    let hex = c.strip_prefix('#').unwrap_or("");
    if matches!(hex.len(), 3 | 6) && hex.chars().all(|h| h.is_ascii_hexdigit()) {
        Ok(c.to_ascii_lowercase())
    } else {
        Err(format!("color {c:?} must be a hexadecimal colour such as \"#3f51b5\"."))
    }
}

/// `{"record":"tag","id":1,"name":"Mentor","color":"#3f51b5"}`: a user tag with the
/// API's fields and rules (`description`, `color`, `visible`, `visibility_boost`,
/// `active`, `deleted`; `type` "user" only) and `created_at`.
#[derive(Debug, serde::Deserialize)]
pub struct TagLine {
    pub id: i64,
    #[serde(default, deserialize_with = "super::import::time")]
    pub created_at: Option<Timestamp>,
    /// The body's fields.
    #[serde(flatten)]
    pub body: Map<String, Value>,
}

impl TagLine {
    /// The tag this line holds, by the API's rules.
    pub fn to_tag(&self, now: Timestamp) -> Result<Tag, String> {
        let input = TagInput::parse(&self.body, true).map_err(|errors| {
            errors
                .iter()
                .map(|e| {
                    let m = e.messages.first().map_or("", |m| m.message.as_str());
                    format!("{}: {m}", e.field)
                })
                .collect::<Vec<_>>()
                .join("; ")
        })?;
        let mut tag = input.new_tag(self.created_at.unwrap_or(now));
        tag.id = self.id;
        Ok(tag)
    }
}

/// `{"record":"user_tag","user":2,"tag":1}`: user 2 holds tag 1.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserTagLine {
    pub user: i64,
    pub tag: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn create_needs_a_name_and_checks_each_field() {
        assert!(TagInput::parse(&obj(json!({})), true).is_err_and(|e| e[0].field == "name"));
        let e = TagInput::parse(
            &obj(json!({"name": " ", "color": "red", "visible": 3, "type": "category", "x": 1})),
            true,
        )
        .err()
        .unwrap_or_default();
        let fields: Vec<&str> = e.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["x", "name", "type", "color", "visible"]);
        let ok = TagInput::parse(&obj(json!({"name": " VIP ", "color": "#ABCDEF"})), true);
        assert_eq!(ok.map(|i| (i.name, i.color)), Ok((Some("VIP".into()), Some("#abcdef".into()))));
    }

    #[test]
    fn patch_changes_only_what_it_names() {
        let t = TagInput { name: Some("a".into()), ..TagInput::default() }.new_tag(5);
        let p = TagInput::parse(&obj(json!({"active": false})), false).unwrap_or_default();
        let t2 = p.apply(t.clone());
        assert_eq!((t2.name.as_str(), t2.active, t2.color.as_str()), ("a", false, DEFAULT_COLOR));
        assert!(t.to_json().created_at.is_some());
    }

    #[test]
    fn colours_are_hex() {
        assert!(check_color("#fff").is_ok());
        assert!(check_color("#12345g").is_err());
        assert!(check_color("javascript:").is_err());
    }

    #[test]
    fn every_documented_field_is_read() {
        let unread = crate::model::field::unread_properties::<TagInput>(|m| {
            TagInput::parse(m, true).err().unwrap_or_default()
        });
        assert!(unread.is_empty(), "{unread:?}");
        // the first fault only: each property alone
        let assign = crate::model::field::unread_properties_each::<TagAssign>(|m| {
            TagAssign::parse(m).err().into_iter().collect()
        });
        assert!(assign.is_empty(), "{assign:?}");
    }
}
