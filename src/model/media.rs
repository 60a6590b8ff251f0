//! Media (SPEC §5 images; `SCMediaType`): a picture a member uploaded through the kit's
//! chunked uploader, what an event's gallery shows, and the rules of an upload.

use serde::Serialize;
use serde_json::{Map, Value};

use super::PublicUrl;
use super::field::FieldError;
use crate::clock::{SECOND, Timestamp, rfc3339};

/// The most bytes one upload may have (the image pipeline's own limit).
pub const UPLOAD_MAX: i64 = crate::images::MAX_BYTES as i64;
/// How long an unfinished upload is kept: its chunks go after that.
pub const UPLOAD_TTL: Timestamp = 24 * 3600 * SECOND;
/// The most unfinished uploads a member has at once (a new one beyond that is 429).
pub const OPEN_UPLOADS_MAX: i64 = 20;
/// The most pictures one event's gallery holds.
pub const GALLERY_MAX: i64 = 1000;

/// The most pictures one discussion or post shows.
pub const ITEM_MEDIAS_MAX: usize = 20;

/// A write's `medias` (`Ok(None)` when absent or null): a list of at most
/// [`ITEM_MEDIAS_MAX`] media ids, duplicates dropped.
pub fn medias_field(body: &Map<String, Value>) -> Result<Option<Vec<i64>>, FieldError> {
    let items = match body.get("medias") {
        None | Some(Value::Null) => return Ok(None),
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

/// A stored picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaItem {
    pub id: i64,
    pub owner_id: i64,
    pub title: String,
    /// Its path under `/media/`.
    pub path: String,
    pub mimetype: String,
    pub width: i64,
    pub height: i64,
    pub size: i64,
    pub created_at: Timestamp,
}

/// Media JSON (`SCMediaType`): `image` and `url` are the picture's absolute URL.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = Media)]
pub struct MediaJson {
    pub id: i64,
    #[schema(format = DateTime)]
    pub added_at: String,
    /// Always `image`: hearth takes pictures only
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub title: String,
    pub description: String,
    pub url: String,
    pub image: String,
    pub image_width: i64,
    pub image_height: i64,
    pub image_mimetype: String,
    pub mimetype: String,
    pub size: i64,
    pub order: i64,
}

impl MediaItem {
    /// Its JSON.
    pub fn to_json(&self, base: &PublicUrl) -> MediaJson {
        let url = base.at(&format!("/media/{}", self.path));
        MediaJson {
            id: self.id,
            added_at: rfc3339(self.created_at),
            kind: "image",
            title: self.title.clone(),
            description: String::new(),
            url: url.clone(),
            image: url,
            image_width: self.width,
            image_height: self.height,
            image_mimetype: self.mimetype.clone(),
            mimetype: self.mimetype.clone(),
            size: self.size,
            order: 0,
        }
    }
}

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
