//! `PUT /api/v2/{discussion,post,status,comment}/{id}/` (auth, write): the author edits
//! what they wrote, as the kit's Composer does in edit mode (`ComposerEdit`) and its
//! comment editor (`UpdateComment`). The body is a create body, replacing what an edit
//! may change: a discussion's title, a status's action, the text, an item's categories
//! and addressing. Where it was made (its group or event, a comment's item and parent)
//! stays; a poll is made with its item and not edited. Every rule of creating holds
//! (SPEC §5's sanitizer, the required categories and addressing, the tags the author
//! may address to), and the answer is the item as the author now sees it.

use serde_json::{Map, Value};
use warp::reply::Response;

use crate::api::call::Call;
use crate::api::votes::visible_item;
use crate::db::contribution_edit::{self as store, Edit};
use crate::db::contributions::Meta;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::model::contribution::{self, Draft, Kind};
use crate::model::field::FieldError;

/// `PUT /api/v2/{kind}/{id}/`: 200 with the edited item; 403 for anyone but its
/// author, 404 when it is deleted or the caller may not see it.
pub(super) async fn edit(kind: Kind, mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now, base) = (call.id(), call.now, call.base());
    // checked before the transaction; reported after the caller is known
    let checked = call
        .json::<Map<String, Value>>()
        .await
        .map(|body| contribution::validate_edit(kind, &body));
    let author = call
        .write(move |tx, who| {
            let (draft, mut errors) = checked?;
            let m = visible_item(tx, kind, id, Some(who.user_id))?;
            if m.deleted {
                return Err(ApiError::NotFound);
            }
            if m.author_id != who.user_id {
                return Err(ApiError::PermissionDenied);
            }
            errors.extend(place_errors(&m, &draft));
            errors.extend(crate::api::media_items::showable(
                tx,
                &who,
                draft.medias.as_deref(),
                Some(m.pk),
            )?);
            // a post as the edit leaves it: blank text needs its media (kept when the
            // body has none) or its poll (not edited)
            if kind == Kind::Post && !errors.iter().any(|e| e.field == "text") {
                let media = match &draft.medias {
                    Some(ids) => !ids.is_empty(),
                    None => !crate::db::media_items::of_contribution(tx, m.pk)?.is_empty(),
                };
                let poll = crate::db::polls::of(tx, m.pk, None)?.is_some();
                errors.extend(contribution::empty_post(&draft.text, media || poll, true));
            }
            if kind != Kind::Comment {
                crate::api::categories::item_errors(tx, kind, &draft, &mut errors)?;
                // the tags the item is addressed to already stay allowed
                let kept: Vec<i64> =
                    crate::db::tags::addressing_of(tx, m.pk)?.iter().map(|t| t.id).collect();
                let in_space = m.group_id.is_some() || m.event_id.is_some();
                // (with `group` or `event` in the body, the model has said so already)
                if in_space && !draft.addressing.is_empty() && draft.group.or(draft.event).is_none()
                {
                    errors.push(FieldError::new(
                        "addressing",
                        "invalid",
                        "An item made in a group or an event is addressed to it, not to tags.",
                    ));
                }
                errors.extend(crate::api::tags::addressing_errors(
                    tx,
                    kind,
                    &draft.addressing,
                    in_space,
                    &who,
                    &kept,
                )?);
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            let edit = Edit {
                title: draft.title,
                action: draft.action,
                text: draft.text,
                categories: draft.categories,
                addressing: draft.addressing,
            };
            store::edit(tx, m.pk, who.user_id, &edit, now)?;
            if let Some(medias) = &draft.medias {
                crate::db::media_items::show_in(tx, m.pk, medias)?;
            }
            Ok::<_, ApiError>(who.user_id)
        })
        .await?;
    // the item as a read shows it, read once committed (as `Call::answer` says)
    let json = call
        .answer(move |c| {
            let item = crate::db::contributions::get(c, kind, id, Some(author))?
                .ok_or_else(|| ApiError::internal("contribution vanished after edit"))?;
            Ok(item.to_json(&base, now))
        })
        .await?;
    Ok(ok(&json))
}

/// Where an item was made does not change: a `group` or `event` in the body must be
/// the item's own (the kit sends them back as they were).
fn place_errors(m: &Meta, draft: &Draft) -> Vec<FieldError> {
    [("group", draft.group, m.group_id), ("event", draft.event, m.event_id)]
        .into_iter()
        .filter(|(_, given, was)| given.is_some() && given != was)
        .map(|(name, _, _)| {
            FieldError::new(name, "invalid", format!("An item does not move to another {name}."))
        })
        .collect()
}
