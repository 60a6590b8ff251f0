//! `/api/v2/event/{id}/gallery/` (SPEC §10 Events, the kit's `EventMediaWidget`): an
//! event's photo gallery. Read by those who may see the event's items (everyone who
//! sees a public event, a private one's members); its managers add their own pictures
//! (uploaded through `/api/v2/media/upload/`) and take any out.

use serde::Deserialize;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use super::{managed_event, visible_event};
use crate::api::call::{Call, ca, write};
use crate::api::listing::list_page;
use crate::db::events::{self as db, gallery};
use crate::db::media_items;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response};
use crate::model::event::EventPrivacy;
use crate::model::media::{GALLERY_MAX, MediaKind};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let path = "/api/v2/event/{id}/gallery/";
    vec![
        ca(Method::GET, path, "getEventPhotoGallery", list).paged(),
        write(Method::POST, path, "addMediaToEventPhotoGallery", add).body::<Add>(),
        write(Method::DELETE, path, "removeMediasFromEventPhotoGallery", remove).body::<Remove>(),
    ]
}

/// `GET …/gallery/` (CA): the pictures, newest first; 403 for those who see a private
/// event without being its member.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let (e, status) = visible_event(c, id, who)?;
        if e.privacy == EventPrivacy::Private && !db::is_member(status) {
            return Err(ApiError::PermissionDenied);
        }
        let (count, items) = gallery::page(c, id, page.limit, page.offset)?;
        Ok((page, count, items.iter().map(|m| m.to_json(&base)).collect()))
    })
    .await
}

/// The body of `POST …/gallery/`, read by serde (any other field is 400); its schema is
/// that write's documented request body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EventGalleryAdd, description = "A picture of the caller's to add. Any other field is 400.")]
struct Add {
    /// The id of a picture of the caller's, uploaded with /api/v2/media/upload/ (400
    /// invalid when it is not the caller's; max_value when the gallery holds 1000
    /// pictures).
    media: i64,
}

/// `POST …/gallery/` (write): `{"media": id}`, a picture of the caller's, joins the
/// gallery (again: nothing changes); its creator and managers only (403). 201 with the
/// media. 400 on `media` when it is not the caller's, or the gallery is full.
async fn add(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now, base) = (call.id(), call.now, call.base());
    let body = call.json::<Add>().await;
    let json = call
        .write(move |tx, who| {
            managed_event(tx, id, who)?;
            let Add { media } = body?;
            let item = media_items::get(tx, media)?
                .filter(|m| m.owner_id == who.user_id && m.kind == MediaKind::Image)
                .ok_or_else(|| {
                    ApiError::field("media", "invalid", "No picture of yours with that id.")
                })?;
            if !gallery::add(tx, id, media, now)? {
                return Err(ApiError::field(
                    "media",
                    "max_value",
                    format!("A gallery holds at most {GALLERY_MAX} pictures."),
                ));
            }
            Ok::<_, ApiError>(item.to_json(&base))
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// The body of `DELETE …/gallery/`, read by serde (any other field is 400); its schema
/// is that write's documented request body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = EventGalleryRemove, description = "The pictures to take out of the gallery. Any other field is 400.")]
struct Remove {
    /// Media ids; each stays its owner's, ids not in the gallery change nothing.
    medias: Vec<i64>,
}

/// `DELETE …/gallery/` (write): `{"medias": [id, …]}` leave the gallery (each stays its
/// owner's); its creator and managers only (403); 204.
async fn remove(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let id = call.id();
    let body = call.json::<Remove>().await;
    call.write(move |tx, who| {
        managed_event(tx, id, who)?;
        let Remove { medias } = body?;
        gallery::remove(tx, id, &medias)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;
    use serde_json::{Map, Value};

    use super::*;
    use crate::model::field::{FieldError, unread_properties};

    /// What serde says of each property set alone to `{}`: an error on the property
    /// when it is a field of `T` (a type error), none when serde refuses it as unknown.
    fn serde_errors<T: DeserializeOwned>(m: &Map<String, Value>) -> Vec<FieldError> {
        m.iter()
            .filter(|(k, v)| {
                let one = Value::Object(Map::from_iter([((*k).clone(), (*v).clone())]));
                serde_json::from_value::<T>(one)
                    .err()
                    .is_some_and(|e| e.to_string().starts_with("invalid type"))
            })
            .map(|(k, _)| FieldError::new(k.clone(), "invalid", "a type error"))
            .collect()
    }

    /// The documented bodies are the ones serde reads.
    #[test]
    fn every_documented_field_is_read() {
        assert!(unread_properties::<Add>(serde_errors::<Add>).is_empty());
        assert!(unread_properties::<Remove>(serde_errors::<Remove>).is_empty());
        // and the test's premise: an unknown field is no type error
        assert!(serde_errors::<Add>(&Map::from_iter([("medias".into(), Value::Null)])).is_empty());
    }
}
