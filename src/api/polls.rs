//! Polls (SPEC §10 People: "polls on posts and poll votes"): a discussion or post
//! made with a `poll` carries it (`api::contributions`); members vote with
//! `POST /api/v2/{type}/{id}/poll/vote/` and list the votes with `GET`. On while
//! `addons.polls_enabled` is true; staff may make polls either way (the kit's composer
//! offers them the poll type whatever the preference).

use rusqlite::Connection;
use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, ca, write};
use crate::api::listing::list_page;
use crate::api::votes::visible_item;
use crate::clock::Timestamp;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::empty;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::contribution::Kind;
use crate::model::field::FieldError;
use crate::model::ids::id_value;
use crate::model::poll::PollInput;

/// The endpoints of this module: a vote and a vote list for discussions and posts.
pub fn endpoints() -> Vec<Endpoint> {
    let mut out = Vec::new();
    for (kind, path, vote_op, list_op) in [
        (
            Kind::Discussion,
            "/api/v2/discussion/{id}/poll/vote/",
            "voteDiscussionPoll",
            "listDiscussionPollVotes",
        ),
        (Kind::Post, "/api/v2/post/{id}/poll/vote/", "votePostPoll", "listPostPollVotes"),
    ] {
        out.push(ca(Method::GET, path, list_op, move |c| list(kind, c)).list::<VoteFilter>());
        out.push(
            write(Method::POST, path, vote_op, move |c| vote(kind, c))
                .body_limit(1024)
                .body::<PollVote>(),
        );
    }
    out
}

/// What keeps `who` from making `poll` now (empty: nothing): polls off for a member,
/// an `expiration_at` already past.
pub fn may_make(
    c: &Connection,
    poll: &PollInput,
    who: &Principal,
    now: Timestamp,
) -> Result<Vec<FieldError>, ApiError> {
    let mut errors = Vec::new();
    if !who.is_staff && !crate::db::preferences::get_bool(c, "addons", "polls_enabled", false)? {
        errors.push(FieldError::new(
            "poll",
            "invalid",
            "Polls are not enabled on this community (addons.polls_enabled).",
        ));
    }
    if poll.expiration_at.is_some_and(|t| t <= now) {
        errors.push(FieldError::new("poll", "invalid", "expiration_at is in the past."));
    }
    Ok(errors)
}

/// The body of a vote (`PollVote`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = PollVote, description = "The choice voted for; any other key is 400.")]
struct PollVote {
    /// Required: the id of one of the poll's choices (an integer or a numeric string); a
    /// choice of another poll is 400.
    choice: i64,
}

impl PollVote {
    /// `{"choice": id}`: 400 on another key, or without an id.
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        if let Some(e) = FieldError::first_unknown(body, &["choice"]) {
            return Err(ApiError::Invalid(vec![e]));
        }
        let choice = body
            .get("choice")
            .and_then(id_value)
            .ok_or_else(|| ApiError::field("choice", "required", "A choice id is required."))?;
        Ok(PollVote { choice })
    }
}

/// `POST /api/v2/{type}/{id}/poll/vote/` (auth, write): `{"choice": id}` toggles the
/// caller's vote for that choice (again: taken back); in a single-choice poll a vote
/// replaces the caller's other one. An item the caller may not see is 404; one without
/// a poll, a choice of another poll or a closed or expired poll is 400 on `choice`.
/// 204.
async fn vote(kind: Kind, mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let (id, now) = (call.id(), call.now);
    call.write(move |tx, who| {
        let PollVote { choice } = PollVote::parse(&body?)?;
        let m = visible_item(tx, kind, id, Some(who.user_id))?;
        let bad = |msg: &str| ApiError::field("choice", "invalid", msg.to_owned());
        let Some((multiple, open)) = crate::db::polls::state(tx, m.pk, now)? else {
            return Err(bad("This item has no poll."));
        };
        if !open {
            return Err(bad("This poll is closed."));
        }
        if !crate::db::polls::has_choice(tx, m.pk, choice)? {
            return Err(bad("No such choice in this poll."));
        }
        crate::db::polls::toggle(tx, m.pk, choice, who.user_id, multiple, now)?;
        Ok(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

crate::query_params! {
    /// The filter of a poll's votes.
    struct VoteFilter {
        /// Only the votes for this choice (its id); empty or absent: every vote. Not an
        /// integer: 400 `invalid`.
        #[param(value_type = Option<i64>)]
        choice: Option<String>,
    }
}

/// `GET /api/v2/{type}/{id}/poll/vote/` (CA; `?choice=`): the poll's votes, the newest
/// first, as `SCPollVoteType` (`{choice, user}`: a vote has no id of its own), paginated.
async fn list(kind: Kind, call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let choice = match VoteFilter::read(q)?.choice.as_deref() {
            None | Some("") => None,
            Some(v) => Some(
                v.parse::<i64>()
                    .map_err(|_| ApiError::field("choice", "invalid", "choice is a choice id."))?,
            ),
        };
        let m = visible_item(c, kind, id, who.map(|w| w.user_id))?;
        let (count, rows) = crate::db::polls::votes(c, m.pk, choice, page.limit, page.offset)?;
        let mut results = Vec::with_capacity(rows.len());
        for (choice, user) in rows {
            let Some(u) = crate::db::users::get(c, user)? else { continue };
            results.push(json!({
                "choice": choice,
                "user": u.to_json(&base, None, crate::db::users::tags(c, u.id)?),
            }));
        }
        Ok((page, count, results))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_each};

    #[test]
    fn every_documented_field_is_read() {
        let unread = unread_properties_each::<PollVote>(|m| invalid_fields(PollVote::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
    }
}
