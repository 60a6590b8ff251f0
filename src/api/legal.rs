//! `/api/v2/legal_page/...` (SPEC §10 People; `db::legal`): the terms and the privacy
//! policy, as staff keep them with `hearth legal`, readable by anyone; a member's
//! acknowledgement of a revision (the kit's ConsentSolution asks at sign-in for the
//! revisions in force that the member has not accepted).

use serde_json::{Map, Value};
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public, user, write};
use crate::api::listing::list_page;
use crate::db::legal;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::legal::{POLICIES, Page as Revision, PageJson};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = vec![
        public(Method::GET, "/api/v2/legal_page/", "getLegalPages", |c| revisions(c, None))
            .list::<PolicyFilter>(),
        public(Method::GET, "/api/v2/legal_page/search/", "searchLegalPages", |c| {
            revisions(c, None)
        })
        .list::<PolicyFilter>(),
        public(
            Method::GET,
            "/api/v2/legal_page/last_revisions/",
            "getAllLastRevisionsOfLegalPages",
            last_revisions,
        ),
        public(Method::GET, "/api/v2/legal_page/{id}/", "getLegalPage", one),
        write(Method::POST, "/api/v2/legal_page/{id}/ack/", "ackLegalPage", acknowledge)
            .body::<Acknowledgement>(),
        user(Method::GET, "/api/v2/legal_page/{id}/user_ack/", "getUserAck", user_ack),
        user(Method::GET, "/api/v2/legal_page/user_acks/", "getUserAcks", user_acks).paged(),
    ];
    for policy in POLICIES {
        let (current, list, current_op, list_op) = match policy {
            "tec" => (
                "/api/v2/legal_page/tec/",
                "/api/v2/legal_page/tec/revisions/",
                "getTermsInForce",
                "getTermsRevisions",
            ),
            _ => (
                "/api/v2/legal_page/privacy/",
                "/api/v2/legal_page/privacy/revisions/",
                "getPrivacyPolicyInForce",
                "getPrivacyPolicyRevisions",
            ),
        };
        all.push(public(Method::GET, current, current_op, move |c| in_force(c, policy)));
        all.push(public(Method::GET, list, list_op, move |c| revisions(c, Some(policy))).paged());
    }
    all
}

/// A revision's JSON for `viewer`: whether it is in force, and the viewer's answer.
fn page_json(
    c: &rusqlite::Connection,
    p: &Revision,
    viewer: Option<i64>,
    now: i64,
) -> Result<PageJson, ApiError> {
    let active = legal::current(c, &p.policy, now)?.is_some_and(|cur| cur.id == p.id);
    let ack = match viewer {
        Some(u) => legal::ack_of(c, p.id, u)?,
        None => None,
    };
    Ok(p.to_json(active, ack.as_ref()))
}

crate::query_params! {
    /// The policy a list of every revision narrows to.
    struct PolicyFilter {
        /// Only this policy's revisions: tec or privacy (empty: every policy; another
        /// word is 400 `invalid_choice`).
        #[param(schema_with = policies)]
        policy: Option<String>,
    }
}

fn policies() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&POLICIES)
}

/// `GET /api/v2/legal_page/` (and `search/`, and each policy's `revisions/`): every
/// revision (of the policy, or the one `policy` names in the query), newest first.
async fn revisions(
    call: Call<Option<Principal>>,
    policy: Option<&'static str>,
) -> Result<Response, ApiError> {
    let now = call.now;
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let policy = match (policy, PolicyFilter::read(q)?.policy.as_deref()) {
            (Some(p), _) => Some(p),
            (None, None | Some("")) => None,
            (None, Some(p)) => Some(POLICIES.into_iter().find(|x| *x == p).ok_or_else(|| {
                ApiError::field("policy", "invalid_choice", "One of tec, privacy.")
            })?),
        };
        let (count, rows) = legal::page(c, policy, page.limit, page.offset)?;
        let viewer = who.map(|w| w.user_id);
        let mut results = Vec::with_capacity(rows.len());
        for p in &rows {
            results.push(page_json(c, p, viewer, now)?);
        }
        Ok((page, count, results))
    })
    .await
}

