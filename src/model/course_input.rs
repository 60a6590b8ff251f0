//! The writable fields of a course body (JSON, or multipart fields as text), parsed and
//! checked without the database: what `POST`/`PUT`/`PATCH /api/v2/course/` read.

use serde_json::{Map, Value};

use super::body_fields::Fields;
use super::course::*;
use super::field::FieldError;
use super::ids;

/// The writable fields of a course body; `None` means "not in the body". Its schema is
/// the request body of the course writes (`CourseWrite`); the doc comments are its
/// descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq, utoipa::ToSchema)]
#[schema(
    as = CourseWrite,
    description = "The writable fields of a course, as JSON or as multipart/form-data text fields (booleans as true/false/1/0, lists as a JSON array, comma-separated, or repeated as name[0], name[1]...; an empty categories clears them). Read-only fields (id, deleted, join_status, created_at, created_by, member_count, image_*...) and unknown fields are ignored; null is 400 on any field but image_original. On create and PUT name and type are required; all errors are reported at once."
)]
pub struct CourseInput {
    /// 1-255 characters, unique case-insensitively (400 unique); leading and trailing
    /// spaces are trimmed.
    #[schema(min_length = 1, max_length = 255)]
    pub name: Option<String>,
    /// Lowercase letters, digits and single hyphens, at most 100 characters; unique (400
    /// unique). Absent or empty on create: made from name (Latin letters folded to
    /// ASCII, other runs of characters one -, `course` when nothing is left; -2, -3... on
    /// collision). Changing the name does not change the slug.
    #[schema(pattern = "^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$", max_length = 100)]
    pub slug: Option<String>,
    /// Free text (default empty).
    pub description: Option<String>,
    /// One of the course types; 400 invalid_choice otherwise.
    #[schema(rename = "type")]
    pub kind: Option<CourseType>,
    /// "" is the draft (the default); once another value is set it can never go back to
    /// "" (400 on privacy).
    pub privacy: Option<Privacy>,
    /// Lessons must be done in order (default false).
    pub enforce_lessons_order: Option<bool>,
    /// Managers are told of new comments (default true).
    pub new_comment_notification_enabled: Option<bool>,
    /// When true, member_count is null for callers who are not creator or manager
    /// (default false).
    pub hide_member_count: Option<bool>,
    /// The page's meta title (default empty).
    pub meta_title: Option<String>,
    /// The page's meta description (default empty).
    pub meta_description: Option<String>,
    /// The Open Graph title (default empty).
    pub og_title: Option<String>,
    /// The Open Graph description (default empty).
    pub og_description: Option<String>,
    /// The Open Graph image URL (default empty).
    pub og_image: Option<String>,
    /// Exactly the ids of the course's sections, in the new order (400 otherwise; [] on
    /// create), each once. At most 1000 items (400 max_length).
    #[schema(max_items = 1000)]
    pub sections_order: Option<Vec<i64>>,
    /// Category ids (integers or numeric strings), replacing the course's; an unknown or
    /// deleted category is 400 on categories. At most 1000 items (400 max_length).
    #[schema(max_items = 1000)]
    pub categories: Option<Vec<i64>>,
    /// `image_original` (described by [`image_field`]).
    #[schema(rename = "image_original", schema_with = image_field, required = false)]
    pub clear_image: bool,
}

/// `image_original`: null in JSON, a file in a multipart form.
fn image_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .description(Some(
            "In JSON only null: back to the default image. In multipart/form-data the image \
             file: JPEG, PNG, WebP or GIF, at most 10 MiB and 8000x8000 pixels (an empty \
             field is null). Anything else is 400.",
        ))
        .schema_type(SchemaType::from_iter([Type::Null, Type::String]))
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Binary,
        )))
        .build()
}

