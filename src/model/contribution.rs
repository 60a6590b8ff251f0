//! Contributions (SPEC §5): discussions, posts, statuses and comments. The four kinds
//! share one shape, one table and one set of handlers, parameterised by [`Kind`]; this
//! module holds the kind, the stored form, the JSON shape and the body validation that
//! needs no database.

use serde::Serialize;
use serde_json::{Map, Value};

use super::PublicUrl;
use super::category::{Category, CategoryJson};
use super::field::FieldError;
use super::ids::{self, ListError};
use super::reaction::ReactionJson;
use super::rich_text::Rendered;
use super::user::{User, UserMinimal};
use super::vote::{ReactionCount, Votes, reaction_json};
use crate::clock::{Timestamp, rfc3339};

/// Longest discussion title, in characters.
pub const TITLE_MAX: usize = 250;
/// Longest text, in bytes: what a JSON body of the API (1 MiB, SPEC §6) can carry; the
/// importer holds its lines to it too.
pub const TEXT_MAX: usize = 1 << 20;
/// How much of the title a discussion's `slug` is made from, in characters (a slug has
/// at most 100; this bounds the work on a long title).
pub const SLUG_SOURCE_LEN: usize = 1000;

pub use super::contribution_kind::Kind;

/// A contribution as stored, with its author and categories.
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    /// Internal primary key.
    pub pk: i64,
    /// Kind.
    pub kind: Kind,
    /// The API id (per kind).
    pub id: i64,
    /// The author, as their minimal JSON shows them (`db::users::BRIEF`).
    pub author: User,
    /// Discussions only.
    pub title: Option<String>,
    /// Statuses only.
    pub action: Option<String>,
    /// Body text, as the client sent it.
    pub text: String,
    /// Its rich-text forms (SPEC §5), rendered when it was written.
    pub rendered: Rendered,
    /// Creation time.
    pub added_at: Timestamp,
    /// Last edit, if ever edited.
    pub last_edited_at: Option<Timestamp>,
    /// Soft-deleted.
    pub deleted: bool,
    /// Collapsed by a moderator (SPEC §10 People).
    pub collapsed: bool,
    /// Live comments on it.
    pub comment_count: i64,
    /// For comments: the kind and id of the contribution it belongs to.
    pub target: Option<(Kind, i64)>,
    /// For comments: the id of the parent comment.
    pub parent: Option<i64>,
    /// Its categories.
    pub categories: Vec<Category>,
    /// Its votes, as the caller sees them.
    pub votes: Votes,
    /// The group it was made in (a comment: its item's), and as the caller sees it.
    pub group_id: Option<i64>,
    pub group: Option<super::group::GroupSeen>,
    /// The event it was made in (a comment: its item's), and as the caller sees it.
    pub event_id: Option<i64>,
    pub event: Option<super::event::EventSeen>,
    /// Discussions and posts: its poll, with the caller's votes.
    pub poll: Option<super::poll::PollJson>,
    /// Discussions and posts: the tags it is addressed to (`SCTagType`), by id.
    pub addressing: Vec<super::tag::TagJson>,
    /// Discussions and posts: the media it shows (pictures, links, a share), in order.
    pub medias: Vec<super::media::MediaItem>,
    /// Whether the caller stopped its notifications about this item (`suspended`).
    pub suspended: bool,
    /// How many members follow it, and whether the caller does.
    pub follower_count: i64,
    /// How many live items share it.
    pub share_count: i64,
    pub followed: bool,
    /// The later of its creation and its newest live comment (a comment's: its newest
    /// live reply).
    pub last_activity_at: Timestamp,
    /// A top-level comment's newest live replies, oldest of them first.
    pub latest_comments: Vec<Contribution>,
}

