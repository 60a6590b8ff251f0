//! `POST /api/v2/media/` (the kit's `ComposerMediaCreate`): a member makes a link media
//! (the Composer's link button) or a share (a feed card's Share), then shows it in a
//! post (`medias`, [`crate::api::media_items::showable`]); and `POST
//! /api/v2/media/{id}/click/`, the kit's click tracker. Pictures are made by the
//! chunked uploader ([`crate::api::media_items`]).
//!
//! hearth fetches nothing a member names: a link is shown as a card of its site's name,
//! never the page's own title, text or picture, which would make the server request
//! any address a member gives (its network included) and put another site's picture
//! in every reader's page.

use serde_json::{Map, Value};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, write};
use crate::db::media_items;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response};
use crate::model::contribution::Kind;
use crate::model::field::FieldError;
use crate::model::ids::{NumericId, id_value};
use crate::model::media::{self, LINK_MAX};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::POST, "/api/v2/media/", "createMedia", create).body::<MediaCreate>(),
        ca(Method::POST, "/api/v2/media/{id}/click/", "clickMedia", click),
    ]
}

/// A media to make: a link or a share (JSON); unknown fields are ignored.
#[derive(utoipa::ToSchema)]
#[schema(as = MediaCreate)]
#[expect(dead_code, reason = "the documented body: `MediaCreate::parse` reads it into `NewMedia`")]
struct MediaCreate {
    /// `url` (a link) or `share` (an item shared); required. Pictures are sent to
    /// `/api/v2/media/upload/chunk/` (another value is 400 invalid_choice).
    #[schema(pattern = "^(url|share)$")]
    r#type: String,
    /// A link's absolute http(s) URL, without credentials, at most 2000 characters
    /// (else 400 invalid); required for `url`.
    url: Option<String>,
    /// The id of the discussion, post or status shared; required for `share`. A live
    /// item everyone may see (not a private group's or event's, not addressed to tags),
    /// while `addons.share_post_enabled` is on (403 otherwise).
    shared_object: Option<NumericId>,
    /// `discussion`, `post` or `status`: needed only where an older community's ids
    /// (numbered per kind) name several items (400 on shared_object without it).
    shared_object_type: Option<String>,
}

/// What a [`MediaCreate`] body asks for.
#[derive(Debug, PartialEq, Eq)]
enum NewMedia {
    Url { url: String },
    Share { shared_object: i64, shared_object_type: Option<String> },
}

impl MediaCreate {
    fn parse(map: &Map<String, Value>) -> Result<NewMedia, ApiError> {
        let field = |name: &str, code: &'static str, msg: &str| {
            ApiError::Invalid(vec![FieldError::new(name, code, msg)])
        };
        match map.get("type").and_then(Value::as_str) {
            Some("url") => {
                let url = map
                    .get("url")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ApiError::Invalid(vec![FieldError::required("url")]))?;
                Ok(NewMedia::Url { url: url.to_owned() })
            }
            Some("share") => {
                if map.get("event_object").is_some_and(|v| !v.is_null()) {
                    return Err(field("event_object", "invalid", "Events are not shared."));
                }
                let id = map.get("shared_object").ok_or_else(|| {
                    ApiError::Invalid(vec![FieldError::required("shared_object")])
                })?;
                let id = id_value(id)
                    .ok_or_else(|| field("shared_object", "invalid", "Must be an integer id."))?;
                let kind = match map.get("shared_object_type") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(v.as_str().map(str::to_owned).ok_or_else(|| {
                        field("shared_object_type", "invalid_choice", "Not a kind of item.")
                    })?),
                };
                Ok(NewMedia::Share { shared_object: id, shared_object_type: kind })
            }
            None if !map.contains_key("type") => {
                Err(ApiError::Invalid(vec![FieldError::required("type")]))
            }
            _ => Err(field(
                "type",
                "invalid_choice",
                "`url` or `share` (pictures are sent to /api/v2/media/upload/chunk/).",
            )),
        }
    }
}

