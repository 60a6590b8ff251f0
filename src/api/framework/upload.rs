//! Bodies that may carry an image (a course's `image_original`, a member's `avatar`):
//! JSON, or `multipart/form-data` with the same fields, list fields as `categories[0]`,
//! `categories[1]`… or repeated `categories`, and an optional file in one named field.
//! Both become one JSON object for the area's parser; the file goes through the image
//! pipeline ([`crate::images`]) under the request memory budget.

use std::collections::BTreeMap;

use bytes::Bytes;
use serde_json::{Map, Value};
use warp::http::HeaderMap;

use crate::error::ApiError;
use crate::http::body::{Body, MULTIPART_LIMIT, json, media_type};
use crate::images::{self, ImageError, Picture, Shape, Squares};
use crate::limits::budget::{Budget, Permit};
use crate::model::field::FieldError;

/// An uploaded image, with the share of the memory budget that the body it came in
/// holds (kept until the image is processed).
#[derive(Debug)]
pub struct Upload {
    /// The file's bytes.
    pub bytes: Bytes,
    /// The body's memory.
    pub held: Option<Permit>,
}

/// What a form carries besides text fields: the field of its one file, and the fields
/// that are lists.
#[derive(Debug, Clone, Copy)]
pub struct Form {
    /// The file field (`image_original`, `avatar`).
    pub file: &'static str,
    /// The list fields (`categories`...).
    pub lists: &'static [&'static str],
}

/// Reads a body: the fields as a JSON object, and the uploaded image if any.
pub async fn read(
    body: Body,
    headers: &HeaderMap,
    form_shape: Form,
) -> Result<(Map<String, Value>, Option<Upload>), ApiError> {
    let (map, mut files, held) =
        read_files(body, headers, form_shape.lists, &[form_shape.file]).await?;
    Ok((map, files.pop().flatten().map(|bytes| Upload { bytes, held })))
}

/// Whether a request's body is a form (`multipart/form-data`) rather than JSON.
pub fn is_form(headers: &HeaderMap) -> bool {
    media_type(headers).as_deref() == Some("multipart/form-data")
}

/// Reads a body whose form may carry several files (a group's avatar and cover): the
/// fields as a JSON object, each of `files`' uploads (in that order, `None` when not
/// sent), and the body's memory, which the caller keeps until the images are made.
pub async fn read_files(
    body: Body,
    headers: &HeaderMap,
    list_fields: &[&str],
    files: &[&str],
) -> Result<(Map<String, Value>, Vec<Option<Bytes>>, Option<Permit>), ApiError> {
    let mut uploads = vec![None; files.len()];
    if !is_form(headers) {
        return match json::<Value>(body, headers).await? {
            Value::Object(m) => Ok((m, uploads, None)),
            _ => Err(ApiError::ParseError("expected a JSON object".into())),
        };
    }
    let content_type =
        headers.get(warp::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let boundary = multer::parse_boundary(content_type)
        .map_err(|e| ApiError::ParseError(format!("multipart: {e}")))?;
    let (bytes, held) = body.read(headers, MULTIPART_LIMIT).await?.into_parts();
    let stream = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(bytes) });
    let mut form = multer::Multipart::new(stream, boundary);
    let mut map = Map::new();
    let mut lists: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let bad = |e: multer::Error| ApiError::ParseError(format!("multipart: {e}"));
    while let Some(field) = form.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or("").to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let data = field.bytes().await.map_err(bad)?;
        if let Some(file_name) = file_name {
            // an empty file input sends an empty part without a name: no upload
            if let Some(i) = files.iter().position(|f| *f == name)
                && !(file_name.is_empty() && data.is_empty())
            {
                uploads[i] = Some(data);
            }
            continue;
        }
        let Ok(text) = String::from_utf8(data.to_vec()) else {
            return Err(ApiError::field(name, "invalid", "Not valid UTF-8 text."));
        };
        // `categories[0]` and repeated `categories` both collect into a list
        let key = match name.split_once('[') {
            Some((k, rest)) if rest.ends_with(']') => k.to_owned(),
            _ => name,
        };
        if list_fields.contains(&key.as_str()) {
            lists.entry(key).or_default().push(text);
        } else {
            map.insert(key, Value::String(text));
        }
    }
    for (k, mut v) in lists {
        // one value may itself be a list ("[1,2]" or "1,2"): CourseInput reads both
        let value = if v.len() == 1 {
            Value::String(v.remove(0))
        } else {
            Value::Array(v.into_iter().map(Value::String).collect())
        };
        map.insert(k, value);
    }
    Ok((map, uploads, held))
}