/// SPEC §5's object JSON, with the fields the platform's UI kit reads (SPEC §8).
/// Kind-specific fields are present only for their kind (`title` for discussions,
/// `action` for statuses, the four ids, `in_reply_to` and `latest_comments` for
/// comments, null when absent). What hearth does not keep (views, shares, flags,
/// followers of an item, media, polls, tags, places, events) is always there,
/// with the value that is true of it: nothing.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Contribution)]
pub struct ContributionJson {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub author: UserMinimal,
    /// RFC 3339 UTC with microseconds
    #[schema(format = DateTime)]
    pub added_at: String,
    /// null when never edited
    #[schema(format = DateTime)]
    pub last_edited_at: Option<String>,
    pub last_activity_at: String,
    pub slug: String,
    /// The text as the client sent it: plain text, or the HTML of the kit's editors
    pub text: String,
    /// The text as safe HTML: HTML (a text that opens with a tag) through hearth's
    /// allowlist sanitizer (what the kit's editors produce: paragraphs, headings, bold,
    /// italic, underline, strike, code, links with http/https/mailto targets and
    /// rel="nofollow noopener noreferrer", lists, quotes, images with http(s) sources,
    /// the SCEditor-* classes, dir, the kit's mention and hashtag elements); plain text
    /// escaped, its line breaks as <br>
    pub html: String,
    /// Plain text: no markup, whitespace collapsed, the first 200 characters, no
    /// ellipsis; &, < and > written as &amp;, &lt; and &gt; (no other entity), so that
    /// it is never markup where the kit puts it into a page as HTML (its snippets do)
    pub summary: String,
    /// The safe HTML of the summary's excerpt, its tags closed
    pub summary_html: String,
    /// Whether the text is longer than the summary
    pub summary_truncated: bool,
    pub deleted: bool,
    pub collapsed: bool,
    pub suspended: bool,
    pub categories: Vec<CategoryJson>,
    /// Live comments on this item (replies included)
    pub comment_count: i64,
    pub vote_count: i64,
    pub reactions_count: Vec<ReactionCount>,
    pub voted: bool,
    pub reaction: Option<ReactionJson>,
    pub view_count: i64,
    pub share_count: i64,
    pub flag_count: i64,
    pub follower_count: i64,
    pub followed: bool,
    /// The media it shows (Media JSON: pictures, links, a share), in its order (`order`)
    pub medias: Vec<super::media::MediaJson>,
    pub addressing: Vec<Value>,
    pub tags: Vec<Value>,
    pub location: Option<Value>,
    pub poll: Option<Value>,
    /// The group it was made in (Group JSON as the caller sees it); null for none
    pub group: Option<Value>,
    /// The event it was made in (Event JSON as the caller sees it); null for none
    pub event: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discussion: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<Option<i64>>,
    /// Comments: a top-level comment's newest live replies (at most 3), oldest of
    /// them first; the rest are read with `GET /api/v2/comment/?parent={id}`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest_comments: Option<Vec<Value>>,
}

impl Contribution {
    /// The object JSON at `now` (`voted` and `reaction` for the caller whose votes
    /// [`Contribution::votes`] holds; its event's next date and `running` at `now`).
    pub fn to_json(&self, base: &PublicUrl, now: Timestamp) -> ContributionJson {
        let is_comment = self.kind == Kind::Comment;
        let target_id =
            |k: Kind| is_comment.then(|| self.target.filter(|(tk, _)| *tk == k).map(|(_, id)| id));
        ContributionJson {
            id: self.id,
            kind: self.kind.as_str(),
            author: self.author.minimal(base),
            added_at: rfc3339(self.added_at),
            last_edited_at: self.last_edited_at.map(rfc3339),
            last_activity_at: rfc3339(self.last_activity_at.max(self.added_at)),
            slug: self.slug(),
            text: self.text.clone(),
            html: self.rendered.html.clone(),
            summary: self.rendered.summary.clone(),
            summary_html: self.rendered.summary_html.clone(),
            summary_truncated: self.rendered.summary_truncated,
            deleted: self.deleted,
            collapsed: self.collapsed,
            suspended: self.suspended,
            categories: self.categories.iter().map(|c| c.to_json(base)).collect(),
            comment_count: self.comment_count,
            vote_count: self.votes.count(),
            reactions_count: self.votes.reactions_count(base),
            voted: self.votes.mine.is_some(),
            reaction: self.votes.mine.as_ref().map(|r| reaction_json(base, r)),
            view_count: 0,
            share_count: self.share_count,
            flag_count: 0,
            follower_count: self.follower_count,
            followed: self.followed,
            medias: self.medias.iter().zip(0..).map(|(m, i)| m.to_json(base).at(i)).collect(),
            addressing: self
                .addressing
                .iter()
                .filter_map(|t| serde_json::to_value(t).ok())
                .collect(),
            tags: Vec::new(),
            location: None,
            poll: self.poll.as_ref().and_then(|p| serde_json::to_value(p).ok()),
            group: self.group.as_ref().and_then(|g| serde_json::to_value(g.to_json(base)).ok()),
            event: self
                .event
                .as_ref()
                .and_then(|e| serde_json::to_value(e.to_json(base, now)).ok()),
            title: (self.kind == Kind::Discussion).then(|| self.title.clone().unwrap_or_default()),
            action: (self.kind == Kind::Status).then(|| self.action.clone().unwrap_or_default()),
            discussion: target_id(Kind::Discussion),
            post: target_id(Kind::Post),
            status: target_id(Kind::Status),
            parent: is_comment.then_some(self.parent),
            in_reply_to: is_comment.then_some(None),
            latest_comments: is_comment.then(|| {
                self.latest_comments
                    .iter()
                    .map(|c| serde_json::to_value(c.to_json(base, now)).unwrap_or(Value::Null))
                    .collect()
            }),
        }
    }

