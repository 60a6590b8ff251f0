//! `/api/v2/user/...`: the caller, users, followings and followers.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, ca, user, write};
use crate::api::listing::list_page;
use crate::api::people::Relations;
use crate::api::toggle::{both_ways, other_live_user, toggle};
use crate::api::upload;
use crate::db::follows::{self, Direction};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::model::profile::ProfileEdit;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = vec![
        user(Method::GET, "/api/v2/user/me/", "getMe", get_me),
        ca(Method::GET, "/api/v2/user/search/", "searchUsers", search).list::<UserSearch>(),
        ca(Method::GET, "/api/v2/user/{id}/", "getUser", get_user),
        write(Method::PATCH, "/api/v2/user/{id}/", "patchUser", edit_profile).body::<ProfileEdit>(),
        write(Method::PUT, "/api/v2/user/{id}/", "updateUser", edit_profile).body::<ProfileEdit>(),
        write(Method::DELETE, "/api/v2/user/{id}/", "userDelete", delete_account)
            .query::<Deletion>(),
        ca(Method::GET, "/api/v2/user/{id}/followings/", "getUserFollowings", |c| {
            list_connections(c, Direction::Followings)
        })
        .list::<Mutual>(),
        ca(Method::GET, "/api/v2/user/{id}/followers/", "getUserFollowers", |c| {
            list_connections(c, Direction::Followers)
        })
        .list::<Mutual>(),
        write(Method::POST, "/api/v2/user/{id}/follow/", "followUser", toggle_follow),
    ];
    // does the caller follow `{id}`; does `{id}` follow the caller
    all.extend(both_ways(
        ("/api/v2/user/{id}/is_followed/", "checkUserFollowed"),
        ("/api/v2/user/{id}/is_follower/", "checkUserFollower"),
        follows::is_following,
    ));
    all
}

/// `GET /api/v2/user/me/`: the caller as User JSON plus `email`, `status` (`b` while
/// staff block the caller) and the unseen
/// counters the kit's toolbar badge adds up: the caller's unseen notifications (SPEC
/// §10), and its unseen broadcast banners.
async fn get_me(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    let latest = std::sync::Arc::clone(&call.state().permission_prefs);
    let json = call
        .read(move |c, who| {
            let (user, own) =
                crate::db::users::own(c, who.user_id)?.ok_or(ApiError::AuthenticationFailed)?;
            let mut j = user.to_json(&base, None, crate::db::users::tags(c, user.id)?);
            j.email = Some(user.email.clone().unwrap_or_default());
            let blocked = own.block.is_some_and(|b| b.holds(now));
            j.status = Some(if blocked { "b" } else { "a" });
            j.unseen_interactions_counter = Some(own.unseen_notifications);
            j.unseen_notification_banners_counter = Some(own.unseen_banners);
            j.connection_requests_sent_counter = Some(own.requests_sent);
            j.connection_requests_received_counter = Some(own.requests_received);
            j.permission = Some(crate::api::user_facts::permission_of(c, who, blocked, &latest)?);
            Ok::<_, ApiError>(j)
        })
        .await?;
    Ok(ok(&json))
}

crate::query_params! {
    /// The start of a username the user search takes.
    struct UserSearch {
        /// The start of the username, case-insensitively (what the kit's mention picker
        /// sends); empty or absent: every live user.
        user: Option<String>,
        /// The same, read when `user` is absent.
        search: Option<String>,
    }
}

