//! The lists of events (`db::events::page`: one order and one privacy rule for all):
//! the search, the caller's events, the events a user created or is in, the
//! suggestions and an event's related events. Each takes the kit's filters:
//! `search`, `date_filter`, `location`, `follows`, `created_by`, and `timezone` (hearth's:
//! the zone the date filters count days in, UTC unless named).

use rusqlite::Connection;
use warp::http::Method;
use warp::reply::Response;

use super::{enabled, events_json, visible_event};
use crate::api::call::{Call, ca, user};
use crate::api::listing::list_page;
use crate::clock::Timestamp;
use crate::db::events::{self as db, Filters, Scope};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::query_params::nonempty;
use crate::http::route::Endpoint;
use crate::model::event::{EventJson, EventStatus, JoinStatus, Location};
use crate::model::event_time::{DateFilter, zone};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/event/", "listMyEvents", list_mine)
            .query::<MyEvents>()
            .list::<EventFilters>(),
        ca(Method::GET, "/api/v2/event/search/", "searchEvents", |c| all(c, Scope::All))
            .list::<EventFilters>(),
        user(Method::GET, "/api/v2/event/created/", "listMyCreatedEvents", created)
            .list::<EventFilters>(),
        ca(Method::GET, "/api/v2/user/{id}/events/", "listUserEvents", user_events)
            .list::<EventFilters>(),
        user(Method::GET, "/api/v2/suggestion/event/", "suggestEvents", suggest)
            .list::<EventFilters>(),
        ca(Method::GET, "/api/v2/event/{id}/related/", "listRelatedEvents", related)
            .list::<EventFilters>(),
    ]
}

crate::query_params! {
    /// The filters every event list takes (the kit's `SCEventDateFilterType` and its
    /// calendar's).
    struct EventFilters {
        /// A substring of the name or the description (case-insensitively).
        search: Option<String>,
        /// all (no filter), today, tomorrow, this_week, next_week (weeks from Monday),
        /// this_month: events with an occurrence overlapping that range of days in the
        /// zone `timezone` names; not_past: with an occurrence under way or to come; past:
        /// whose first occurrence has ended (a recurring event that has begun is both past
        /// and not past). Another value is 400.
        #[param(schema_with = date_filters)]
        date_filter: Option<String>,
        /// true: as date_filter=past (the kit's calendar filter).
        past: Option<bool>,
        /// any (no filter), in person or virtual; another value is 400.
        #[param(schema_with = locations)]
        location: Option<String>,
        /// true: only events a user the caller follows is a member of.
        follows: Option<bool>,
        /// Only events this user created.
        created_by: Option<i64>,
        /// The IANA zone the date filters count days in (UTC unless named; an unknown
        /// name is 400).
        timezone: Option<String>,
    }
}

fn date_filters() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&DateFilter::NAMES)
}

fn locations() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["any", "in person", "virtual"])
}

crate::query_params! {
    /// The caller's events by their answer.
    struct MyEvents {
        /// going, not_going, subscribed (the default: every member's), invited or
        /// requested; another value is 400.
        #[param(schema_with = event_statuses)]
        subscription_status: Option<String>,
    }
}

fn event_statuses() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&["going", "not_going", "subscribed", "invited", "requested"])
}

/// The filters of a list's query (400 for a bad value).
fn filters(q: &Query) -> Result<Filters, ApiError> {
    let p = EventFilters::read(q)?;
    let mut f = Filters { text: nonempty(&p.search).map(str::to_owned), ..Filters::default() };
    if let Some(d) = p.date_filter.as_deref().filter(|d| !d.is_empty()) {
        f.date = DateFilter::parse(d)
            .map_err(|m| ApiError::field("date_filter", "invalid_choice", m))?;
    }
    if p.past == Some(true) {
        f.date = Some(DateFilter::Past);
    }
    match p.location.as_deref() {
        None | Some("" | "any") => {}
        Some(l) => {
            f.location = Some(
                Location::parse(l).map_err(|m| ApiError::field("location", "invalid_choice", m))?,
            );
        }
    }
    f.follows = p.follows == Some(true);
    f.created_by = p.created_by;
    if let Some(z) = p.timezone.as_deref().filter(|z| !z.is_empty()) {
        f.zone = zone(z).ok_or_else(|| {
            ApiError::field(
                "timezone",
                "invalid",
                "Not a known time zone: give an IANA name, or UTC.",
            )
        })?;
    }
    Ok(f)
}

/// One page of a list: the events `viewer` may list in `scope` that pass the query's
/// filters, as JSON.
fn listing(
    c: &Connection,
    viewer: Option<i64>,
    scope: &Scope,
    f: &Filters,
    q: &Query,
    base: &crate::model::PublicUrl,
    now: Timestamp,
) -> Result<(Page, i64, Vec<EventJson>), ApiError> {
    enabled(c)?;
    let page = Page::from_query(q)?;
    let (count, ids) = db::page(c, viewer, scope, f, now, page.limit, page.offset)?;
    Ok((page, count, events_json(c, &ids, viewer, base, now)?))
}