    /// The slug: from a discussion's title, from the plain text of the others (its
    /// summary: never from markup), as course slugs are made; the kind's name when
    /// nothing is left.
    pub fn slug(&self) -> String {
        let source = match (&self.title, self.kind) {
            (Some(t), Kind::Discussion) if !t.is_empty() => t.as_str(),
            _ => &super::rich_text::summary_text(&self.rendered.summary),
        };
        let head: String = source.chars().take(SLUG_SOURCE_LEN).collect();
        super::slug::slugify(&head, self.kind.as_str())
    }
}

/// A create body that passed the checks that need no database.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    /// Discussions: the trimmed title.
    pub title: Option<String>,
    /// Statuses: the action (`""` when absent).
    pub action: Option<String>,
    /// The text.
    pub text: String,
    /// Category ids, deduplicated, in the order given.
    pub categories: Vec<i64>,
    /// Comments: what it belongs to.
    pub target: Option<(Kind, i64)>,
    /// Comments: the parent comment id.
    pub parent: Option<i64>,
    /// Discussions and posts: the group it is made in (SPEC §10 Groups).
    pub group: Option<i64>,
    /// Discussions and posts: the event it is made in (SPEC §10 Events).
    pub event: Option<i64>,
    /// Discussions and posts: its poll.
    pub poll: Option<super::poll::PollInput>,
    /// Discussions and posts: the tag ids it is addressed to, deduplicated.
    pub addressing: Vec<i64>,
    /// Discussions and posts: the ids of the media it shows, in order (`None`: the
    /// body has no `medias`, which an edit leaves as they are).
    pub medias: Option<Vec<i64>>,
}

pub use super::ids::id_value;

/// A string field: `Ok(None)` when absent, an error when null or not a string.
fn text_field(
    body: &Map<String, Value>,
    name: &str,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    match body.get(name) {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) => {
            errors.push(FieldError::new(name, "null", "This field may not be null."));
            None
        }
        Some(_) => {
            errors.push(FieldError::new(name, "invalid", "Not a valid string."));
            None
        }
    }
}

/// A required, non-blank string field.
fn required_text(
    body: &Map<String, Value>,
    name: &str,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    let present = body.contains_key(name);
    match text_field(body, name, errors) {
        Some(s) if !s.trim().is_empty() => Some(s),
        Some(_) => {
            errors.push(FieldError::new(name, "required", "This field may not be blank."));
            None
        }
        None => {
            if !present {
                errors.push(FieldError::required(name));
            }
            None
        }
    }
}

/// An optional id field (null counts as absent).
fn id_field(body: &Map<String, Value>, name: &str, errors: &mut Vec<FieldError>) -> Option<i64> {
    match body.get(name) {
        None | Some(Value::Null) => None,
        Some(v) => {
            let id = id_value(v);
            if id.is_none() {
                errors.push(FieldError::new(
                    name,
                    "invalid",
                    "Must be an integer id (a number or a numeric string).",
                ));
            }
            id
        }
    }
}