/// `GET /api/v2/user/search/` (CA): live users whose username starts with `user` (the
/// kit's @-mention picker sends it; `search` is read the same way), case-insensitively,
/// by username; `count` stops at [`crate::db::user_search::COUNT_CAP`].
async fn search(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let p = UserSearch::read(q)?;
        let prefix = p.user.or(p.search).unwrap_or_default().trim().to_owned();
        let (count, users) =
            crate::db::user_search::by_prefix(c, &prefix, page.limit, page.offset)?;
        let results = crate::api::people::users_json(c, users, who.map(|w| w.user_id), &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/user/{id}/` (CA): User JSON; deleted users are 404.
async fn get_user(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    let json = call
        .read(move |c, who| {
            let user =
                crate::db::users::get(c, id)?.filter(|u| !u.deleted).ok_or(ApiError::NotFound)?;
            let status = Relations::load(c)?.of(c, who.map(|p| p.user_id), id)?;
            let mut json = user.to_json(&base, status, crate::db::users::tags(c, id)?);
            if let Some(me) = who.map(|p| p.user_id) {
                let pm = crate::db::messages::enabled(c)?
                    && crate::db::messages::may_write(c, me, id)?.is_ok();
                json.can_send_pm_to = Some(pm);
            }
            Ok::<_, ApiError>(json)
        })
        .await?;
    Ok(ok(&json))
}

/// `PATCH`/`PUT /api/v2/user/{id}/` (write): the caller edits their own profile (the
/// kit's settings page): `model::profile` says which fields and how each is checked;
/// another user's id is 403. The body is JSON, or a form (`multipart/form-data`, the
/// kit's `ChangeCover`) with the same fields and a `cover` picture (SPEC §5's pipeline:
/// a whole picture, re-encoded, at most 1280 px a side), or `cover` empty for the
/// default again. Answers the caller's User JSON, as `/user/me/` does.
async fn edit_profile(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, base, now) = (call.id(), call.base(), call.now);
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    call.req.body.authorised(&who);
    // a body that is no JSON object or form is refused first (415, 400), as for every
    // typed body; then whose profile it is
    let (mut map, file) = upload::read(call.take_body(), &call.req.headers, COVER_FORM).await?;
    if who.user_id != id {
        return Err(ApiError::PermissionDenied);
    }
    let form = upload::is_form(&call.req.headers);
    // a form's `cover` is the picture, or empty for the default (in JSON it is read-only)
    let clear = form && file.is_none() && map.remove("cover").is_some_and(|v| v == "");
    let mut edit = crate::model::profile::parse(&map).map_err(ApiError::Invalid)?;
    edit.clear_cover = clear;
    let mut errors = Vec::new();
    let picture =
        upload::process_picture(file, "cover", &call.state().body_budget, &mut errors).await?;
    if !errors.is_empty() {
        return Err(ApiError::Invalid(errors));
    }
    let json = call
        .write(move |tx, _| {
            crate::db::profiles::apply(tx, id, &edit)?;
            if picture.is_some() || edit.clear_cover {
                crate::db::profiles::set_cover(tx, id, picture.as_ref(), now)?;
            }
            let user = crate::db::users::get(tx, id)?.ok_or(ApiError::AuthenticationFailed)?;
            let mut j = user.to_json(&base, None, crate::db::users::tags(tx, id)?);
            j.email = Some(user.email.clone().unwrap_or_default());
            Ok::<_, ApiError>(j)
        })
        .await?;
    Ok(ok(&json))
}

/// The profile form's one file.
const COVER_FORM: upload::Form = upload::Form { file: "cover", lists: &[] };

crate::query_params! {
    /// How an account is deleted.
    struct Deletion {
        /// 1: delete and erase the account's contributions too; 0 (the default): they
        /// stay, shown as a deleted user's. Another value is 400.
        #[param(schema_with = zero_or_one)]
        hard: Option<String>,
    }
}

/// `0` or `1`, an integer (`hard`, `mutual`).
fn zero_or_one() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Integer)
        .enum_values(Some([0, 1]))
        .build()
}

/// `hard`: `1` erases the contributions too; absent or `0` keeps them.
fn hard_of(v: Option<&str>) -> Result<bool, ApiError> {
    match v {
        None | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(_) => Err(ApiError::field("hard", "invalid", "Must be 0 or 1.")),
    }
}

/// `DELETE /api/v2/user/{id}/` (write, no body): a member deletes their own account
/// (staff may delete anyone's; another member's id is 403): `db::account::erase`, its
/// personal data erased; `?hard=1` deletes and erases their contributions too. 204.
async fn delete_account(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, hard) = (call.id(), Deletion::read(&call.query()?)?.hard);
    let no_body = call.no_body().await;
    call.write(move |tx, who| {
        no_body?;
        let hard = hard_of(hard.as_deref())?;
        if who.user_id != id && !who.is_staff {
            return Err(ApiError::PermissionDenied);
        }
        if !crate::db::users::is_live(tx, id)? {
            return Err(ApiError::NotFound);
        }
        crate::db::account::erase(tx, id, hard)?;
        Ok(())
    })
    .await?;
    Ok(crate::http::empty(warp::http::StatusCode::NO_CONTENT))
}

crate::query_params! {
    /// The followings' and followers' filter.
    struct Mutual {
        /// 1: only the users with edges in both directions (`{id}` follows them and they
        /// follow `{id}`); 0: only the others; absent: all. Exactly 0 or 1: anything else
        /// (true, 01, empty...) is 400.
        #[param(schema_with = zero_or_one)]
        mutual: Option<String>,
    }
}

/// `mutual`: exactly `0` or `1` (SPEC §3: it is not a boolean).
fn mutual_param(q: &Query) -> Result<Option<bool>, ApiError> {
    match Mutual::read(q)?.mutual.as_deref() {
        None => Ok(None),
        Some("1") => Ok(Some(true)),
        Some("0") => Ok(Some(false)),
        Some(_) => Err(ApiError::field("mutual", "invalid_choice", "Must be 0 or 1.")),
    }
}

/// `GET /api/v2/user/{id}/followings/` and `GET /api/v2/user/{id}/followers/` (CA).
async fn list_connections(
    call: Call<Option<Principal>>,
    dir: Direction,
) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        // the caller is resolved first: a bad token is 401 before any 400
        let page = Page::from_query(q)?;
        let mutual = mutual_param(q)?;
        let counters = follows::live_counters(c, id)?.ok_or(ApiError::NotFound)?;
        let count = follows::count(counters, dir, mutual);
        let rows =
            follows::page(c, id, dir, mutual, who.map(|p| p.user_id), page.limit, page.offset)?;
        let ids: Vec<i64> = rows.iter().map(|(u, _)| u.id).collect();
        let mut tags = follows::tags_of(c, &ids)?;
        let relations = Relations::load(c)?;
        let viewer = who.map(|p| p.user_id);
        let mut results = Vec::with_capacity(rows.len());
        for (u, followed) in rows {
            let status = relations.known(c, viewer, u.id, followed)?;
            let t = tags.remove(&u.id).unwrap_or_default();
            results.push(u.to_json(&base, status, t));
        }
        Ok((page, count, results))
    })
    .await
}

/// `POST /api/v2/user/{id}/follow/` (auth, write): follow or unfollow; 204.
async fn toggle_follow(call: Call<Principal>) -> Result<Response, ApiError> {
    toggle(call, |tx, caller, id, now| {
        other_live_user(tx, caller, id, "You cannot follow yourself.")?;
        follows::toggle(tx, caller, id, now)?;
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented values of `hard` are the ones it takes.
    #[test]
    fn every_documented_hard_parses() {
        assert_eq!(hard_of(Some("0")).ok(), Some(false));
        assert_eq!(hard_of(Some("1")).ok(), Some(true));
        assert!(hard_of(Some("2")).is_err());
        let doc = serde_json::to_value(zero_or_one()).unwrap_or_default();
        assert_eq!(doc["enum"], serde_json::json!([0, 1]));
    }

    /// Every value the document names is one `mutual_param` takes, and no other.
    #[test]
    fn every_documented_mutual_parses() {
        let schema = serde_json::to_value(zero_or_one()).unwrap_or_default();
        let values = schema["enum"].as_array().cloned().unwrap_or_default();
        assert_eq!(values.len(), 2);
        for v in values {
            let q = Query::parse(&format!("mutual={v}"));
            assert!(mutual_param(&q).is_ok_and(|m| m.is_some()), "{v}");
        }
        for bad in ["true", "01", ""] {
            assert!(mutual_param(&Query::parse(&format!("mutual={bad}"))).is_err(), "{bad}");
        }
    }
}