/// A text field of a form (trimmed; a number as its digits; empty: none).
pub fn text(map: &Map<String, Value>, name: &str) -> Option<String> {
    match map.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Image jobs running at once. Their memory is counted against the request budget
/// (each takes its [`images::Plan::peak`]: 36 MiB for any PNG, 221 MiB for an
/// 8000×8000 baseline JPEG, more for progressive JPEG and WebP; measured in
/// [`crate::images`]); this bound is for the CPU, which a decode keeps busy for up to a
/// second.
const IMAGE_JOBS: usize = 2;
static IMAGE_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(IMAGE_JOBS);

fn invalid(errors: &mut Vec<FieldError>, field: &str, e: &ImageError) {
    errors.push(FieldError::new(field, "invalid", e.to_string()));
}

/// Decodes an upload and makes its squares off the async workers; a bad image becomes
/// a field error on `field` (reported with the body's other errors). The
/// decode's estimated peak memory is taken from `budget` for as long as it runs: 503
/// `service_unavailable` when the budget cannot give it now, 400 when it never could.
pub async fn process_image(
    image: Option<Upload>,
    field: &str,
    budget: &Budget,
    errors: &mut Vec<FieldError>,
) -> Result<Option<Squares>, ApiError> {
    process(image, field, budget, errors, Shape::Square, images::squares_of).await
}

/// [`process_image`] for a picture (a gallery's, an item's): the whole image, at most
/// [`images::PICTURE_SIDE`] a side.
pub async fn process_picture(
    image: Option<Upload>,
    field: &str,
    budget: &Budget,
    errors: &mut Vec<FieldError>,
) -> Result<Option<Picture>, ApiError> {
    process(image, field, budget, errors, Shape::Whole, images::picture_of).await
}

async fn process<T: Send + 'static>(
    image: Option<Upload>,
    field: &str,
    budget: &Budget,
    errors: &mut Vec<FieldError>,
    shape: Shape,
    make: fn(&[u8], &images::Plan) -> Result<T, ImageError>,
) -> Result<Option<T>, ApiError> {
    let Some(Upload { bytes, held }) = image else {
        return Ok(None);
    };
    // the header alone: cheap, and it refuses most bad uploads before any waiting
    let plan = match images::plan_for(&bytes, shape) {
        Ok(p) => p,
        Err(e) => {
            invalid(errors, field, &e);
            return Ok(None);
        }
    };
    // the body this upload came in is held while it decodes: what is left is the most
    // a decode can ever have
    let limit = budget.total().saturating_sub(held.as_ref().map_or(0, Permit::bytes));
    if plan.peak > limit {
        invalid(
            errors,
            field,
            &ImageError::TooMuchMemory {
                width: plan.width,
                height: plan.height,
                needed: plan.peak,
                limit,
            },
        );
        return Ok(None);
    }
    let _slot =
        IMAGE_SLOTS.acquire().await.map_err(|e| ApiError::internal(format!("image slots: {e}")))?;
    let decoding = budget.take(plan.peak)?;
    let span = tracing::Span::current();
    let result = tokio::task::spawn_blocking(move || {
        let _entered = span.enter();
        let made = make(&bytes, &plan);
        // the upload and the decode's share go back as soon as the job ends
        drop((bytes, held, decoding));
        made
    })
    .await
    .map_err(|e| ApiError::internal(format!("image task: {e}")))?;
    match result {
        Ok(s) => Ok(Some(s)),
        Err(ImageError::Encode(e)) => Err(ApiError::internal(format!("image encode: {e}"))),
        Err(e) => {
            invalid(errors, field, &e);
            Ok(None)
        }
    }
}
