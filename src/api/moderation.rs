//! Flags and moderation (SPEC §10 People; `db::moderation`): a member flags a
//! discussion, post, status or comment for one of five reasons
//! (`/api/v2/{kind}/{id}/flag/`, the kit's "Report" menu); staff list the flagged
//! contributions and their flags, and delete, hide or ignore each for a reason
//! (`/api/v2/moderation/contribution/...`, the kit's moderation menu), the author being
//! told.

use rusqlite::Connection;
use serde_json::{Map, Value, json};
use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::listing::list_page;
use crate::api::votes::visible_item;
use crate::db::contributions::{self as store, Meta};
use crate::db::moderation::{self, Action, Refused};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::http::{empty, ok};
use crate::model::PublicUrl;
use crate::model::contribution::Kind;
use crate::model::flag::{FlagStatusJson, Reason};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = Vec::new();
    for kind in Kind::ALL {
        let (flag, status, flag_op, status_op, list_op) = match kind {
            Kind::Discussion => (
                "/api/v2/discussion/{id}/flag/",
                "/api/v2/discussion/{id}/flag/status/",
                "flagDiscussion",
                "getDiscussionFlagStatus",
                "listDiscussionFlags",
            ),
            Kind::Post => (
                "/api/v2/post/{id}/flag/",
                "/api/v2/post/{id}/flag/status/",
                "flagPost",
                "getPostFlagStatus",
                "listPostFlags",
            ),
            Kind::Status => (
                "/api/v2/status/{id}/flag/",
                "/api/v2/status/{id}/flag/status/",
                "flagStatus",
                "getStatusFlagStatus",
                "listStatusFlags",
            ),
            Kind::Comment => (
                "/api/v2/comment/{id}/flag/",
                "/api/v2/comment/{id}/flag/status/",
                "flagComment",
                "getCommentFlagStatus",
                "listCommentFlags",
            ),
        };
        all.push(
            write(Method::POST, flag, flag_op, move |c| flag_item(kind, c)).body::<FlagInput>(),
        );
        all.push(user(Method::GET, status, status_op, move |c| flag_status(kind, c)));
        all.push(
            user(Method::GET, flag, list_op, move |c| list_flags(Some(kind), c))
                .list::<FlagFilter>(),
        );
    }
    all.extend([
        user(Method::GET, "/api/v2/moderation/contribution/", "listFlaggedContributions", queue)
            .paged(),
        write(
            Method::PATCH,
            "/api/v2/moderation/contribution/{id}/",
            "moderateContribution",
            decide,
        )
        .body::<Verdict>(),
        user(
            Method::GET,
            "/api/v2/moderation/contribution/{id}/status/",
            "getContributionModerationStatus",
            moderation_status,
        )
        .query::<ContributionKind>(),
        user(
            Method::GET,
            "/api/v2/moderation/contribution/{id}/flag/",
            "listContributionFlags",
            |c| list_flags(None, c),
        )
        .query::<ContributionKind>()
        .list::<FlagFilter>(),
    ]);
    all
}

/// Staff only (403 for a member): the moderation routes. A read-only token of a staff
/// member reads.
fn staff(who: &Principal) -> Result<(), ApiError> {
    if who.is_staff { Ok(()) } else { Err(ApiError::PermissionDenied) }
}

/// A reason given as a number 0–4 in `field` (a JSON number or a numeric string).
fn reason(v: Option<&Value>, field: &str) -> Result<Reason, ApiError> {
    v.and_then(crate::model::ids::id_value).and_then(Reason::from_number).ok_or_else(|| {
        ApiError::field(
            field,
            "invalid_choice",
            "One of 0 (spam), 1 (aggressive), 2 (vulgar), 3 (poor content), 4 (off-topic).",
        )
    })
}

/// Only the `allowed` keys in a body.
fn only(body: &Map<String, Value>, allowed: &[&str]) -> Result<(), ApiError> {
    match crate::model::field::FieldError::first_unknown(body, allowed) {
        Some(e) => Err(ApiError::Invalid(vec![e])),
        None => Ok(()),
    }
}

/// The body of a flag (`FlagWrite`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = FlagWrite, description = "Why the caller flags the contribution; any other key is 400.")]
struct FlagInput {
    /// `flag_type` (described by [`reason_field`]).
    #[schema(schema_with = reason_field, required = true)]
    flag_type: Reason,
}

