//! Legal pages (SPEC §10 People): revisions of the terms and conditions (`tec`) and of
//! the privacy policy, and a member's acknowledgement of one (`SCLegalPageType`,
//! `SCLegalPageAckType`).

use serde::Serialize;

use crate::clock::{Timestamp, rfc3339};

/// The policies a legal page belongs to.
pub const POLICIES: [&str; 2] = ["tec", "privacy"];

/// Longest title, in characters.
pub const TITLE_MAX: usize = 255;
/// Longest body, in bytes.
pub const BODY_MAX: usize = 256 * 1024;

/// A revision as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub id: i64,
    pub policy: String,
    pub title: String,
    pub html_body: String,
    pub html_summary: String,
    pub valid_from: Timestamp,
    pub valid_to: Option<Timestamp>,
    pub created_at: Timestamp,
}

/// An acknowledgement as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    pub id: i64,
    pub page_id: i64,
    pub user_id: i64,
    pub accepted_at: Option<Timestamp>,
    pub not_accepted_at: Option<Timestamp>,
}

/// Acknowledgement JSON.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = LegalPageAck)]
pub struct AckJson {
    pub id: i64,
    #[schema(format = DateTime)]
    pub accepted_at: Option<String>,
    #[schema(format = DateTime)]
    pub not_accepted_at: Option<String>,
    /// The legal page's id.
    pub custom_page: i64,
    pub user: i64,
}

impl Ack {
    /// Its JSON.
    pub fn to_json(&self) -> AckJson {
        AckJson {
            id: self.id,
            accepted_at: self.accepted_at.map(rfc3339),
            not_accepted_at: self.not_accepted_at.map(rfc3339),
            custom_page: self.page_id,
            user: self.user_id,
        }
    }
}

/// Legal page JSON.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = LegalPage)]
pub struct PageJson {
    pub id: i64,
    /// `<policy>-<id>`: the kit tells the policies apart by the slug's start.
    pub slug: String,
    pub title: String,
    /// The body as safe HTML (SPEC §5's sanitizer).
    pub html_summary: String,
    pub html_body: String,
    #[schema(format = DateTime)]
    pub valid_from: String,
    #[schema(format = DateTime)]
    pub valid_to: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Made by staff with the CLI: no user.
    pub created_by: Option<i64>,
    /// Whether it is its policy's revision in force.
    pub active: bool,
    /// The caller's acknowledgement (null: none, or an anonymous caller).
    pub ack: Option<AckJson>,
}

impl Page {
    /// Its JSON; `active` whether it is in force, `ack` the caller's.
    pub fn to_json(&self, active: bool, ack: Option<&Ack>) -> PageJson {
        PageJson {
            id: self.id,
            slug: format!("{}-{}", self.policy, self.id),
            title: self.title.clone(),
            html_summary: self.html_summary.clone(),
            html_body: self.html_body.clone(),
            valid_from: rfc3339(self.valid_from),
            valid_to: self.valid_to.map(rfc3339),
            created_at: rfc3339(self.created_at),
            created_by: None,
            active,
            ack: ack.map(Ack::to_json),
        }
    }
}
