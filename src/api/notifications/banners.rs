//! `/api/v2/notification/banner/...` (SPEC §10): the broadcast banners staff make with
//! `hearth banner create`, as each member sees, reads and dismisses them.

use serde::Deserialize;
use serde_json::json;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::api::call::Call;
use crate::db::banners::{self, Mark};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::{Page, envelope};
use crate::http::{empty, ok};

/// `GET /api/v2/notification/banner/` (auth): the banners the caller has not dismissed,
/// newest first, as `SCBroadcastMessageType`.
pub(super) async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, q) = (call.base(), call.query()?);
    let url = base.at(&call.req.path);
    let json = call
        .read(move |c, who| {
            let page = Page::from_query(&q)?;
            let all = banners::undisposed(c, who.user_id)?;
            let shown: Vec<_> =
                crate::api::listing::window(&all, page).iter().map(|b| b.to_json()).collect();
            Ok::<_, ApiError>(envelope(&url, &q, page, all.len() as i64, shown))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/notification/banner/unseen/count/` (auth): `{"count": n}`.
pub(super) async fn unseen(call: Call<Principal>) -> Result<Response, ApiError> {
    let json = call
        .read(|c, who| Ok::<_, ApiError>(json!({ "count": banners::unseen(c, who.user_id)? })))
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/notification/banner/undisposed/count/` (auth): `{"count": n}`.
pub(super) async fn undisposed(call: Call<Principal>) -> Result<Response, ApiError> {
    let json = call
        .read(|c, who| {
            Ok::<_, ApiError>(json!({ "count": banners::undisposed(c, who.user_id)?.len() }))
        })
        .await?;
    Ok(ok(&json))
}

/// The body of the banners' marks.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = BannerMarks)]
pub(super) struct Ids {
    /// The banners' ids, at most 100 (400 max_length); others' and unknown ids change
    /// nothing.
    #[schema(max_items = 100)]
    banner_ids: Vec<i64>,
}

/// The most ids one mark takes.
pub const IDS_MAX: usize = 100;

async fn mark(mut call: Call<Principal>, mark: Mark) -> Result<Response, ApiError> {
    call.before_body().await?;
    let now = call.now;
    let body = call.json::<Ids>().await;
    call.write(move |tx, who| {
        let ids = body?.banner_ids;
        if ids.len() > IDS_MAX {
            return Err(ApiError::field(
                "banner_ids",
                "max_length",
                format!("At most {IDS_MAX} ids."),
            ));
        }
        banners::mark(tx, who.user_id, &ids, mark, now)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `POST /api/v2/notification/banner/read/` (auth, write): `{"banner_ids": [...]}`
/// marks them seen; 204.
pub(super) async fn read(call: Call<Principal>) -> Result<Response, ApiError> {
    mark(call, Mark::Viewed).await
}

/// `POST /api/v2/notification/banner/dispose/` (auth, write): `{"banner_ids": [...]}`
/// dismisses them (they leave the list); 204.
pub(super) async fn dispose(call: Call<Principal>) -> Result<Response, ApiError> {
    mark(call, Mark::Disposed).await
}
