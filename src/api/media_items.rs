//! `/api/v2/media/...` (SPEC §5 images; the kit's `MediaChunkUploader`): a member sends
//! a picture in chunks, each a `multipart/form-data` body with the bytes in `image` and
//! where they lie in `Content-Range`, then completes it; the picture goes through the
//! image pipeline (decoding limits, the memory budget, re-encoded at most
//! [`crate::images::PICTURE_SIDE`] a side, nothing of the upload kept but its pixels)
//! and becomes a media item that an event's gallery can show.

use md5::Digest;
use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, write};
use crate::api::upload::{self, Form, text};
use crate::clock::rfc3339;
use crate::db::media_items::{self, Refused};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::field::FieldError;
use crate::model::media::ChunkRange;

/// The form field that carries a chunk (the uploader's `paramName` for pictures).
const FORM: Form = Form { file: "image", lists: &[] };

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::POST, "/api/v2/media/upload/chunk/", "uploadMediaChunk", chunk)
            .body::<ChunkForm>(),
        write(Method::POST, "/api/v2/media/upload/complete/", "completeMediaUpload", complete)
            .body::<Completion>(),
        ca(Method::GET, "/api/v2/media/{id}/", "getMediaItem", get),
        write(Method::DELETE, "/api/v2/media/{id}/", "deleteMediaItem", delete),
    ]
}

/// A refused step as the API answers it.
fn refused(r: Refused) -> ApiError {
    match r {
        Refused::Unknown => ApiError::field("upload_id", "invalid", "No such upload of yours."),
        Refused::Offset { expected } => ApiError::field(
            "upload_id",
            "invalid",
            format!("This chunk must start at byte {expected} (Content-Range)."),
        ),
        Refused::TooLarge => ApiError::field(
            "image",
            "invalid",
            format!("A picture has at most {} bytes.", crate::images::MAX_BYTES),
        ),
        Refused::Incomplete => {
            ApiError::field("upload_id", "invalid", "The upload is missing some of its bytes.")
        }
        Refused::TooMany => ApiError::Refused(
            "You have too many unfinished uploads: complete them, or wait a day for them to expire.",
        ),
    }
}

/// The body of a chunk (multipart/form-data); where it lies in the file is the
/// `Content-Range: bytes START-END/TOTAL` header's (none: the whole file).
#[derive(utoipa::ToSchema)]
#[schema(as = MediaUploadChunk)]
struct ChunkForm {
    /// The chunk's bytes (required); each chunk starts where the ones before end.
    #[schema(value_type = String, format = Binary)]
    image: bytes::Bytes,
    /// The upload, from its first chunk's answer (none: a new upload).
    upload_id: Option<String>,
}

impl ChunkForm {
    fn parse(
        map: &Map<String, Value>,
        file: Option<upload::Upload>,
    ) -> Result<ChunkForm, ApiError> {
        let image = file.map(|f| f.bytes).ok_or_else(|| {
            ApiError::Invalid(vec![FieldError::new("image", "required", "No chunk was sent.")])
        })?;
        Ok(ChunkForm { image, upload_id: text(map, "upload_id") })
    }
}

/// `POST /api/v2/media/upload/chunk/` (write; multipart): `image` holds the chunk,
/// `upload_id` the upload (none: a new one), `Content-Range: bytes START-END/TOTAL`
/// where it lies (none: the whole file). Each chunk starts where the ones before end.
/// → `{upload_id, offset, expires}` (`offset`: the bytes received so far).
async fn chunk(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let range = call
        .req
        .headers
        .get(warp::http::header::CONTENT_RANGE)
        .map(|v| v.to_str().unwrap_or("?").to_owned());
    let parsed =
        upload::read(call.take_body(), &call.req.headers, FORM).await.and_then(|(map, file)| {
            let ChunkForm { image, upload_id } = ChunkForm::parse(&map, file)?;
            let range = ChunkRange::parse(range.as_deref(), image.len()).ok_or_else(|| {
                ApiError::field("image", "invalid", "Content-Range does not describe this chunk.")
            })?;
            Ok((upload_id, range, image))
        });
    let now = call.now;
    let json = call
        .write(move |tx, who| {
            let (id, range, bytes) = parsed?;
            let (id, offset, expires) =
                media_items::add_chunk(tx, who.user_id, id.as_deref(), range, &bytes, now)?
                    .map_err(refused)?;
            Ok::<_, ApiError>(
                json!({"upload_id": id, "offset": offset, "expires": rfc3339(expires)}),
            )
        })
        .await?;
    Ok(ok(&json))
}

/// The body that completes an upload (multipart text fields or JSON).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = MediaUploadComplete)]
struct Completion {
    /// The upload's id, from its chunks' answers (required).
    upload_id: String,
    /// `image`: hearth takes pictures only (required; another value is 400).
    #[schema(pattern = "^image$")]
    #[expect(dead_code, reason = "checked to be image, the one kind hearth takes")]
    r#type: String,
    /// The whole file's MD5, in hex (optional; a mismatch is 400 on md5).
    md5: Option<String>,
}

