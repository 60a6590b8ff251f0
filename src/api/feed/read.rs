//! The feeds' read marks: `POST /api/v2/feed/read/` (what the kit's feed object sends
//! when it shows an unseen unit) and `GET /api/v2/feed/unseen/count/`.

use serde::Deserialize;
use serde_json::json;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::api::call::Call;
use crate::db::contributions as store;
use crate::db::feed::{self, Feed};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::{empty, ok};
use crate::model::contribution::Kind;

/// The most ids one mark takes (a feed page has at most 100 units).
pub const OBJECTS_MAX: usize = 100;

/// How many of the home feed's first units the unseen count looks at.
pub const UNSEEN_WINDOW: i64 = 100;

/// The body of `POST /api/v2/feed/read/`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = FeedMarks)]
pub(super) struct Marks {
    /// Item ids (of any type: each live discussion, post and status with that id is
    /// marked); at most 100 (400 max_length); ids without a live item are skipped.
    #[schema(max_items = 100)]
    object: Vec<i64>,
}

/// `POST /api/v2/feed/read/` (auth, write): `{"object": [ids]}` marks those items seen
/// by the caller now; 204. The kit sends an item's id without its type, and each type
/// numbers its own ids: every live discussion, post and status with that id is marked
/// (an id of another type's item at worst shows as seen, never anything else). Ids
/// without a live item are skipped (it may have gone since the page was read).
pub(super) async fn mark(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let now = call.now;
    let body = call.json::<Marks>().await;
    call.write(move |tx, who| {
        let marks = body?;
        if marks.object.len() > OBJECTS_MAX {
            return Err(ApiError::field(
                "object",
                "max_length",
                format!("At most {OBJECTS_MAX} ids."),
            ));
        }
        for id in marks.object {
            for kind in Kind::TARGETS {
                if let Some(m) = store::meta(tx, kind, id)?.filter(|m| !m.deleted)
                    && crate::db::spaces::shows_item(tx, m.pk, Some(who.user_id))?
                {
                    feed::seen::mark(tx, who.user_id, m.pk, now)?;
                }
            }
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/feed/unseen/count/` (auth): `{"total": n, "count_by_category": []}`,
/// how many of the first [`UNSEEN_WINDOW`] units of the caller's home feed it has not
/// seen since their last activity.
pub(super) async fn unseen_count(call: Call<Principal>) -> Result<Response, ApiError> {
    let json = call
        .read(move |c, who| {
            let (_, pks) =
                feed::page(c, Feed::Home(who.user_id), Some(who.user_id), UNSEEN_WINDOW, 0)?;
            let mut total = 0;
            for pk in pks {
                if !feed::seen::is_seen(c, who.user_id, pk)? {
                    total += 1;
                }
            }
            Ok::<_, ApiError>(json!({ "total": total, "count_by_category": [] }))
        })
        .await?;
    Ok(ok(&json))
}