/// A reason's number: 0-4 as a JSON number or a numeric string.
fn reason_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::String]))
        .enum_values(Some(Reason::ALL.map(Reason::number)))
        .description(Some(
            "Required: 0 (spam), 1 (aggressive), 2 (vulgar), 3 (poor content), 4 (off-topic), \
             as a number or a numeric string; 400 invalid_choice otherwise.",
        ))
        .build()
}

impl FlagInput {
    /// `{"flag_type": N}`: 400 on another key, then on a missing or unknown reason.
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        only(body, &["flag_type"])?;
        Ok(FlagInput { flag_type: reason(body.get("flag_type"), "flag_type")? })
    }
}

/// `POST /api/v2/{kind}/{id}/flag/` (auth, write): `{"flag_type": N}` flags a live
/// contribution of another member; the same reason again takes the flag back, another
/// one changes it. 204.
async fn flag_item(kind: Kind, mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now) = (call.id(), call.now);
    let body = call.object().await;
    call.write(move |tx, who| {
        let FlagInput { flag_type: why } = FlagInput::parse(&body?)?;
        // an item the caller may not see (a private group's, one addressed to tags it
        // does not hold) is 404, as when reading it
        let m = visible_item(tx, kind, id, Some(who.user_id))?;
        if m.deleted {
            return Err(ApiError::NotFound);
        }
        if m.author_id == who.user_id {
            return Err(ApiError::field(
                "flag_type",
                "invalid",
                "You cannot flag your own contribution.",
            ));
        }
        moderation::toggle_flag(tx, m.pk, who.user_id, why, now)?;
        Ok(())
    })
    .await?;
    Ok(empty(StatusCode::NO_CONTENT))
}

/// `GET /api/v2/{kind}/{id}/flag/status/` (auth): the caller's flag on it,
/// `{"flag_type": N|null, "flag_type_description": ...}`.
async fn flag_status(kind: Kind, call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let m = visible_item(c, kind, id, Some(who.user_id))?;
            Ok::<_, ApiError>(FlagStatusJson::of(None, moderation::flag_of(c, m.pk, who.user_id)?))
        })
        .await?;
    Ok(ok(&json))
}

crate::query_params! {
    /// The kind of contribution a moderation route's `{id}` is.
    struct ContributionKind {
        /// The kind of contribution `{id}` is: discussion, post, status or comment
        /// (required: missing or another word is 400 `invalid_choice`).
        #[required = true]
        #[param(schema_with = contribution_kinds)]
        contribution_type: Option<String>,
    }
}

/// The kinds [`target`] takes.
fn contribution_kinds() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&Kind::ALL.map(Kind::as_str))
}

crate::query_params! {
    /// The filter of a contribution's flags.
    struct FlagFilter {
        /// Only the flags for this reason: 0 (spam), 1 (aggressive), 2 (vulgar), 3 (poor
        /// content), 4 (off-topic); another value (empty included) is 400
        /// `invalid_choice`.
        #[param(value_type = Option<i64>, minimum = 0, maximum = 4)]
        flag_type: Option<String>,
    }
}

/// The contribution a moderation route names: `{id}` of the kind `contribution_type`
/// (in the query or the body) says; 400 without a kind, 404 when there is none.
fn target(c: &Connection, id: i64, kind: Option<&str>) -> Result<Meta, ApiError> {
    let kind = kind.and_then(Kind::parse).ok_or_else(|| {
        ApiError::field(
            "contribution_type",
            "invalid_choice",
            "One of discussion, post, status, comment.",
        )
    })?;
    store::meta(c, kind, id)?.ok_or(ApiError::NotFound)
}

