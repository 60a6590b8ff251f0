//! `/api/v2/{discussion,post,status,comment}/...`: create, read, list, edit
//! ([`super::contribution_edit`]), soft delete and restore. The four kinds share every handler, parameterised by [`Kind`]; the
//! endpoints are declared per kind.

use crate::http::body::NoBody;
use serde_json::{Map, Value};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, write};
use crate::db::contributions::{self as store, NewContribution, Order, Scope};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::{Page, envelope};
use crate::http::route::Endpoint;
use crate::http::{empty, json_response, ok};
use crate::model::contribution::{self, Kind};
use crate::model::field::FieldError;

/// The path templates and operationIds of one kind (both `&'static str`: one literal
/// each, per kind).
struct Names {
    collection: &'static str,
    item: &'static str,
    restore: &'static str,
    list: &'static str,
    create: &'static str,
    get: &'static str,
    delete: &'static str,
    edit: &'static str,
    restore_op: &'static str,
    related: &'static str,
    related_op: &'static str,
}

const fn names(kind: Kind) -> Names {
    match kind {
        Kind::Discussion => Names {
            collection: "/api/v2/discussion/",
            item: "/api/v2/discussion/{id}/",
            restore: "/api/v2/discussion/{id}/restore/",
            list: "listDiscussions",
            create: "createDiscussion",
            get: "getDiscussion",
            delete: "deleteDiscussion",
            edit: "updateDiscussion",
            restore_op: "restoreDiscussion",
            related: "/api/v2/discussion/{id}/related/",
            related_op: "listRelatedDiscussions",
        },
        Kind::Post => Names {
            collection: "/api/v2/post/",
            item: "/api/v2/post/{id}/",
            restore: "/api/v2/post/{id}/restore/",
            list: "listPosts",
            create: "createPost",
            get: "getPost",
            delete: "deletePost",
            edit: "updatePost",
            restore_op: "restorePost",
            related: "/api/v2/post/{id}/related/",
            related_op: "listRelatedPosts",
        },
        Kind::Status => Names {
            collection: "/api/v2/status/",
            item: "/api/v2/status/{id}/",
            restore: "/api/v2/status/{id}/restore/",
            list: "listStatuses",
            create: "createStatus",
            get: "getStatus",
            delete: "deleteStatus",
            edit: "updateStatus",
            restore_op: "restoreStatus",
            related: "/api/v2/status/{id}/related/",
            related_op: "listRelatedStatuses",
        },
        Kind::Comment => Names {
            collection: "/api/v2/comment/",
            item: "/api/v2/comment/{id}/",
            restore: "/api/v2/comment/{id}/restore/",
            list: "listComments",
            create: "createComment",
            get: "getComment",
            delete: "deleteComment",
            edit: "updateComment",
            restore_op: "restoreComment",
            related: "/api/v2/comment/{id}/related/",
            related_op: "listRelatedComments",
        },
    }
}

/// The endpoints of this module: for each kind its collection (list (CA), create),
/// item (read (CA), soft delete) and restore paths; `DELETE` on the discussion restore
/// path too (SEED-API lists DELETE, its example uses POST; both are served), and the
/// slashless comment restore the SDK uses (SPEC §3).
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = Vec::new();
    for kind in Kind::ALL {
        let n = names(kind);
        let listing = ca(Method::GET, n.collection, n.list, move |c| list(kind, c));
        let listing = if kind == Kind::Comment {
            listing.query::<CommentFilters>().list::<ListOrder>()
        } else {
            listing.list::<ListOrder>()
        };
        all.extend([
            listing,
            create_body(
                kind,
                write(Method::POST, n.collection, n.create, move |c| create(kind, c)),
            ),
            ca(Method::GET, n.item, n.get, move |c| read(kind, c)),
            write(Method::DELETE, n.item, n.delete, move |c| set_deleted(kind, c, true))
                .body::<NoBody>(),
            edit_body(
                kind,
                write(Method::PUT, n.item, n.edit, move |c| {
                    super::contribution_edit::edit(kind, c)
                }),
            ),
            write(Method::POST, n.restore, n.restore_op, move |c| set_deleted(kind, c, false))
                .body::<NoBody>(),
        ]);
        if kind != Kind::Comment {
            all.push(ca(Method::GET, n.related, n.related_op, move |c| related(kind, c)).paged());
        }
    }
    all.push(
        write(Method::DELETE, names(Kind::Discussion).restore, "restoreDiscussionByDelete", |c| {
            set_deleted(Kind::Discussion, c, false)
        })
        .body::<NoBody>(),
    );
    all.push(
        write(Method::POST, "/api/v2/comment/{id}/restore", "restoreCommentNoSlash", |c| {
            set_deleted(Kind::Comment, c, false)
        })
        .body::<NoBody>(),
    );
    all
}