/// Checks a create body for `kind` as far as it can without the database: types,
/// required fields, lengths, and comment targets. Every field error is collected
/// (the caller adds the database ones, [`missing_categories`] among them, and answers
/// them all at once). Runs before the write transaction: nothing here needs it.
pub fn validate(kind: Kind, body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
    check(kind, body, false)
}

/// Checks an edit body (`PUT /{kind}/{id}/`) as [`validate`] checks a create body, but
/// for what an edit cannot change: a comment's item and parent are not read.
pub fn validate_edit(kind: Kind, body: &Map<String, Value>) -> (Draft, Vec<FieldError>) {
    check(kind, body, true)
}

fn check(kind: Kind, body: &Map<String, Value>, edit: bool) -> (Draft, Vec<FieldError>) {
    let mut errors = Vec::new();
    let mut draft = Draft::default();
    match kind {
        Kind::Discussion => {
            let title = required_text(body, "title", &mut errors).map(|t| t.trim().to_owned());
            if let Some(t) = &title
                && t.chars().count() > TITLE_MAX
            {
                errors.push(FieldError::new(
                    "title",
                    "max_length",
                    format!("Ensure this field has no more than {TITLE_MAX} characters."),
                ));
            }
            draft.title = title;
            draft.text = text_field(body, "text", &mut errors).unwrap_or_default();
        }
        // a post's text may be blank when it shows media or a poll (checked below)
        Kind::Post => draft.text = text_field(body, "text", &mut errors).unwrap_or_default(),
        Kind::Comment => {
            draft.text = required_text(body, "text", &mut errors).unwrap_or_default();
        }
        Kind::Status => {
            draft.text = required_text(body, "text", &mut errors).unwrap_or_default();
            // an absent or null action is the empty action
            draft.action = Some(match body.get("action") {
                None | Some(Value::Null) => String::new(),
                Some(_) => text_field(body, "action", &mut errors).unwrap_or_default(),
            });
        }
    }
    if kind == Kind::Comment && edit {
        // an edited comment stays on its item, under its parent
    } else if kind == Kind::Comment {
        let given: Vec<(Kind, i64)> = Kind::TARGETS
            .into_iter()
            .filter_map(|k| id_field(body, k.as_str(), &mut errors).map(|id| (k, id)))
            .collect();
        let named = Kind::TARGETS
            .into_iter()
            .filter(|k| body.get(k.as_str()).is_some_and(|v| !v.is_null()))
            .count();
        match (named, given.as_slice()) {
            (0, _) => errors.push(FieldError::new(
                "non_field_errors",
                "required",
                "Exactly one of discussion, post or status is required.",
            )),
            (1, [one]) => draft.target = Some(*one),
            (1, _) => {} // its own field error is already there
            _ => errors.push(FieldError::new(
                "non_field_errors",
                "invalid",
                "Give only one of discussion, post or status.",
            )),
        }
        draft.parent = id_field(body, "parent", &mut errors);
    } else {
        draft.categories = categories(body, &mut errors);
    }
    // discussions and posts may be made in a group or an event (a comment is in its
    // item's), not in both
    let group = id_field(body, "group", &mut errors);
    let event = id_field(body, "event", &mut errors);
    if matches!(kind, Kind::Discussion | Kind::Post) {
        draft.group = group;
        draft.event = event;
        if group.is_some() && event.is_some() {
            errors.push(FieldError::new(
                "event",
                "invalid",
                "An item is made in a group or in an event, not in both.",
            ));
        }
    } else {
        for (name, given) in [("group", group), ("event", event)] {
            if given.is_some() {
                errors.push(FieldError::new(
                    name,
                    "invalid",
                    format!("Only discussions and posts are in {name}s."),
                ));
            }
        }
    }
    match body.get("addressing") {
        None | Some(Value::Null) => {}
        Some(_) if !matches!(kind, Kind::Discussion | Kind::Post) => {
            errors.push(FieldError::new(
                "addressing",
                "invalid",
                "Only discussions and posts are addressed to tags.",
            ));
        }
        Some(Value::Array(items)) => match ids::from_values(items) {
            Ok(list) => draft.addressing = ids::dedup(list),
            Err(ListError::TooMany) => errors.push(ids::too_many("addressing")),
            Err(ListError::NotAnId) => errors.push(FieldError::new(
                "addressing",
                "invalid",
                "Each tag must be an integer id (a number or a numeric string).",
            )),
        },
        Some(_) => {
            errors.push(FieldError::new("addressing", "invalid", "Expected a list of tag ids."));
        }
    }
    if (draft.group.is_some() || draft.event.is_some()) && !draft.addressing.is_empty() {
        errors.push(FieldError::new(
            "addressing",
            "invalid",
            "An item made in a group or an event is addressed to it, not to tags.",
        ));
    }
    // the platform's addressing to users (`recipients`, with
    // configurations.post_user_addressing_enabled) makes an item that only they see;
    // hearth does not keep it, and an item taken without it would be public: refused
    let empty = |v: &Value| v.is_null() || v.as_array().is_some_and(Vec::is_empty);
    if body.get("recipients").is_some_and(|v| !empty(v)) {
        errors.push(FieldError::new(
            "recipients",
            "invalid",
            "Addressing an item to users is not supported: address it to tags, or send a \
             private message.",
        ));
    }
    match body.get("poll").filter(|p| !p.is_null()) {
        Some(_) if !matches!(kind, Kind::Discussion | Kind::Post) => {
            errors.push(FieldError::new(
                "poll",
                "invalid",
                "Only discussions and posts have polls.",
            ));
        }
        Some(p) => super::poll::parse(p).map_or_else(|e| errors.push(e), |p| draft.poll = Some(p)),
        None => {}
    }
    let takes_medias = matches!(kind, Kind::Discussion | Kind::Post);
    draft.medias = super::media::medias_field(body, takes_medias).unwrap_or_else(|e| {
        errors.push(e);
        None
    });
    // an edit's post is checked as it will be (its poll and kept media): by the edit
    if kind == Kind::Post && !edit && !errors.iter().any(|e| e.field == "text") {
        let shows = draft.poll.is_some() || draft.medias.as_ref().is_some_and(|m| !m.is_empty());
        errors.extend(empty_post(&draft.text, shows, body.contains_key("text")));
    }
    (draft, errors)
}

