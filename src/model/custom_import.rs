//! The custom adv and custom page records of an import (SPEC §10 "Custom ADV, menus &
//! pages"; `model::import` lists every record): what a community moving from the hosted
//! platform had in its `CustomAdv` slots and its own pages, with the API's rules (the
//! same checks as `hearth adv add` and `hearth page add`, HTML through the sanitizer).

use serde::Deserialize;

use super::custom_adv::NewAdv;
use crate::clock::Timestamp;

/// `{"record":"custom_adv","id":1,"position":"BELOW_TOPBAR","image":"https://...",
/// "link":"https://...","title":"...","embed_code":"<p>...</p>","active":true,
/// "category":2}`: the fields of `SCCustomAdvType` (`lastmod_datetime` the last change).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomAdvLine {
    pub id: i64,
    pub position: String,
    pub title: Option<String>,
    pub link: Option<String>,
    pub image: Option<String>,
    pub embed_code: Option<String>,
    #[serde(default = "yes")]
    pub active: bool,
    pub category: Option<i64>,
    #[serde(default, deserialize_with = "super::import::time")]
    pub created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "super::import::time")]
    pub lastmod_datetime: Option<Timestamp>,
}

fn yes() -> bool {
    true
}

impl CustomAdvLine {
    /// The adv, checked as staff's are ([`NewAdv::check`]).
    pub fn adv(&self) -> Result<NewAdv, String> {
        NewAdv {
            position: self.position.clone(),
            title: self.title.clone(),
            link: self.link.clone().filter(|l| !l.is_empty()),
            image: self.image.clone().filter(|i| !i.is_empty()),
            embed_code: self.embed_code.clone().filter(|c| !c.trim().is_empty()),
            active: self.active,
            category: self.category,
        }
        .check()
    }
}

/// `{"record":"custom_page","id":1,"slug":"about","title":"About us",
/// "html_body":"<p>...</p>","valid_from":"...","valid_to":null,"active":true}`: the
/// fields of `SCCustomPageType` (a `type` other than `normal` is refused: legal pages are
/// `legal_page` records); `slug` is made from the title when absent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomPageLine {
    pub id: i64,
    pub r#type: Option<String>,
    pub slug: Option<String>,
    pub title: String,
    pub html_body: String,
    #[serde(default, deserialize_with = "super::import::time")]
    pub valid_from: Option<Timestamp>,
    #[serde(default, deserialize_with = "super::import::time")]
    pub valid_to: Option<Timestamp>,
    #[serde(default = "yes")]
    pub active: bool,
    #[serde(default, deserialize_with = "super::import::time")]
    pub created_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "super::import::time")]
    pub updated_at: Option<Timestamp>,
}

impl CustomPageLine {
    /// Checks the type, title, slug, body size and window; the title, trimmed.
    pub fn check(&self) -> Result<String, String> {
        if self.r#type.as_deref().is_some_and(|t| t != "normal") {
            return Err(
                "a custom page's type must be normal (legal pages are legal_page records)".into()
            );
        }
        let title = super::custom_page::check_title(&self.title)?;
        if let Some(s) = &self.slug {
            super::custom_page::check_slug(s)?;
        }
        if self.html_body.len() > super::custom_page::BODY_MAX {
            return Err(format!("html_body is more than {} bytes", super::custom_page::BODY_MAX));
        }
        if let (Some(from), Some(to)) = (self.valid_from, self.valid_to)
            && to <= from
        {
            return Err("valid_to must be after valid_from".into());
        }
        Ok(title)
    }
}
