//! Domain types and the JSON shapes the API returns. Depends on nothing above it.

pub mod app;
pub mod archive;
pub mod avatar;
pub mod banner;
pub mod body_fields;
pub mod boolean;
pub mod category;
pub mod community;
pub mod connection;
pub mod contribution;
pub mod contribution_body;
pub mod contribution_kind;
pub mod course;
pub mod course_enums;
pub mod course_input;
pub mod course_lesson;
pub mod custom_adv;
pub mod custom_import;
pub mod custom_menu;
pub mod custom_page;
pub mod event;
pub mod event_import;
pub mod event_input;
pub mod event_time;
pub mod feature;
pub mod feed;
pub mod field;
pub mod flag;
pub mod group;
pub mod html;
pub mod ids;
pub mod import;
pub mod legal;
pub mod link;
pub mod listing;
pub mod media;
pub mod message;
pub mod onboarding;
pub mod poll;
pub mod poll_import;
pub mod preference;
pub mod profile;
pub mod reaction;
pub mod rich_text;
pub mod settings;
pub mod slug;
pub mod tag;
pub mod user;
pub mod user_provider;
pub mod vote;

/// Writes `value` into `field` when there is one: how an update applies its optional
/// changes.
pub fn update<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// The public base URL (scheme, host, port; no trailing slash) that absolute URLs in
/// responses are built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(pub String);

impl PublicUrl {
    /// An absolute URL for a local path (which starts with `/`).
    pub fn at(&self, path: &str) -> String {
        // two appends into one allocation (`format!` cost 3% of a followings page)
        let mut url = String::with_capacity(self.0.len() + path.len());
        url.push_str(&self.0);
        url.push_str(path);
        url
    }

    /// `value` when it is already absolute; hearth's own URL for a local path; the
    /// default for an empty value.
    pub fn resolve(&self, value: &str, default_path: &str) -> String {
        if value.is_empty() {
            self.at(default_path)
        } else if value.starts_with('/') {
            self.at(value)
        } else {
            value.to_owned()
        }
    }
}
