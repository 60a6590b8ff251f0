//! Media (SPEC §5 images; `SCMediaType`): a picture a member uploaded through the kit's
//! chunked uploader (what an event's gallery and a post show), a link or a share a
//! member made for a post, and the rules of each.

use serde::Serialize;
use serde_json::{Map, Value};

use super::PublicUrl;
use super::contribution_kind::Kind;
use super::field::FieldError;
use crate::clock::{SECOND, Timestamp, rfc3339};

/// The most bytes one upload may have (the image pipeline's own limit).
pub const UPLOAD_MAX: i64 = crate::images::MAX_BYTES as i64;
/// How long an unfinished upload is kept: its chunks go after that.
pub const UPLOAD_TTL: Timestamp = 24 * 3600 * SECOND;
/// The most unfinished uploads a member has at once (a new one beyond that is 429).
pub const OPEN_UPLOADS_MAX: i64 = 20;
/// The most links and shares a member has made that no item shows yet (more is 403
/// until one is shown, or a day has passed: the older ones go then).
pub const LOOSE_MAX: i64 = 20;
/// The most pictures one event's gallery holds.
pub const GALLERY_MAX: i64 = 1000;

/// The most pictures one discussion or post shows.
pub const ITEM_MEDIAS_MAX: usize = 20;

/// A write's `medias` (`Ok(None)` when absent or null): a list of at most
/// [`ITEM_MEDIAS_MAX`] media ids, duplicates dropped. `takes`: whether the kind shows
/// media (discussions and posts); a non-empty list for another is 400.
pub fn medias_field(
    body: &Map<String, Value>,
    takes: bool,
) -> Result<Option<Vec<i64>>, FieldError> {
    let items = match body.get("medias") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) if items.is_empty() => return Ok(takes.then(Vec::new)),
        Some(Value::Array(_)) if !takes => {
            return Err(FieldError::new(
                "medias",
                "invalid",
                "Only discussions and posts show media.",
            ));
        }
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(FieldError::new("medias", "invalid", "Expected a list of media ids."));
        }
    };
    let ids: Option<Vec<i64>> = items.iter().map(super::ids::id_value).collect();
    let ids = ids.ok_or_else(|| {
        FieldError::new(
            "medias",
            "invalid",
            "Each media must be an integer id (a number or a numeric string).",
        )
    })?;
    let ids = super::ids::dedup(ids);
    if ids.len() > ITEM_MEDIAS_MAX {
        return Err(FieldError::new(
            "medias",
            "max_length",
            format!("Ensure this field has no more than {ITEM_MEDIAS_MAX} elements."),
        ));
    }
    Ok(Some(ids))
}

/// What a media is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A picture (`path` and its sizes).
    Image,
    /// A link (`url`), shown as a card of its site's name; hearth fetches nothing.
    Url,
    /// A discussion, post or status shared (`shared`).
    Share,
}

impl MediaKind {
    /// Its `type`, as stored and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Url => "url",
            MediaKind::Share => "share",
        }
    }

    /// The kind of a stored `type`.
    pub fn parse(s: &str) -> Option<MediaKind> {
        [MediaKind::Image, MediaKind::Url, MediaKind::Share].into_iter().find(|k| k.as_str() == s)
    }
}

impl rusqlite::types::FromSql for MediaKind {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let s = v.as_str()?;
        MediaKind::parse(s).ok_or_else(|| rusqlite::types::FromSqlError::Other(s.into()))
    }
}

/// A stored media: a picture, a link or a share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaItem {
    pub id: i64,
    pub owner_id: i64,
    pub kind: MediaKind,
    pub title: String,
    /// A picture's path under `/media/` ("" for the others).
    pub path: String,
    pub mimetype: String,
    pub width: i64,
    pub height: i64,
    pub size: i64,
    pub created_at: Timestamp,
    /// A link's URL.
    pub url: Option<String>,
    /// The item a share shares: its kind and id.
    pub shared: Option<(Kind, i64)>,
}

/// Media JSON (`SCMediaType`). A picture: `image` and `url` are its absolute URL,
/// `embed` null. A link: `url` is the link, `embed` the kit's `sc_link` card (its
/// `metadata`: the URL, the site's name as `title`, no description, no images). A share:
/// `embed` is `sc_shared_object` with `metadata: {id, type}`, the item the kit then reads.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Media)]
pub struct MediaJson {
    pub id: i64,
    #[schema(format = DateTime)]
    pub added_at: String,
    /// `image`, `url` or `share`
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub title: String,
    pub description: String,
    pub url: Option<String>,
    pub image: Option<String>,
    pub image_width: Option<i64>,
    pub image_height: Option<i64>,
    pub image_mimetype: Option<String>,
    pub mimetype: Option<String>,
    pub size: Option<i64>,
    pub order: i64,
    pub embed: Option<EmbedJson>,
}

/// What a link or a share embeds (`SCEmbedType`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Embed)]
pub struct EmbedJson {
    pub id: i64,
    /// `sc_link` or `sc_shared_object`
    pub embed_type: &'static str,
    /// A link: the media's id; a share: the shared item's
    pub embed_id: String,
    pub url: Option<String>,
    /// A link: `{url, title, description, images, type: "link"}`; a share: `{id, type}`
    #[schema(value_type = Object)]
    pub metadata: Value,
}

