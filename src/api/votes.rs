//! `/api/v2/{discussion,post,status,comment}/{id}/vote/` (SPEC §8): a caller's vote
//! (a reaction applied to a contribution) added, removed or replaced, and the list of
//! votes.

use rusqlite::Connection;
use serde_json::{Map, Value};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, write};
use crate::api::listing::list_page;
use crate::api::people::users_json;
use crate::db::contributions::{self as store, Meta};
use crate::db::votes;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::body::{JSON_LIMIT, media_type};
use crate::http::empty;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::model::contribution::Kind;
use crate::model::ids::id_value;
use crate::model::vote::{DEFAULT_REACTION, VoteJson, reaction_json};

/// The endpoints of this module: a vote and a vote list for each kind.
pub fn endpoints() -> Vec<Endpoint> {
    let mut out = Vec::new();
    for kind in Kind::ALL {
        let (path, vote_op, list_op) = match kind {
            Kind::Discussion => {
                ("/api/v2/discussion/{id}/vote/", "voteDiscussion", "listDiscussionVotes")
            }
            Kind::Post => ("/api/v2/post/{id}/vote/", "votePost", "listPostVotes"),
            Kind::Status => ("/api/v2/status/{id}/vote/", "voteStatus", "listStatusVotes"),
            Kind::Comment => ("/api/v2/comment/{id}/vote/", "voteComment", "listCommentVotes"),
        };
        out.push(ca(Method::GET, path, list_op, move |c| list(kind, c)).list::<ReactionId>());
        out.push(
            write(Method::POST, path, vote_op, move |c| vote(kind, c))
                .query::<ReactionId>()
                .body::<VoteBody>(),
        );
    }
    out
}

/// The item a caller may see: 404 when it does not exist, is deleted and the caller
/// is not its creator (SPEC §5's rule for reading an item), or was made in a group
/// or an event whose items the caller may not see (`db::spaces::item_shown`).
pub(crate) fn visible_item(
    c: &Connection,
    kind: Kind,
    id: i64,
    who: Option<i64>,
) -> Result<Meta, ApiError> {
    let m = store::meta(c, kind, id)?.ok_or(ApiError::NotFound)?;
    if m.deleted && who != Some(m.author_id) || !crate::db::spaces::shows_item(c, m.pk, who)? {
        return Err(ApiError::NotFound);
    }
    Ok(m)
}

fn not_an_id() -> ApiError {
    ApiError::field("reaction", "invalid", "A valid integer is required.")
}

crate::query_params! {
    /// The reaction of a vote, or of the votes listed.
    struct ReactionId {
        /// A reaction id. The list: only the votes with this reaction (an unknown id
        /// matches nothing). A vote: its reaction (default 1, like; with the body's
        /// `reaction` too, both must agree). Not an integer (empty included): 400.
        #[param(value_type = Option<i64>)]
        reaction: Option<String>,
    }
}

/// The `reaction` query parameter, if given: an integer id, else 400.
fn reaction_query(q: &Query) -> Result<Option<i64>, ApiError> {
    ReactionId::read(q)?
        .reaction
        .map(|v| v.trim().parse::<i64>().map_err(|_| not_an_id()))
        .transpose()
}

/// The reaction of a vote: `?reaction=N` or `{"reaction": N}` (a number or a numeric
/// string), `like` (1) when neither is given; both given must agree.
fn chosen_reaction(q: &Query, body: Option<&Map<String, Value>>) -> Result<i64, ApiError> {
    let from_query = reaction_query(q)?;
    let from_body = VoteBody::parse(body)?.reaction;
    match (from_query, from_body) {
        (Some(a), Some(b)) if a != b => Err(ApiError::field(
            "reaction",
            "invalid",
            "The query and the body name different reactions.",
        )),
        (a, b) => Ok(a.or(b).unwrap_or(DEFAULT_REACTION)),
    }
}

/// A vote's body (optional, as is each field).
#[derive(Debug, Default, utoipa::ToSchema)]
struct VoteBody {
    /// The reaction's id (a number or a numeric string; null: none named); default 1
    /// (like). With `?reaction=` too, both must name the same one (else 400).
    #[schema(value_type = Option<i64>)]
    reaction: Option<i64>,
}

