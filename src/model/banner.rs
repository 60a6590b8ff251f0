//! Broadcast banners (SPEC §10, `SCBroadcastMessageType`): staff's messages to every
//! member, made with `hearth banner create`. Their texts are plain text (the kit puts
//! them in text nodes) and their link follows the safe-links rule.

use serde_json::{Value, json};

use crate::clock::{Timestamp, rfc3339};

/// The longest title, in characters.
pub const TITLE_MAX: usize = 200;
/// The longest body, in characters.
pub const BODY_MAX: usize = 2000;

/// A banner as a member sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner {
    pub id: i64,
    pub title: String,
    pub body_text: String,
    pub link: String,
    pub link_text: String,
    pub open_in_new_tab: bool,
    pub created_at: Timestamp,
    /// When the member saw it (marked read).
    pub viewed_at: Option<Timestamp>,
    /// When the member dismissed it.
    pub disposed_at: Option<Timestamp>,
}

impl Banner {
    /// `SCBroadcastMessageType`.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "added_at": rfc3339(self.created_at),
            "viewed_at": self.viewed_at.map(rfc3339),
            "disposed_at": self.disposed_at.map(rfc3339),
            "banner": {
                "type_banner": "notification_banner",
                "title": self.title,
                "body_text": self.body_text,
                "link": self.link,
                "link_text": self.link_text,
                "open_in_new_tab": self.open_in_new_tab,
                "added_at": rfc3339(self.created_at),
            },
        })
    }
}

/// Checks a new banner's texts and link.
pub fn check(title: &str, body: &str, link: &str, link_text: &str) -> Result<(), String> {
    let n = title.trim().chars().count();
    if n == 0 || n > TITLE_MAX {
        return Err(format!("a banner's title must be 1 to {TITLE_MAX} characters"));
    }
    if body.chars().count() > BODY_MAX {
        return Err(format!("a banner's body may hold at most {BODY_MAX} characters"));
    }
    if [title, link_text].iter().any(|t| t.chars().any(char::is_control)) {
        return Err("a banner's title and link text may not hold control characters".into());
    }
    if !link.is_empty() && !super::link::is_safe(link) {
        return Err(format!(
            "banner link {link:?} must be an http(s) URL or a path that starts with /"
        ));
    }
    if link.is_empty() != link_text.trim().is_empty() {
        return Err("a banner's link and link text go together".into());
    }
    Ok(())
}
