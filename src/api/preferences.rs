//! `/api/v2/dynamic_preference/...`: dynamic preferences (SPEC §5). Reads are public
//! (a bad token is still 401); `PATCH` is for staff.

use serde_json::{Map, Value};
use warp::Filter;
use warp::http::Method;
use warp::reply::Response;

use crate::api::auth;
use crate::db::prefs::{Filter as PrefFilter, OrderKey};
use crate::error::ApiError;
use crate::http::pagination::{Page, envelope};
use crate::http::query::Query;
use crate::http::{Req, Route, body, method_not_allowed, ok, request, respond, slash};
use crate::model::field::FieldError;
use crate::model::pref::{Pref, PrefJson};
use crate::state::AppState;

/// Largest page of preferences (SPEC §6); without `limit` every row is one page.
pub const MAX_LIMIT: i64 = 1000;

/// Routes of this module.
pub fn routes(state: AppState) -> Route {
    search(state.clone())
        .or(collection(state.clone()))
        .unify()
        .or(detail(state))
        .unify()
        .boxed()
}

fn to_json(p: Pref) -> PrefJson {
    PrefJson {
        id: p.id,
        section: p.section,
        name: p.name,
        value: p.value,
    }
}

/// `GET /api/v2/dynamic_preference/search/`
fn search(state: AppState) -> Route {
    warp::path!("api" / "v2" / "dynamic_preference" / "search")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list_prefs(req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// `GET /api/v2/dynamic_preference/` and `PATCH /api/v2/dynamic_preference/`
fn collection(state: AppState) -> Route {
    warp::path!("api" / "v2" / "dynamic_preference")
        .and(slash())
        .and(request(state))
        .then(|req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(list_prefs(req).await),
                Method::PATCH => respond(patch_prefs(req).await),
                _ => method_not_allowed("GET, HEAD, PATCH"),
            }
        })
        .boxed()
}

/// `GET /api/v2/dynamic_preference/{id}/`
fn detail(state: AppState) -> Route {
    warp::path!("api" / "v2" / "dynamic_preference" / i64)
        .and(slash())
        .and(request(state))
        .then(|id: i64, req: Req| async move {
            match req.method {
                Method::GET | Method::HEAD => respond(get_pref(id, req).await),
                _ => method_not_allowed("GET, HEAD"),
            }
        })
        .boxed()
}

/// Splits `section.name` at its first dot; `None` without a dot or with an empty part.
fn split_key(key: &str) -> Option<(String, String)> {
    let (s, n) = key.split_once('.')?;
    (!s.is_empty() && !n.is_empty()).then(|| (s.to_owned(), n.to_owned()))
}

/// The list parameters: `search`, `section`, `keys`, `ordering`.
fn filter(q: &Query) -> Result<PrefFilter, ApiError> {
    let keys = match q.text("keys") {
        None => None,
        Some(v) => Some(
            v.split(',')
                .map(|k| {
                    split_key(k.trim()).ok_or_else(|| {
                        ApiError::field(
                            "keys",
                            "invalid",
                            format!("{k:?} is not a section.name key."),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let ordering = match q.text("ordering") {
        None => vec![(OrderKey::Id, false)],
        Some(v) => v
            .split(',')
            .map(|o| {
                OrderKey::parse(o.trim()).ok_or_else(|| {
                    ApiError::field(
                        "ordering",
                        "invalid_choice",
                        format!(
                            "{o:?} is not a valid ordering: use id, section or name, optionally prefixed with -."
                        ),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(PrefFilter {
        search: q.text("search").map(str::to_owned),
        section: q.text("section").map(str::to_owned),
        keys,
        ordering,
    })
}

async fn list_prefs(req: Req) -> Result<Response, ApiError> {
    let q = req.query();
    let creds = req.credentials();
    let now = req.state.clock.now();
    let parsed =
        Page::from_query_with(&q, None, MAX_LIMIT).and_then(|page| Ok((page, filter(&q)?)));
    let (count, rows, page) = req
        .state
        .db
        .read(move |c| {
            auth::resolve(c, &creds, now)?;
            let (page, filter) = parsed?;
            let (count, rows) = crate::db::prefs::search(c, &filter, page.limit, page.offset)?;
            Ok::<_, ApiError>((count, rows, page))
        })
        .await?;
    let results = rows.into_iter().map(to_json).collect();
    let base = req.state.config.public_url.at(&req.path);
    Ok(ok(&envelope(&base, &q, page, count, results)))
}

async fn get_pref(id: i64, req: Req) -> Result<Response, ApiError> {
    let creds = req.credentials();
    let now = req.state.clock.now();
    let pref = req
        .state
        .db
        .read(move |c| {
            auth::resolve(c, &creds, now)?;
            crate::db::prefs::by_id(c, id)?.ok_or(ApiError::NotFound)
        })
        .await?;
    Ok(ok(&to_json(pref)))
}

/// `PATCH`: every key must exist and every value fit its type, else nothing changes
/// and the 400 names each bad key.
async fn patch_prefs(mut req: Req) -> Result<Response, ApiError> {
    auth::before_body(&mut req).await?;
    let creds = req.credentials();
    let now = req.state.clock.now();
    // read now, judged after authentication (an anonymous PATCH is 401 whatever its body)
    let body = body::json::<Map<String, Value>>(req.body, &req.headers).await;
    let updated = req
        .state
        .db
        .write(move |tx| {
            let who = auth::require_write(tx, &creds, now)?;
            if !who.is_staff {
                return Err(ApiError::PermissionDenied);
            }
            let body = body?;
            let mut errors = Vec::new();
            let mut changes = Vec::new();
            for (key, value) in &body {
                let found = match split_key(key) {
                    Some((s, n)) => crate::db::prefs::get(tx, &s, &n)?,
                    None => None,
                };
                match found {
                    None => errors.push(FieldError::new(
                        key.as_str(),
                        "invalid",
                        "No such preference.",
                    )),
                    Some(p) => match p.kind.check_json(value) {
                        Ok(v) => changes.push((p.id, v)),
                        Err(why) => errors.push(FieldError::new(key.as_str(), "invalid", why)),
                    },
                }
            }
            if !errors.is_empty() {
                return Err(ApiError::Invalid(errors));
            }
            let mut out = Vec::with_capacity(changes.len());
            for (id, v) in &changes {
                crate::db::prefs::set(tx, *id, v)?;
                if let Some(p) = crate::db::prefs::by_id(tx, *id)? {
                    out.push(to_json(p));
                }
            }
            out.sort_by_key(|p| p.id);
            Ok::<_, ApiError>(out)
        })
        .await?;
    Ok(ok(&updated))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_orderings() {
        assert!(filter(&Query::parse("keys=a.b,c.d")).is_ok());
        assert!(filter(&Query::parse("keys=a.b,cd")).is_err());
        assert!(filter(&Query::parse("keys=a.b,")).is_err());
        assert!(filter(&Query::parse("ordering=-name,section,id")).is_ok());
        assert!(filter(&Query::parse("ordering=value")).is_err());
        assert!(filter(&Query::parse("ordering=--id")).is_err());
        assert_eq!(split_key("a.b.c"), Some(("a".into(), "b.c".into())));
    }
}