impl MediaItem {
    /// Its JSON.
    pub fn to_json(&self, base: &PublicUrl) -> MediaJson {
        let mut j = MediaJson {
            id: self.id,
            added_at: rfc3339(self.created_at),
            kind: self.kind.as_str(),
            title: self.title.clone(),
            description: String::new(),
            url: None,
            image: None,
            image_width: None,
            image_height: None,
            image_mimetype: None,
            mimetype: None,
            size: None,
            order: 0,
            embed: None,
        };
        match (self.kind, &self.url, self.shared) {
            (MediaKind::Url, Some(url), _) => {
                j.url = Some(url.clone());
                j.embed = Some(EmbedJson {
                    id: self.id,
                    embed_type: "sc_link",
                    embed_id: self.id.to_string(),
                    url: Some(url.clone()),
                    metadata: serde_json::json!({
                        "url": url, "title": self.title, "description": "", "images": [],
                        "type": "link",
                    }),
                });
            }
            (MediaKind::Share, _, Some((kind, id))) => {
                j.embed = Some(EmbedJson {
                    id: self.id,
                    embed_type: "sc_shared_object",
                    embed_id: id.to_string(),
                    url: None,
                    metadata: serde_json::json!({"id": id, "type": kind.as_str()}),
                });
            }
            _ => {
                let url = base.at(&format!("/media/{}", self.path));
                j.url = Some(url.clone());
                j.image = Some(url);
                j.image_width = Some(self.width);
                j.image_height = Some(self.height);
                j.image_mimetype = Some(self.mimetype.clone());
                j.mimetype = Some(self.mimetype.clone());
                j.size = Some(self.size);
            }
        }
        j
    }
}

/// A link a member may show: an absolute `http` or `https` URL with a host and no
/// credentials, at most [`LINK_MAX`] characters, as the `url` crate writes it back
/// (normalised); what the kit puts in an `href` and in `new URL()`. Its card's title
/// is its host.
pub fn link(raw: &str) -> Option<(String, String)> {
    let raw = raw.trim();
    if raw.len() > LINK_MAX {
        return None;
    }
    let u = url::Url::parse(raw).ok()?;
    let host = u.host_str()?.to_owned();
    let fit = matches!(u.scheme(), "http" | "https")
        && u.username().is_empty()
        && u.password().is_none()
        && !host.is_empty();
    let url = u.to_string();
    (fit && url.len() <= LINK_MAX).then_some((url, host))
}

/// The longest link a member may show.
pub const LINK_MAX: usize = 2000;

impl MediaJson {
    /// The same, `order`th in its item.
    #[must_use]
    pub fn at(mut self, order: i64) -> MediaJson {
        self.order = order;
        self
    }
}

/// A chunk's place in its file, from a `Content-Range: bytes START-END/TOTAL` header
/// (the uploader's); no header: the body is the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRange {
    pub start: i64,
    /// The whole file's size, when the header says.
    pub total: Option<i64>,
}

impl ChunkRange {
    /// Reads the header for a chunk of `len` bytes; `None` when it is malformed or does
    /// not describe those bytes.
    pub fn parse(header: Option<&str>, len: usize) -> Option<ChunkRange> {
        let len = i64::try_from(len).ok()?;
        let Some(h) = header else { return Some(ChunkRange { start: 0, total: None }) };
        let (range, total) = h.trim().strip_prefix("bytes ")?.split_once('/')?;
        let (start, end) = range.split_once('-')?;
        let (start, end): (i64, i64) = (start.parse().ok()?, end.parse().ok()?);
        let total = if total == "*" { None } else { Some(total.parse::<i64>().ok()?) };
        let fits = start >= 0 && end - start + 1 == len && total.is_none_or(|t| end < t);
        fits.then_some(ChunkRange { start, total })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link is an absolute http(s) URL with a host and no credentials, written back
    /// normalised (what would break out of an attribute is percent-encoded); its title
    /// is its host.
    #[test]
    fn a_link_is_an_http_url_written_back_by_the_url_crate() {
        assert_eq!(
            link(" https://Bakery.EXAMPLE/a b?q=<script>\"x\"#top "),
            Some((
                "https://bakery.example/a%20b?q=%3Cscript%3E%22x%22#top".into(),
                "bakery.example".into()
            ))
        );
        assert_eq!(link("http://[::1]:8080/").map(|l| l.1), Some("[::1]".into()));
        for bad in [
            "javascript:alert(1)",
            "JAVASCRIPT:alert(1)",
            "data:text/html,x",
            "vbscript:x",
            "//bakery.example/",
            "/path",
            "https://u@bakery.example/",
            "https://u:p@bakery.example/",
            "file:///etc/passwd",
            "",
        ] {
            assert_eq!(link(bad), None, "{bad}");
        }
        let long = format!("https://a.example/{}", "é".repeat(LINK_MAX / 2));
        assert_eq!(link(&long), None);
    }

    #[test]
    fn a_content_range_must_describe_the_chunk() {
        let r = |h: &str, len| ChunkRange::parse(Some(h), len);
        assert_eq!(r("bytes 0-9/30", 10), Some(ChunkRange { start: 0, total: Some(30) }));
        assert_eq!(r("bytes 20-29/30", 10), Some(ChunkRange { start: 20, total: Some(30) }));
        assert_eq!(r("bytes 0-9/*", 10), Some(ChunkRange { start: 0, total: None }));
        assert_eq!(ChunkRange::parse(None, 5), Some(ChunkRange { start: 0, total: None }));
        for bad in
            ["bytes 0-9/30", "bytes 0-10/30", "bytes 25-34/30", "items 0-9/30", "bytes -1-8/30"]
        {
            let len = if bad == "bytes 0-9/30" { 11 } else { 10 };
            assert_eq!(r(bad, len), None, "{bad}");
        }
    }
}