impl Completion {
    /// Reads the fields: `upload_id` and `type` required, all errors at once.
    fn parse(map: &Map<String, Value>) -> Result<Completion, ApiError> {
        let mut errors = Vec::new();
        let id = text(map, "upload_id");
        if id.is_none() {
            errors.push(FieldError::required("upload_id"));
        }
        match text(map, "type").as_deref() {
            Some("image") => {}
            None => errors.push(FieldError::required("type")),
            Some(_) => errors.push(FieldError::new("type", "invalid", "Only pictures (image).")),
        }
        let md5 = text(map, "md5");
        match (id, errors.is_empty()) {
            (Some(upload_id), true) => Ok(Completion { upload_id, r#type: "image".into(), md5 }),
            _ => Err(ApiError::Invalid(errors)),
        }
    }
}

/// `POST /api/v2/media/upload/complete/` (write; multipart or JSON): `upload_id`,
/// `type` (`image`: hearth takes pictures only), and optionally `md5` (hex), which must
/// be the whole file's. The picture is made (400 on `image` when it is not one hearth
/// takes) and stored; 201 with the media (`SCMediaType`). The upload ends either way.
async fn complete(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    call.req.body.authorised(&who);
    let (map, _) = upload::read(call.take_body(), &call.req.headers, FORM).await?;
    let Completion { upload_id: id, md5, .. } = Completion::parse(&map)?;
    let now = call.now;
    // the whole file comes out of the database: its memory is the request budget's
    // while it is checked and decoded (503 while the budget is taken)
    let held = call.state().body_budget.take(crate::images::MAX_BYTES)?;
    let bytes = call
        .write(move |tx, who| media_items::take_whole(tx, who.user_id, &id, now)?.map_err(refused))
        .await?;
    if let Some(sum) = md5 {
        let got = format!("{:x}", md5::Md5::digest(&bytes));
        if !got.eq_ignore_ascii_case(&sum) {
            return Err(ApiError::field(
                "md5",
                "invalid",
                "The MD5 of the bytes received differs.",
            ));
        }
    }
    let upload = upload::Upload { bytes: bytes.into(), held: Some(held) };
    let mut errors = Vec::new();
    let picture =
        upload::process_picture(Some(upload), "image", &call.state().body_budget, &mut errors)
            .await?;
    let (Some(p), true) = (picture, errors.is_empty()) else {
        return Err(ApiError::Invalid(errors));
    };
    let base = call.base();
    let json = call
        .write(move |tx, who| {
            let id = media_items::create(
                tx,
                who.user_id,
                p.extension,
                p.content_type,
                p.width,
                p.height,
                &p.bytes,
                now,
            )?;
            let item = media_items::get(tx, id)?
                .ok_or_else(|| ApiError::internal("media item vanished after insert"))?;
            Ok::<_, ApiError>(item.to_json(&base))
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /api/v2/media/{id}/` (CA): an item its owner sees, and those who may see a
/// gallery that shows it; 404 for others.
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    let json = call
        .read(move |c, who| {
            let item = media_items::get(c, id)?.ok_or(ApiError::NotFound)?;
            if !media_items::visible(c, &item, who.map(|w| w.user_id))? {
                return Err(ApiError::NotFound);
            }
            Ok::<_, ApiError>(item.to_json(&base))
        })
        .await?;
    Ok(ok(&json))
}

/// `DELETE /api/v2/media/{id}/` (write): its owner deletes an item (out of every
/// gallery, its picture gone); 404 for others' items; 204.
async fn delete(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    call.write(move |tx, who| {
        let item = media_items::get(tx, id)?
            .filter(|m| m.owner_id == who.user_id)
            .ok_or(ApiError::NotFound)?;
        media_items::delete(tx, &item)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// The error of a write's `medias` (`None`: absent) when the caller may not show one of
/// them in the item `pk` (`None`: one being made): each must be a media of theirs (a
/// picture, a link, a share) that no other item shows, and a share comes alone.
pub fn showable(
    c: &rusqlite::Connection,
    who: &Principal,
    medias: Option<&[i64]>,
    pk: Option<i64>,
) -> Result<Option<FieldError>, ApiError> {
    let Some(ids) = medias else { return Ok(None) };
    if let Some(id) = media_items::not_showable(c, who.user_id, ids, pk)? {
        return Ok(Some(FieldError::new(
            "medias",
            "invalid",
            format!("No media of yours with id {id} that no other item shows."),
        )));
    }
    // a share is the item's one media (the kit's Composer offers nothing beside it), so
    // an item counts once in what it shares
    let (shared, others) = media_items::shared_among(c, ids)?;
    if shared.len() > 1 || !shared.is_empty() && others {
        let msg = "An item that shares another shows nothing else.";
        return Ok(Some(FieldError::new("medias", "invalid", msg)));
    }
    // what may be shared is checked again as it is now: the item may have gone, become
    // one only some members see, or sharing been turned off since the share was made;
    // and an item does not share itself
    if let Some(&shared) = shared.first() {
        let public = crate::db::spaces::shows_item(c, shared, None)?
            && crate::db::contributions::is_live(c, shared)?;
        let on = crate::db::preferences::get_bool(c, "addons", "share_post_enabled", false)?;
        if !public || !on || Some(shared) == pk {
            let msg = "The item this share names may not be shared (now).";
            return Ok(Some(FieldError::new("medias", "invalid", msg)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every documented field of a completion is read (`md5` aside: a value that is no
    /// text reads as absent, so the object this test sends gives no error on it).
    #[test]
    fn every_documented_field_is_read() {
        let unread =
            crate::model::field::unread_properties::<Completion>(|m| match Completion::parse(m) {
                Err(ApiError::Invalid(e)) => e,
                _ => Vec::new(),
            });
        assert_eq!(unread, ["md5"]);
    }
}
