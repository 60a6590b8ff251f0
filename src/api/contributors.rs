//! `GET /api/v2/{discussion,post,status}/{id}/contributors/` (SPEC §8): the users who
//! commented on an item; `…/shares_users/`: those who shared it.

use rusqlite::Connection;
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
use crate::model::user::User;

/// The users of an item a list shows: (count, page) for the item's pk, the viewer, the
/// page's limit and offset.
type Users = fn(&Connection, i64, Option<i64>, i64, i64) -> rusqlite::Result<(i64, Vec<User>)>;

/// The lists: each kind that takes comments, its contributors and its sharers.
const LISTS: [(Kind, &str, &str, Users); 6] = {
    use crate::db::contributors::{page, sharers};
    [
        (
            Kind::Discussion,
            "/api/v2/discussion/{id}/contributors/",
            "listDiscussionContributors",
            page,
        ),
        (Kind::Post, "/api/v2/post/{id}/contributors/", "listPostContributors", page),
        (Kind::Status, "/api/v2/status/{id}/contributors/", "listStatusContributors", page),
        (
            Kind::Discussion,
            "/api/v2/discussion/{id}/shares_users/",
            "listDiscussionSharers",
            sharers,
        ),
        (Kind::Post, "/api/v2/post/{id}/shares_users/", "listPostSharers", sharers),
        (Kind::Status, "/api/v2/status/{id}/shares_users/", "listStatusSharers", sharers),
    ]
};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    LISTS
        .into_iter()
        .map(|(kind, path, op, users)| {
            ca(Method::GET, path, op, move |c| list(kind, users, c)).paged()
        })
        .collect()
}

/// `GET /api/v2/{kind}/{id}/contributors/` (CA): the live users with a live comment on
/// the item, each once, the most recent commenter first, less those the caller hides.
/// `…/shares_users/` (CA): the live users whose live item shares this one (a share the
/// caller may see), the same way (the kit's `SharesDialog`).
async fn list(
    kind: Kind,
    users: Users,
    call: Call<Option<Principal>>,
) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let viewer = who.map(|w| w.user_id);
        let item = visible_item(c, kind, id, viewer)?;
        let (count, found) = users(c, item.pk, viewer, page.limit, page.offset)?;
        let results = users_json(c, found, viewer, &base)?;
        Ok((page, count, results))
    })
    .await
}