/// `GET /api/v2/legal_page/last_revisions/`: the revision in force of each policy that
/// has one (a plain array), with the caller's answer.
async fn last_revisions(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let now = call.now;
    let json = call
        .read(move |c, who| {
            let mut out = Vec::new();
            for policy in POLICIES {
                if let Some(p) = legal::current(c, policy, now)? {
                    out.push(page_json(c, &p, who.map(|w| w.user_id), now)?);
                }
            }
            Ok::<_, ApiError>(out)
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/legal_page/{id}/`: one revision.
async fn one(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, now) = (call.id(), call.now);
    let json = call
        .read(move |c, who| {
            let p = legal::get(c, id)?.ok_or(ApiError::NotFound)?;
            page_json(c, &p, who.map(|w| w.user_id), now)
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/legal_page/{tec,privacy}/`: the policy's revision in force, 404 when
/// none is.
async fn in_force(
    call: Call<Option<Principal>>,
    policy: &'static str,
) -> Result<Response, ApiError> {
    let now = call.now;
    let json = call
        .read(move |c, who| {
            let p = legal::current(c, policy, now)?.ok_or(ApiError::NotFound)?;
            page_json(c, &p, who.map(|w| w.user_id), now)
        })
        .await?;
    Ok(ok(&json))
}

/// The body of an acknowledgement (`LegalAck`).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = LegalAck, description = "The caller's answer to the revision; any other key is 400.")]
struct Acknowledgement {
    /// `accept` (described by [`accept_field`]).
    #[schema(schema_with = accept_field, required = true)]
    accept: bool,
}

/// `accept`: 1/0 as a number, a string or a boolean.
fn accept_field() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::String, Type::Boolean]))
        .description(Some(
            "Required: 1, \"1\", \"true\" or true accepts; 0, \"0\", \"false\" or false \
             declines. Anything else is 400.",
        ))
        .build()
}

impl Acknowledgement {
    /// `accept` of an acknowledgement: `1`/`0` as a number, a string or a boolean.
    fn parse(body: &Map<String, Value>) -> Result<Self, ApiError> {
        if let Some(e) = crate::model::field::FieldError::first_unknown(body, &["accept"]) {
            return Err(ApiError::Invalid(vec![e]));
        }
        let accept = match body.get("accept") {
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(n)) if n.as_i64() == Some(1) => true,
            Some(Value::Number(n)) if n.as_i64() == Some(0) => false,
            Some(Value::String(s)) if s == "1" || s == "true" => true,
            Some(Value::String(s)) if s == "0" || s == "false" => false,
            _ => {
                return Err(ApiError::field(
                    "accept",
                    "invalid",
                    "Must be 1 (accept) or 0 (decline).",
                ));
            }
        };
        Ok(Acknowledgement { accept })
    }
}

/// `POST /api/v2/legal_page/{id}/ack/` (auth, write): `{"accept": 1|0}`: the caller
/// accepts or declines that revision (a later answer replaces an earlier one); answers
/// the acknowledgement.
async fn acknowledge(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let (id, now) = (call.id(), call.now);
    let body = call.object().await;
    let json = call
        .write(move |tx, who| {
            let Acknowledgement { accept } = Acknowledgement::parse(&body?)?;
            legal::get(tx, id)?.ok_or(ApiError::NotFound)?;
            Ok::<_, ApiError>(legal::acknowledge(tx, id, who.user_id, accept, now)?.to_json())
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/legal_page/{id}/user_ack/` (auth): the caller's answer to that
/// revision; 404 when it has none.
async fn user_ack(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            let ack = legal::ack_of(c, id, who.user_id)?.ok_or(ApiError::NotFound)?;
            Ok::<_, ApiError>(ack.to_json())
        })
        .await?;
    Ok(ok(&json))
}

/// `GET /api/v2/legal_page/user_acks/` (auth): the caller's answers, in order.
async fn user_acks(call: Call<Principal>) -> Result<Response, ApiError> {
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let (count, rows) = legal::acks(c, who.user_id, page.limit, page.offset)?;
        Ok((page, count, rows.iter().map(crate::model::legal::Ack::to_json).collect()))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::field::{invalid_fields, unread_properties_each};

    #[test]
    fn every_documented_field_is_read() {
        let unread = unread_properties_each::<Acknowledgement>(|m| {
            invalid_fields(Acknowledgement::parse(m))
        });
        assert!(unread.is_empty(), "{unread:?}");
    }
}