/// `GET /api/v2/{kind}/{id}/flag/` and `GET /api/v2/moderation/contribution/{id}/flag/`
/// (staff): the flags on a contribution by live members, newest first; `flag_type`
/// narrows to one reason.
async fn list_flags(kind: Option<Kind>, call: Call<Principal>) -> Result<Response, ApiError> {
    let (id, base) = (call.id(), call.base());
    list_page(&call, move |c, who, q| {
        staff(&who)?;
        let page = Page::from_query(q)?;
        let m = match kind {
            Some(k) => store::meta(c, k, id)?.ok_or(ApiError::NotFound)?,
            None => target(c, id, ContributionKind::read(q)?.contribution_type.as_deref())?,
        };
        let filter = FlagFilter::read(q)?.flag_type;
        let only = filter.map(|v| reason(Some(&json!(v)), "flag_type")).transpose()?;
        let (count, flags) = moderation::flags(c, m.pk, only, page.limit, page.offset)?;
        let mut results = Vec::with_capacity(flags.len());
        for f in flags {
            let u = crate::db::users::get(c, f.user_id)?.ok_or(ApiError::NotFound)?;
            results.push(json!({
                "user": u.to_json(&base, None, crate::db::users::tags(c, u.id)?),
                "added_at": crate::clock::rfc3339(f.at),
                "flag_type": f.reason.number(),
                "flag_type_description": f.reason.description(),
            }));
        }
        Ok((page, count, results))
    })
    .await
}

/// One entry of the staff queue (`SCFlaggedContributionType`).
fn flagged_json(
    c: &Connection,
    s: &moderation::State,
    viewer: i64,
    base: &PublicUrl,
    now: crate::clock::Timestamp,
) -> Result<Option<Value>, ApiError> {
    let Some(item) = store::by_pks(c, &[s.pk], Some(viewer))?.pop() else { return Ok(None) };
    let by = match s.moderator {
        Some(m) => crate::db::users::get(c, m)?.map(|u| u.to_json(base, None, Vec::new())),
        None => None,
    };
    Ok(Some(json!({
        "contribution_type": item.kind.as_str(),
        "contribution": item.to_json(base, now),
        "last_flagged_at": s.last_flagged_at.map(crate::clock::rfc3339),
        "moderation_status": s.status.as_str(),
        "moderation_type": s.reason.map(Reason::number),
        "moderation_by": by,
        "moderation_at": s.moderated_at.map(crate::clock::rfc3339),
    })))
}