/// The create of `kind`, declaring its body: the type whose `parse` is
/// [`contribution::validate`] for that kind.
fn create_body(kind: Kind, e: Endpoint) -> Endpoint {
    use crate::model::contribution_body::*;
    match kind {
        Kind::Discussion => e.body::<DiscussionBody>(),
        Kind::Post => e.body::<PostBody>(),
        Kind::Status => e.body::<StatusBody>(),
        Kind::Comment => e.body::<CommentBody>(),
    }
}

/// The edit of `kind`, declaring its body: the type whose `parse` is
/// [`contribution::validate_edit`] for that kind (the create body but for comments).
fn edit_body(kind: Kind, e: Endpoint) -> Endpoint {
    match kind {
        Kind::Comment => e.body::<crate::model::contribution_body::CommentEditBody>(),
        _ => create_body(kind, e),
    }
}

/// `POST /api/v2/{kind}/`: 201 with the new object.
async fn create(kind: Kind, mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (now, base) = (call.now, call.base());
    // read and checked now (nothing here needs the database, so none of it holds the
    // write lock); reported only after the full authentication in the transaction
    let checked =
        call.json::<Map<String, Value>>().await.map(|body| contribution::validate(kind, &body));
    let created = call
        .write(move |tx, who| {
            let (draft, mut errors) = checked?;
            // a community where only staff publish (`configurations.post_only_staff_enabled`,
            // the kit then hides its Composer from members): comments stay open to all
            if kind != Kind::Comment
                && !who.is_staff
                && crate::db::preferences::get_bool(
                    tx,
                    "configurations",
                    "post_only_staff_enabled",
                    false,
                )?
            {
                return Err(ApiError::PermissionDenied);
            }
            // the checks that need the database, collected with the others
            crate::api::categories::item_errors(tx, kind, &draft, &mut errors)?;
            let mut target_pk = None;
            // a comment is in its item's group or event; an item in the one its body names
            let (mut group_id, mut event_id) = (None, None);
            if let Some((tk, tid)) = draft.target {
                match store::meta(tx, tk, tid)? {
                    Some(m)
                        if !m.deleted
                            && crate::db::spaces::shows_item(tx, m.pk, Some(who.user_id))? =>
                    {
                        target_pk = Some(m.pk);
                        (group_id, event_id) = (m.group_id, m.event_id);
                    }
                    _ => errors.push(FieldError::new(
                        tk.as_str(),
                        "invalid",
                        format!("No {} with id {tid}.", tk.as_str()),
                    )),
                }
            }
            if let Some(g) = draft.group {
                match crate::api::groups::member_of(tx, g, who)? {
                    Ok(()) => group_id = Some(g),
                    Err(e) => errors.push(e),
                }
            }
            if let Some(e) = draft.event {
                match crate::api::events::member_of(tx, e, who)? {
                    Ok(()) => event_id = Some(e),
                    Err(e) => errors.push(e),
                }
            }
            if let Some(poll) = &draft.poll {
                errors.extend(crate::api::polls::may_make(tx, poll, &who, now)?);
            }
            errors.extend(crate::api::media_items::showable(
                tx,
                &who,
                draft.medias.as_deref(),
                None,
            )?);
            let in_space = draft.group.is_some() || draft.event.is_some();
            errors.extend(crate::api::tags::addressing_errors(
                tx,
                kind,
                &draft.addressing,
                in_space,
                &who,
                &[],
            )?);
            let mut parent_pk = None;
            if let Some(pid) = draft.parent {
                match store::meta(tx, Kind::Comment, pid)? {
                    Some(m) if !m.deleted && (target_pk.is_none() || m.target_pk == target_pk) => {
                        parent_pk = Some(m.pk);
                    }
                    _ => errors.push(FieldError::new(
                        "parent",
                        "invalid",
                        format!("No comment with id {pid} on the same item."),
                    )),
                }
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            let id = store::insert(
                tx,
                &NewContribution {
                    kind,
                    author_id: who.user_id,
                    title: draft.title,
                    action: draft.action,
                    text: draft.text,
                    added_at: now,
                    target_pk,
                    parent_pk,
                    categories: draft.categories,
                    group_id,
                    event_id,
                    addressing: draft.addressing,
                },
            )?;
            let medias = draft.medias.unwrap_or_default();
            if draft.poll.is_some() || !medias.is_empty() {
                let m = store::meta(tx, kind, id)?
                    .ok_or_else(|| ApiError::internal("contribution vanished after insert"))?;
                if let Some(poll) = &draft.poll {
                    crate::db::polls::insert(tx, m.pk, poll, now)?;
                }
                crate::db::media_items::show_in(tx, m.pk, &medias)?;
            }
            Ok::<_, ApiError>((id, who.user_id))
        })
        .await?;
    // the item as a read shows it, read once committed (a delete since shows as such)
    let (id, author) = created;
    let json = call
        .answer(move |c| {
            let item = store::get(c, kind, id, Some(author))?
                .ok_or_else(|| ApiError::internal("contribution vanished after insert"))?;
            Ok(item.to_json(&base, now))
        })
        .await?;
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /api/v2/{kind}/{id}/`: a deleted item is 404 except for its creator.
async fn read(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, now) = (call.id(), call.base(), call.now);
    let json = call
        .read(move |c, who| {
            let viewer = who.map(|w| w.user_id);
            let item = store::get(c, kind, id, viewer)?.ok_or(ApiError::NotFound)?;
            if item.deleted && viewer != Some(item.author.id)
                || !crate::db::spaces::shows_item(c, item.pk, viewer)?
            {
                return Err(ApiError::NotFound);
            }
            Ok::<_, ApiError>(item.to_json(&base, now))
        })
        .await?;
    Ok(ok(&json))
}

crate::query_params! {
    /// The order of a kind's list.
    struct ListOrder {
        /// -added_at (newest first, the default) or added_at (oldest first). The kit's
        /// comment orders -connection and connection are served as -added_at and
        /// added_at: comments by the caller's connections are not put first. Anything
        /// else is 400.
        #[param(schema_with = orderings)]
        ordering: Option<String>,
    }
}

fn orderings() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["-added_at", "added_at", "-connection", "connection"])
}

crate::query_params! {
    /// Which comments a comment list holds (every live comment without them). Several
    /// filters must name the same item, else the page is empty.
    struct CommentFilters {
        /// Only the top-level comments of this discussion. A non-integer is 400; an
        /// unknown or deleted discussion gives an empty page.
        #[param(value_type = Option<i64>)]
        discussion: Option<String>,
        /// Only the top-level comments of this post (as `discussion`).
        #[param(value_type = Option<i64>)]
        post: Option<String>,
        /// Only the top-level comments of this status (as `discussion`).
        #[param(value_type = Option<i64>)]
        status: Option<String>,
        /// Only the replies to this comment. A non-integer is 400; an unknown or deleted
        /// comment, or one on another item than the one named, gives an empty page.
        #[param(value_type = Option<i64>)]
        parent: Option<String>,
    }
}

/// `GET /api/v2/{kind}/`: live items, newest first (`ordering`, [`ListOrder`]).
/// Comments: `discussion`, `post` or `status` narrow the list to that item's top-level
/// comments, `parent` to one comment's replies (the threads the kit's comment list
/// reads); neither lists every comment ([`CommentFilters`]).
async fn list(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (base, q, now) = (call.base(), call.query()?, call.now);
    let url = base.at(&call.req.path);
    let json = call
        .read(move |c, who| {
            let page = Page::from_query(&q)?;
            let order = match ListOrder::read(&q)?.ordering.as_deref().map(str::trim) {
                None | Some("" | "-added_at" | "-connection") => Order::NewestFirst,
                Some("added_at" | "connection") => Order::OldestFirst,
                Some(_) => {
                    return Err(ApiError::field(
                        "ordering",
                        "invalid",
                        "One of added_at, -added_at, connection, -connection.",
                    ));
                }
            };
            let mut filters = Vec::new();
            if kind == Kind::Comment {
                let f = CommentFilters::read(&q)?;
                let named = [
                    (Kind::Discussion, "discussion", f.discussion),
                    (Kind::Post, "post", f.post),
                    (Kind::Status, "status", f.status),
                    (Kind::Comment, "parent", f.parent),
                ];
                for (tk, name, value) in named {
                    if let Some(v) = value {
                        let tid = v.trim().parse::<i64>().map_err(|_| {
                            ApiError::field(name, "invalid", "Must be an integer id.")
                        })?;
                        filters.push((tk, tid));
                    }
                }
            }
            // every filter must name a live item, the parent one on the item named;
            // otherwise nothing matches
            let mut scope = Scope::All;
            let mut target = None;
            let mut nothing = false;
            for (tk, tid) in filters {
                match store::meta(c, tk, tid)? {
                    Some(m)
                        if m.deleted
                            || !crate::db::spaces::shows_item(c, m.pk, who.map(|w| w.user_id))? =>
                    {
                        nothing = true;
                    }
                    Some(m) if tk == Kind::Comment => {
                        nothing |= target.is_some_and(|t| Some(t) != m.target_pk);
                        scope = Scope::Replies(m.pk);
                    }
                    Some(m) if target.is_none_or(|t| t == m.pk) => {
                        target = Some(m.pk);
                        if scope == Scope::All {
                            scope = Scope::Thread(m.pk);
                        }
                    }
                    _ => nothing = true,
                }
            }
            let (count, items) = if nothing {
                (0, Vec::new())
            } else {
                store::list(c, kind, scope, who.map(|w| w.user_id), order, page.limit, page.offset)?
            };
            let results = items.iter().map(|i| i.to_json(&base, now)).collect();
            Ok::<_, ApiError>(envelope(&url, &q, page, count, results))
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/{kind}/{id}/related/` (CA): the live items that share a category with
/// this one, newest first, at most [`crate::db::related::RELATED_MAX`]
/// (`db::related`), paginated; a deleted or unknown item is 404.
async fn related(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, q, now) = (call.id(), call.base(), call.query()?, call.now);
    let url = base.at(&call.req.path);
    let json = call
        .read(move |c, who| {
            let page = Page::from_query(&q)?;
            let viewer = who.map(|w| w.user_id);
            let m = store::meta(c, kind, id)?.filter(|m| !m.deleted).ok_or(ApiError::NotFound)?;
            if !crate::db::spaces::shows_item(c, m.pk, viewer)? {
                return Err(ApiError::NotFound);
            }
            let all = crate::db::related::related(c, m.pk, viewer)?;
            let count = i64::try_from(all.len()).unwrap_or(i64::MAX);
            let mut items = crate::api::listing::window(&all, page).to_vec();
            crate::db::related::complete_all(c, &mut items, viewer)?;
            let results = items.iter().map(|i| i.to_json(&base, now)).collect();
            Ok::<_, ApiError>(envelope(&url, &q, page, count, results))
        })
        .await?;
    Ok(ok(&json))
}

/// `DELETE /api/v2/{kind}/{id}/` (`deleted = true`) and the restore routes
/// (`deleted = false`): creator only, 204, idempotent.
async fn set_deleted(
    kind: Kind,
    mut call: Call<Principal>,
    deleted: bool,
) -> Result<Response, ApiError> {
    call.before_body().await?;
    let id = call.id();
    let no_body = call.no_body().await;
    call.write(move |tx, who| {
        no_body?;
        let m = store::meta(tx, kind, id)?.ok_or(ApiError::NotFound)?;
        if m.author_id != who.user_id {
            // another user's deleted item is invisible to the caller
            return Err(if m.deleted { ApiError::NotFound } else { ApiError::PermissionDenied });
        }
        store::set_deleted(tx, &m, deleted)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::route::Auth;

    #[test]
    fn every_kind_declares_its_operations_with_the_auth_classes_of_spec_5() {
        let all = endpoints();
        // six per kind (edit among them), related for the three that have categories,
        // DELETE on the discussion restore path, the slashless restore
        assert_eq!(all.len(), 4 * 6 + 3 + 2);
        for e in &all {
            let read = e.method == Method::GET;
            assert_eq!(e.auth, if read { Auth::Ca } else { Auth::Write }, "{e:?}");
            assert_eq!(e.writes, !read, "{e:?}");
        }
    }
}