/// `POST /api/v2/media/` (write): 201 with the media (Media JSON), the caller's, for
/// one of their posts to show.
async fn create(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (now, base) = (call.now, call.base());
    let body = call.json::<Map<String, Value>>().await.and_then(|m| MediaCreate::parse(&m));
    let json = call
        .write(move |tx, who| {
            let body = body?;
            if !media_items::may_make_loose(tx, who.user_id, now)? {
                return Err(ApiError::Refused(
                    "You have made too many links and shares that no post shows: publish them, \
                     or wait a day for them to go.",
                ));
            }
            let id = match body {
                NewMedia::Url { url } => {
                    let (url, host) = media::link(&url).ok_or_else(|| {
                        ApiError::field(
                            "url",
                            "invalid",
                            format!(
                                "Enter an absolute http(s) URL of at most {LINK_MAX} characters, \
                                 without a user name or password."
                            ),
                        )
                    })?;
                    media_items::create_link(tx, who.user_id, &url, &host, now)?
                }
                NewMedia::Share { shared_object, shared_object_type } => {
                    if !crate::db::preferences::get_bool(tx, "addons", "share_post_enabled", false)?
                    {
                        return Err(ApiError::Refused("Sharing is off in this community."));
                    }
                    let pk = shared_item(tx, shared_object, shared_object_type.as_deref(), who)?;
                    media_items::create_share(tx, who.user_id, pk, now)?
                }
            };
            let item = media_items::get(tx, id)?
                .ok_or_else(|| ApiError::internal("media vanished after insert"))?;
            Ok::<_, ApiError>(item.to_json(&base))
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// The pk of the item a share names: a live discussion, post or status with that id
/// (of that kind, when given) that everyone may see; 400 on `shared_object` for none,
/// for one only some members see, and for an id that names several (an older
/// community's, numbered per kind) without `shared_object_type`.
fn shared_item(
    c: &rusqlite::Connection,
    id: i64,
    kind: Option<&str>,
    who: Principal,
) -> Result<i64, ApiError> {
    let kind = match kind {
        None => None,
        Some(k) => Some(Kind::parse(k).filter(|k| *k != Kind::Comment).ok_or_else(|| {
            ApiError::field("shared_object_type", "invalid_choice", "discussion, post or status.")
        })?),
    };
    let mut found = Vec::new();
    for (pk, _) in media_items::items_with_id(c, id, kind)? {
        if crate::db::spaces::shows_item(c, pk, Some(who.user_id))? {
            found.push(pk);
        }
    }
    match found.as_slice() {
        [] => Err(ApiError::field("shared_object", "invalid", format!("No item with id {id}."))),
        [pk] if crate::db::spaces::shows_item(c, *pk, None)? => Ok(*pk),
        [_] => Err(ApiError::field(
            "shared_object",
            "invalid",
            "Only what everyone may see is shared: not a private group's or event's item, \
             nor one addressed to tags.",
        )),
        _ => Err(ApiError::field(
            "shared_object",
            "invalid",
            format!("Several items have id {id}: say which with shared_object_type."),
        )),
    }
}

/// `POST /api/v2/media/{id}/click/` (CA): the kit tells a media was opened. 204 for a
/// media the caller may see, 404 otherwise. hearth keeps no click statistics (the
/// platform's insights are not in turn 3), so a click writes nothing: an anonymous
/// reader's click costs a read, never a write.
async fn click(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let id = call.id();
    call.read(move |c, who| {
        let item = media_items::get(c, id)?.ok_or(ApiError::NotFound)?;
        if !media_items::visible(c, &item, who.map(|w| w.user_id))? {
            return Err(ApiError::NotFound);
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

#[cfg(test)]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests fail loudly")]

    use serde_json::json;

    use super::*;

    #[test]
    fn a_body_is_a_link_or_a_share() {
        let parse = |v: Value| MediaCreate::parse(v.as_object().unwrap());
        assert_eq!(
            parse(json!({"type": "url", "url": "https://a.example/"})).ok(),
            Some(NewMedia::Url { url: "https://a.example/".into() })
        );
        assert_eq!(
            parse(json!({"type": "share", "shared_object": "7"})).ok(),
            Some(NewMedia::Share { shared_object: 7, shared_object_type: None })
        );
        for bad in [
            json!({}),
            json!({"type": "image"}),
            json!({"type": "url"}),
            json!({"type": "share"}),
            json!({"type": "share", "shared_object": "x"}),
            json!({"type": "share", "event_object": 3}),
        ] {
            assert!(matches!(parse(bad.clone()), Err(ApiError::Invalid(_))), "{bad}");
        }
    }
}
