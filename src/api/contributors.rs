//! `GET /api/v2/{discussion,post,status}/{id}/contributors/` (SPEC §8): the users who
//! commented on an item; `…/shares_users/`: those who shared it.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca};
use crate::api::listing::list_page;
use crate::api::people::users_json;
use crate::api::votes::visible_item;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::contribution::Kind;

/// The endpoints of this module: one for each kind that takes comments.
pub fn endpoints() -> Vec<Endpoint> {
    Kind::TARGETS
        .into_iter()
        .map(|kind| {
            let (path, op) = match kind {
                Kind::Discussion => {
                    ("/api/v2/discussion/{id}/contributors/", "listDiscussionContributors")
                }
                Kind::Post => ("/api/v2/post/{id}/contributors/", "listPostContributors"),
                Kind::Status | Kind::Comment => {
                    ("/api/v2/status/{id}/contributors/", "listStatusContributors")
                }
            };
            ca(Method::GET, path, op, move |c| list(kind, c)).paged()
        })
        .chain(Kind::TARGETS.into_iter().map(|kind| {
            let (path, op) = match kind {
                Kind::Discussion => {
                    ("/api/v2/discussion/{id}/shares_users/", "listDiscussionSharers")
                }
                Kind::Post => ("/api/v2/post/{id}/shares_users/", "listPostSharers"),
                Kind::Status | Kind::Comment => {
                    ("/api/v2/status/{id}/shares_users/", "listStatusSharers")
                }
            };
            ca(Method::GET, path, op, move |c| sharers(kind, c)).paged()
        }))
        .collect()
}

/// `GET /api/v2/{kind}/{id}/contributors/` (CA): the live users with a live comment on
/// the item, each once, the most recent commenter first, less those the caller hides.
async fn list(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        let item = visible_item(c, kind, id, viewer)?;
        let (count, users) =
            crate::db::contributors::page(c, item.pk, viewer, page.limit, page.offset)?;
        let results = users_json(c, users, viewer, &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/{kind}/{id}/shares_users/` (CA): the live users whose live item shares
/// this one (a share the caller may see), each once, the most recent sharer first, less
/// those the caller hides (the kit's `SharesDialog`).
async fn sharers(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        let item = visible_item(c, kind, id, viewer)?;
        let (count, users) =
            crate::db::contributors::sharers(c, item.pk, viewer, page.limit, page.offset)?;
        let results = users_json(c, users, viewer, &base)?;
        Ok((page, count, results))
    })
    .await
}