/// `GET /api/v2/moderation/contribution/` (staff): the flagged contributions, the most
/// recently flagged first, each with its moderation state.
async fn queue(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q: &Query| {
        staff(&who)?;
        let page = Page::from_query(q)?;
        let count = moderation::queue_count(c)?;
        let mut results = Vec::new();
        for s in moderation::queue(c, page.limit, page.offset)? {
            results.extend(flagged_json(c, &s, who.user_id, &base, now)?);
        }
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/moderation/contribution/{id}/status/?contribution_type=...` (staff):
/// `{"status": open|ignored|hidden|deleted, "flag_type": N|null, ...}`.
async fn moderation_status(call: Call<Principal>) -> Result<Response, ApiError> {
    let (id, q) = (call.id(), call.query()?);
    let json = call
        .read(move |c, who| {
            staff(&who)?;
            let m = target(c, id, ContributionKind::read(&q)?.contribution_type.as_deref())?;
            let s = moderation::state(c, m.pk)?;
            Ok::<_, ApiError>(FlagStatusJson::of(Some(s.status), s.reason))
        })
        .await?;
    Ok(ok(&json))
}

/// The body of a moderation decision. Its fields are judged in this order, between the
/// database's checks: unknown fields (400), `contribution_type` (the item, 404 when
/// there is none), `action`, then `moderation_type`.
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = ModerationDecision)]
struct Verdict {
    /// `contribution_type` (described by [`verdict_kinds`]).
    #[schema(required = true, schema_with = verdict_kinds)]
    contribution_type: Option<String>,
    /// `action` (described by [`actions`]).
    #[schema(required = true, schema_with = actions)]
    action: Option<String>,
    /// The reason, as a flag's flag_type (a number or numeric string); absent or null
    /// when undoing keeps the one in force.
    #[schema(value_type = Option<i64>)]
    moderation_type: Option<Value>,
}

impl Verdict {
    /// The fields a decision may carry; any other is 400.
    const FIELDS: [&'static str; 3] = ["contribution_type", "action", "moderation_type"];

    fn parse(body: &serde_json::Map<String, Value>) -> Result<Verdict, ApiError> {
        only(body, &Self::FIELDS)?;
        let text = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_owned);
        Ok(Verdict {
            contribution_type: text("contribution_type"),
            action: text("action"),
            moderation_type: body.get("moderation_type").cloned(),
        })
    }
}

fn verdict_kinds() -> utoipa::openapi::schema::Object {
    let mut o = contribution_kinds();
    o.description = Some(
        "The kind `{id}` is (required; another word is 400 invalid_choice; no such item: 404)."
            .into(),
    );
    o
}

fn actions() -> utoipa::openapi::schema::Object {
    let mut o = crate::http::query_params::one_of(&["delete", "hide", "ignore"]);
    o.description = Some(
        "Required; else 400 invalid_choice. The same action again undoes it; another \
         decision first needs the one in force undone (400)."
            .into(),
    );
    o
}

/// `PATCH /api/v2/moderation/contribution/{id}/` (staff, write): `{"contribution_type":
/// ..., "action": "delete"|"hide"|"ignore", "moderation_type": N}`. The same action
/// again undoes it; another decision first needs the one in force undone (400). The
/// author is told. Answers the state afterwards.
async fn decide(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now) = (call.id(), call.now);
    let body = call.object().await;
    let json = call
        .write(move |tx, who| {
            staff(&who)?;
            let v = Verdict::parse(&body?)?;
            let m = target(tx, id, v.contribution_type.as_deref())?;
            let action = match v.action.as_deref() {
                Some("delete") => Action::Delete,
                Some("hide") => Action::Hide,
                Some("ignore") => Action::Ignore,
                _ => {
                    return Err(ApiError::field(
                        "action",
                        "invalid_choice",
                        "One of delete, hide, ignore.",
                    ));
                }
            };
            // undoing needs no reason: the one in force is kept for the notice
            let current = moderation::state(tx, m.pk)?;
            let why = match (v.moderation_type.as_ref(), current.reason) {
                (None | Some(Value::Null), Some(r)) => r,
                (v, _) => reason(v, "moderation_type")?,
            };
            match moderation::decide(tx, &m, who.user_id, action, why, now)? {
                Ok(s) => Ok(FlagStatusJson::of(Some(s.status), s.reason)),
                Err(Refused::DeletedByAuthor) => Err(ApiError::field(
                    "action",
                    "invalid",
                    "Its author deleted it: there is nothing to moderate.",
                )),
                Err(Refused::Decided(s)) => Err(ApiError::field(
                    "action",
                    "invalid",
                    format!("It is {} already: undo that first.", s.as_str()),
                )),
            }
        })
        .await?;
    Ok(ok(&json))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decision documents exactly the fields it takes.
    #[test]
    fn a_decision_documents_the_fields_it_takes() {
        let doc = serde_json::to_value(<Verdict as utoipa::PartialSchema>::schema());
        let doc = doc.unwrap_or_default();
        let mut documented: Vec<&str> =
            doc["properties"].as_object().into_iter().flatten().map(|(k, _)| k.as_str()).collect();
        documented.sort_unstable();
        let mut taken = Verdict::FIELDS.to_vec();
        taken.sort_unstable();
        assert_eq!(documented, taken);
        assert_eq!(doc["required"], serde_json::json!(["contribution_type", "action"]));
    }

    /// The documented kinds are the ones `contribution_type` takes.
    #[test]
    fn every_documented_contribution_type_parses() {
        let doc = serde_json::to_value(contribution_kinds()).unwrap_or_default();
        let kinds: Vec<&str> =
            doc["enum"].as_array().into_iter().flatten().filter_map(|k| k.as_str()).collect();
        assert_eq!(kinds.len(), 4);
        for k in kinds {
            assert!(Kind::parse(k).is_some(), "{k}");
        }
    }

    #[test]
    fn every_documented_flag_field_is_read() {
        use crate::model::field::{invalid_fields, unread_properties_each};
        let unread = unread_properties_each::<FlagInput>(|m| invalid_fields(FlagInput::parse(m)));
        assert!(unread.is_empty(), "{unread:?}");
        let doc = serde_json::to_value(reason_field()).unwrap_or_default();
        for n in doc["enum"].as_array().into_iter().flatten() {
            let body = serde_json::json!({ "flag_type": n });
            assert!(body.as_object().is_some_and(|b| FlagInput::parse(b).is_ok()), "{n}");
        }
    }
}