impl VoteBody {
    /// Reads a vote's body (`None`: no body); a reaction that is not an id is 400.
    fn parse(body: Option<&Map<String, Value>>) -> Result<VoteBody, ApiError> {
        let reaction = match body.and_then(|b| b.get("reaction")) {
            None | Some(Value::Null) => None,
            Some(v) => Some(id_value(v).ok_or_else(not_an_id)?),
        };
        Ok(VoteBody { reaction })
    }
}

/// The optional body of a vote: nothing (whatever its content type), or a JSON object
/// (415 for another content type, 400 for anything but an object).
async fn optional_object(
    call: &mut Call<Principal>,
) -> Result<Option<Map<String, Value>>, ApiError> {
    let body = call.take_body();
    let held = body.read(&call.req.headers, JSON_LIMIT).await?;
    if held.bytes().iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    match media_type(&call.req.headers).as_deref() {
        Some("application/json") => {}
        Some(t) if t.starts_with("application/") && t.ends_with("+json") => {}
        _ => return Err(ApiError::UnsupportedMediaType),
    }
    match serde_json::from_slice::<Value>(held.bytes()) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(ApiError::ParseError("expected a JSON object".into())),
        Err(e) => Err(ApiError::ParseError(e.to_string())),
    }
}

/// `POST /api/v2/{kind}/{id}/vote/`: adds the caller's vote with the reaction, removes
/// it when it has that reaction, replaces another; 204.
async fn vote(kind: Kind, mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now, q) = (call.id(), call.now, call.query()?);
    // read now, judged after the full authentication in the transaction
    let body = optional_object(&mut call).await;
    call.write(move |tx, who| {
        let reaction = chosen_reaction(&q, body?.as_ref())?;
        let item = visible_item(tx, kind, id, Some(who.user_id))?;
        if item.deleted {
            return Err(ApiError::NotFound);
        }
        let usable = crate::db::reactions::get(tx, reaction)?.is_some_and(|r| r.active);
        if !usable {
            return Err(ApiError::field(
                "reaction",
                "invalid",
                format!("No active reaction with id {reaction}."),
            ));
        }
        votes::toggle(tx, item.pk, who.user_id, reaction, now)?;
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/{kind}/{id}/vote/` (CA): the votes of live users, newest first;
/// `reaction` narrows to one reaction.
async fn list(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let reaction = reaction_query(q)?;
        let viewer = who.map(|w| w.user_id);
        let item = visible_item(c, kind, id, viewer)?;
        let count = votes::count(c, item.pk, reaction)?;
        let rows = votes::page(c, item.pk, reaction, page.limit, page.offset)?;
        let mut rest = Vec::with_capacity(rows.len());
        let mut users = Vec::with_capacity(rows.len());
        for (u, r, at) in rows {
            users.push(u);
            rest.push((r, at));
        }
        let results: Vec<VoteJson> = users_json(c, users, viewer, &base)?
            .into_iter()
            .zip(rest)
            .map(|(user, (r, at))| VoteJson {
                user,
                reaction: reaction_json(&base, &r),
                voted_at: crate::clock::rfc3339(at),
            })
            .collect();
        Ok((page, count, results))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(qs: &str, body: Value) -> Result<i64, String> {
        let q = Query::parse(qs);
        chosen_reaction(&q, body.as_object()).map_err(|e| format!("{e:?}"))
    }

    /// Every documented field of the body is read.
    #[test]
    fn every_documented_field_is_read() {
        let unread =
            crate::model::field::unread_properties::<VoteBody>(|m| {
                match VoteBody::parse(Some(m)) {
                    Err(ApiError::Invalid(e)) => e,
                    _ => Vec::new(),
                }
            });
        assert!(unread.is_empty(), "{unread:?}");
    }

    #[test]
    fn the_reaction_comes_from_the_query_or_the_body() {
        assert_eq!(pick("", Value::Null), Ok(1));
        assert_eq!(pick("reaction=3", Value::Null), Ok(3));
        assert_eq!(pick("", serde_json::json!({"reaction": "4"})), Ok(4));
        assert_eq!(pick("", serde_json::json!({"reaction": null})), Ok(1));
        assert_eq!(pick("reaction=2", serde_json::json!({"reaction": 2})), Ok(2));
        assert!(pick("reaction=2", serde_json::json!({"reaction": 3})).is_err());
        assert!(pick("reaction=x", Value::Null).is_err());
        assert!(pick("reaction=", Value::Null).is_err());
        assert!(pick("", serde_json::json!({"reaction": 1.5})).is_err());
        assert!(pick("", serde_json::json!({"reaction": [1]})).is_err());
    }
}