impl CourseInput {
    /// Reads a body (a JSON object, or multipart text fields turned into one), with
    /// every rule that needs no database: lengths, choices, the slug pattern, and
    /// `name`/`type` when `full` (create and PUT). Read-only and unknown fields are
    /// ignored. Returns the input and every problem found.
    pub fn parse(map: &Map<String, Value>, full: bool) -> (CourseInput, Vec<FieldError>) {
        let mut f = Fields::new(map);
        // read in field order (their type errors come in that order); checked as
        // choices below, where the choice errors have always come
        let (name, slug, description) = (f.text("name"), f.text("slug"), f.text("description"));
        let (kind, privacy) = (f.text("type"), f.text("privacy"));
        let mut input = CourseInput {
            name: name.map(|s| s.trim().to_owned()),
            slug: slug.map(|s| s.trim().to_owned()),
            description,
            kind: None,
            privacy: None,
            enforce_lessons_order: f.boolean("enforce_lessons_order"),
            new_comment_notification_enabled: f.boolean("new_comment_notification_enabled"),
            hide_member_count: f.boolean("hide_member_count"),
            meta_title: f.text("meta_title"),
            meta_description: f.text("meta_description"),
            og_title: f.text("og_title"),
            og_description: f.text("og_description"),
            og_image: f.text("og_image"),
            sections_order: f.id_list("sections_order"),
            categories: f.id_list("categories").map(ids::dedup),
            clear_image: false,
        };
        let mut e = f.errors;
        match map.get("image_original") {
            None => {}
            Some(Value::Null) => input.clear_image = true,
            // multipart text fields named image_original (an empty file input) and JSON
            // strings are not files
            Some(Value::String(s)) if s.is_empty() => input.clear_image = true,
            Some(_) => e.push(FieldError::new(
                "image_original",
                "invalid",
                "The submitted data was not a file. Upload it with multipart/form-data.",
            )),
        }
        match &input.name {
            Some(n) if n.is_empty() => {
                e.push(FieldError::new("name", "required", "This field may not be blank."))
            }
            Some(n) if n.chars().count() > NAME_MAX => e.push(FieldError::new(
                "name",
                "max_length",
                format!("Ensure this field has no more than {NAME_MAX} characters."),
            )),
            None if full && !map.contains_key("name") => {
                e.push(FieldError::required("name"));
            }
            _ => {}
        }
        if let Some(s) = &input.slug {
            // an empty slug means "make one from the name", as if it were absent
            if s.is_empty() {
                input.slug = None;
            } else if !super::slug::is_valid(s) {
                e.push(FieldError::new(
                    "slug",
                    "invalid",
                    "Enter a valid slug: lowercase letters, digits and single hyphens, at most 100 characters.",
                ));
            }
        }
        match kind.as_deref().map(CourseType::parse) {
            Some(Ok(k)) => input.kind = Some(k),
            Some(Err(m)) => e.push(FieldError::new("type", "invalid_choice", m)),
            None if full && !map.contains_key("type") => {
                e.push(FieldError::required("type"));
            }
            None => {}
        }
        // an order names each section once; whether they are the course's sections is
        // for the database
        if let Some(dup) = input.sections_order.as_deref().and_then(ids::first_repeat) {
            e.push(FieldError::new(
                "sections_order",
                "invalid",
                format!("Section {dup} is listed twice in sections_order."),
            ));
            input.sections_order = None;
        }
        match privacy.as_deref().map(Privacy::parse) {
            Some(Ok(p)) => input.privacy = Some(p),
            Some(Err(m)) => e.push(FieldError::new("privacy", "invalid_choice", m)),
            None => {}
        }
        (input, e)
    }

    /// Applies the input to a course (after validation).
    pub fn apply(&self, c: &mut Course) {
        use super::update;
        update(&mut c.name, self.name.clone());
        update(&mut c.slug, self.slug.clone());
        update(&mut c.description, self.description.clone());
        update(&mut c.meta_title, self.meta_title.clone());
        update(&mut c.meta_description, self.meta_description.clone());
        update(&mut c.og_title, self.og_title.clone());
        update(&mut c.og_description, self.og_description.clone());
        update(&mut c.og_image, self.og_image.clone());
        update(&mut c.kind, self.kind);
        update(&mut c.privacy, self.privacy);
        update(&mut c.enforce_lessons_order, self.enforce_lessons_order);
        update(&mut c.new_comment_notification_enabled, self.new_comment_notification_enabled);
        update(&mut c.hide_member_count, self.hide_member_count);
        update(&mut c.sections_order, self.sections_order.clone());
    }
}