/// `GET /api/v2/event/search/` (CA): every event the caller may list.
async fn all(call: Call<Option<Principal>>, scope: Scope) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        listing(c, who.map(|w| w.user_id), &scope, &filters(q)?, q, &base, now)
    })
    .await
}

/// `GET /api/v2/event/` (auth): the caller's events, members' (creator, admin,
/// subscribed) by default; `subscription_status` narrows to `going`, `not_going`,
/// `invited` or `requested` (the kit's calendar asks `going`).
async fn list_mine(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let wanted = MyEvents::read(q)?.subscription_status;
        let (statuses, going) =
            match wanted.as_deref().filter(|s| !s.is_empty()).map(EventStatus::parse) {
                None => (JoinStatus::MEMBERS.to_vec(), None),
                Some(Ok(EventStatus::Going)) => (JoinStatus::MEMBERS.to_vec(), Some(true)),
                Some(Ok(EventStatus::NotGoing)) => (JoinStatus::MEMBERS.to_vec(), Some(false)),
                Some(Ok(EventStatus::Subscribed)) => (JoinStatus::MEMBERS.to_vec(), None),
                Some(Ok(EventStatus::Invited)) => (vec![JoinStatus::Invited], None),
                Some(Ok(EventStatus::Requested)) => (vec![JoinStatus::Requested], None),
                Some(Err(m)) => {
                    return Err(ApiError::field("subscription_status", "invalid_choice", m));
                }
            };
        let scope = Scope::MemberOf { user: who.user_id, statuses, going };
        listing(c, Some(who.user_id), &scope, &filters(q)?, q, &base, now)
    })
    .await
}

/// `GET /api/v2/event/created/` (auth): the events the caller created.
async fn created(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let f = Filters { created_by: Some(who.user_id), ..filters(q)? };
        let scope =
            Scope::MemberOf { user: who.user_id, statuses: vec![JoinStatus::Creator], going: None };
        listing(c, Some(who.user_id), &scope, &f, q, &base, now)
    })
    .await
}

/// `GET /api/v2/user/{id}/events/` (CA): the events a live user is in that the caller
/// may list: as a member for anyone; also invited or requested for the user itself
/// (the kit's events manager reads its statuses here).
async fn user_events(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, now) = (call.id(), call.base(), call.now);
    list_page(&call, move |c, who, q| {
        enabled(c)?;
        if !crate::db::users::is_live(c, id)? {
            return Err(ApiError::NotFound);
        }
        let viewer = who.map(|w| w.user_id);
        let statuses = if viewer == Some(id) {
            JoinStatus::ALL.to_vec()
        } else {
            JoinStatus::MEMBERS.to_vec()
        };
        let scope = Scope::MemberOf { user: id, statuses, going: None };
        listing(c, viewer, &scope, &filters(q)?, q, &base, now)
    })
    .await
}

/// `GET /api/v2/suggestion/event/` (auth): events under way or to come that the
/// caller may list and is not in, soonest first.
async fn suggest(call: Call<Principal>) -> Result<Response, ApiError> {
    let (base, now) = (call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let f = Filters { date: Some(DateFilter::NotPast), ..filters(q)? };
        listing(c, Some(who.user_id), &Scope::NotIn, &f, q, &base, now)
    })
    .await
}

/// `GET /api/v2/event/{id}/related/` (CA): the other events of the same creator that
/// the caller may list and that are under way or to come, soonest first.
async fn related(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, base, now) = (call.id(), call.base(), call.now);
    list_page(&call, move |c, who, q| {
        let viewer = who.map(|w| w.user_id);
        let (e, _) = visible_event(c, id, who)?;
        let f = Filters {
            created_by: Some(e.created_by),
            date: Some(DateFilter::NotPast),
            except: Some(id),
            ..filters(q)?
        };
        listing(c, viewer, &Scope::All, &f, q, &base, now)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented choices are the ones the parsers take.
    #[test]
    fn every_documented_choice_parses() {
        for v in DateFilter::NAMES {
            assert!(DateFilter::parse(v).is_ok(), "{v}");
        }
        for v in ["in person", "virtual"] {
            assert!(Location::parse(v).is_ok(), "{v}");
        }
        for v in ["going", "not_going", "subscribed", "invited", "requested"] {
            assert!(EventStatus::parse(v).is_ok(), "{v}");
        }
        let doc = serde_json::to_value(date_filters()).unwrap_or_default();
        assert_eq!(doc["enum"].as_array().map(Vec::len), Some(8));
    }
}
