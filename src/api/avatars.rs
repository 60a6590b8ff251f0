//! `/api/v2/user/avatar/` (SPEC §10 People, the kit's `ChangePicture` dialog): a member
//! uploads avatars (each a 400-pixel square through the image pipeline, under the
//! request memory budget), lists them, makes one primary (User JSON's `avatar`) and
//! deletes them; `/api/v2/user/me/avatar/` answers the current one.

use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::listing::list_page;
use crate::api::upload;
use crate::db::avatars;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::avatar::{Avatar, MAX_AVATARS};
use crate::model::field::FieldError;
use crate::model::user::DEFAULT_AVATAR;

/// The upload's form: one file, `avatar`.
const FORM: upload::Form = upload::Form { file: "avatar", lists: &[] };

/// The body of `POST /api/v2/user/avatar/` (multipart/form-data): one file, no other
/// field (each other is 400).
#[derive(utoipa::ToSchema)]
#[schema(as = AvatarUpload)]
struct AvatarForm {
    /// The picture (required): JPEG, PNG, WebP or GIF, at most 10 MiB and 8000x8000
    /// pixels; kept as a square.
    #[schema(value_type = String, format = Binary, required = true)]
    avatar: Option<upload::Upload>,
}

impl AvatarForm {
    /// The form's file and its errors: every text field is unknown, no file is required.
    fn parse(
        fields: &Map<String, Value>,
        file: Option<upload::Upload>,
    ) -> (AvatarForm, Vec<FieldError>) {
        let mut errors: Vec<FieldError> =
            fields.keys().map(|k| FieldError::unknown(k.as_str())).collect();
        if file.is_none() {
            errors.push(FieldError::new(FORM.file, "required", "No file was submitted."));
        }
        (AvatarForm { avatar: file }, errors)
    }
}

/// The side of the square kept (one of [`crate::images::SIZES`]).
const SIDE: u32 = 400;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::POST, "/api/v2/user/avatar/", "addUserAvatar", add).body::<AvatarForm>(),
        user(Method::GET, "/api/v2/user/avatar/", "getUserAvatars", list).paged(),
        write(Method::PATCH, "/api/v2/user/avatar/", "setUserPrimaryAvatar", set_primary)
            .body::<AvatarChoice>(),
        write(Method::DELETE, "/api/v2/user/avatar/", "removeUserAvatar", remove)
            .body::<AvatarChoice>(),
        user(Method::GET, "/api/v2/user/me/avatar/", "getCurrentUserAvatar", current),
    ]
}

/// `POST /api/v2/user/avatar/` (auth, write): `multipart/form-data` with the image in
/// `avatar` (JPEG, PNG, WebP or GIF, the limits of SPEC §5); it becomes the caller's
/// avatar. At most [`MAX_AVATARS`] kept. 201 with the avatar.
async fn add(mut call: Call<Principal>) -> Result<Response, ApiError> {
    let (now, base) = (call.now, call.base());
    // the caller first (401, 403), then the body it may send
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    call.req.body.authorised(&who);
    let (fields, image) = upload::read(call.take_body(), &call.req.headers, FORM).await?;
    let (AvatarForm { avatar }, mut errors) = AvatarForm::parse(&fields, image);
    let squares =
        upload::process_image(avatar, FORM.file, &call.state().body_budget, &mut errors).await?;
    let square = squares.as_ref().and_then(|s| s.squares.iter().find(|q| q.side == SIDE));
    let (Some(squares), Some(square), true) = (&squares, square, errors.is_empty()) else {
        return Err(ApiError::Invalid(errors));
    };
    let (extension, content_type, bytes) =
        (squares.extension, squares.content_type, square.bytes.clone());
    let json = call
        .write(move |tx, who| {
            if avatars::count(tx, who.user_id)? >= MAX_AVATARS {
                return Err(ApiError::field(
                    "avatar",
                    "max_value",
                    format!("You keep {MAX_AVATARS} avatars already: delete one first."),
                ));
            }
            let a = avatars::add(tx, who.user_id, (extension, content_type, &bytes), now)?;
            Ok(a.to_json(&base, &a.path))
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /api/v2/user/avatar/` (auth): the caller's avatars, in upload order, the
/// primary one marked.
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let count = avatars::count(c, who.user_id)?;
        let current = avatars::current(c, who.user_id)?;
        let rows = avatars::page(c, who.user_id, page.limit, page.offset)?;
        Ok((page, count, rows.iter().map(|a| a.to_json(&base, &current)).collect()))
    })
    .await
}

/// The caller's avatar that a `{"avatar_id": N}` body names: 400 without one, 404 when
/// it is not the caller's.
fn named(
    c: &rusqlite::Connection,
    user: i64,
    body: &Map<String, Value>,
) -> Result<Avatar, ApiError> {
    let AvatarChoice { avatar_id } = AvatarChoice::parse(body)?;
    avatars::get(c, user, avatar_id)?.ok_or(ApiError::NotFound)
}

/// The body that names one of the caller's avatars (`AvatarChoice`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = AvatarChoice, description = "One of the caller's avatars; any other key is 400.")]
struct AvatarChoice {
    /// Required: the avatar's id (an integer or a numeric string), one of the caller's
    /// (another's or an unknown id is 404).
    avatar_id: i64,
}

impl AvatarChoice {
    /// `{"avatar_id": N}`: 400 on another key, or without an id.
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        if let Some(e) = FieldError::first_unknown(body, &["avatar_id"]) {
            return Err(ApiError::Invalid(vec![e]));
        }
        let avatar_id =
            body.get("avatar_id").and_then(crate::model::ids::id_value).ok_or_else(|| {
                ApiError::field(
                    "avatar_id",
                    "required",
                    "The id of one of your avatars is required.",
                )
            })?;
        Ok(AvatarChoice { avatar_id })
    }
}

/// `PATCH /api/v2/user/avatar/` (auth, write): `{"avatar_id": N}` makes that avatar of
/// the caller's primary; answers it.
async fn set_primary(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let base = call.base();
    let body = call.object().await;
    let json = call
        .write(move |tx, who| {
            let a = named(tx, who.user_id, &body?)?;
            avatars::set_current(tx, who.user_id, &a.path)?;
            Ok(a.to_json(&base, &a.path))
        })
        .await?;
    Ok(ok(&json))
}

/// `DELETE /api/v2/user/avatar/` (auth, write): `{"avatar_id": N}` deletes that avatar
/// of the caller's and its image; when it was the primary one, the newest remaining one
/// takes its place (none: the default). 204.
async fn remove(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    call.write(move |tx, who| {
        let a = named(tx, who.user_id, &body?)?;
        avatars::delete(tx, &a)?;
        Ok(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/user/me/avatar/` (auth): `{"avatar": url}`, the caller's avatar now
/// (hearth's default when none).
async fn current(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    let path = call.read(|c, who| Ok::<_, ApiError>(avatars::current(c, who.user_id)?)).await?;
    Ok(ok(&json!({ "avatar": base.resolve(&path, DEFAULT_AVATAR) })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_each};

    #[test]
    fn every_documented_field_is_read() {
        let unread =
            unread_properties_each::<AvatarChoice>(|m| invalid_fields(AvatarChoice::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
    }
}