/// The error of a post with blank `text` that shows nothing else (no media, no poll):
/// `given` whether the body had `text` at all.
pub fn empty_post(text: &str, shows: bool, given: bool) -> Option<FieldError> {
    (text.trim().is_empty() && !shows).then(|| {
        if given {
            FieldError::new("text", "required", "This field may not be blank.")
        } else {
            FieldError::required("text")
        }
    })
}

fn categories(body: &Map<String, Value>, errors: &mut Vec<FieldError>) -> Vec<i64> {
    let parsed = match body.get("categories") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => ids::from_values(items),
        Some(_) => {
            errors.push(FieldError::new(
                "categories",
                "invalid",
                "Expected a list of category ids.",
            ));
            return Vec::new();
        }
    };
    match parsed {
        Ok(list) => ids::dedup(list),
        Err(ListError::TooMany) => {
            errors.push(ids::too_many("categories"));
            Vec::new()
        }
        Err(ListError::NotAnId) => {
            errors.push(FieldError::new(
                "categories",
                "invalid",
                "Each category must be an integer id (a number or a numeric string).",
            ));
            Vec::new()
        }
    }
}

/// When the preference `configurations.post_category_required_enabled` is on: the
/// error of a draft of `kind` that names no category (none when its `categories`
/// already has an error, or `kind` takes no categories).
pub fn missing_categories(kind: Kind, draft: &Draft, errors: &[FieldError]) -> Option<FieldError> {
    let takes = kind != Kind::Comment;
    let flagged = errors.iter().any(|e| e.field == "categories");
    (takes && draft.categories.is_empty() && !flagged)
        .then(|| FieldError::new("categories", "required", "At least one category is required."))
}

#[cfg(test)]
#[path = "contribution_tests.rs"]
mod tests;
