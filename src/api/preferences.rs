//! `/api/v2/dynamic_preference/...`: dynamic preferences (SPEC §5). Reads are public
//! (a bad token is still 401); `PATCH` is for staff.

use serde_json::{Map, Value};
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public, staff};
use crate::api::listing::list_page;
use crate::db::preferences::{Filter as PrefFilter, OrderKey};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::query::Query;
use crate::http::route::Endpoint;
use crate::model::PublicUrl;
use crate::model::field::FieldError;
use crate::model::preference::{Pref, PrefJson};

/// Largest page of preferences (SPEC §6); without `limit` every row is one page.
pub const MAX_LIMIT: i64 = 1000;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        public(Method::GET, "/api/v2/dynamic_preference/search/", "searchPreferences", list_prefs)
            .list::<PrefFilters>(),
        public(Method::GET, "/api/v2/dynamic_preference/", "listPreferences", list_prefs)
            .list::<PrefFilters>(),
        staff(Method::PATCH, "/api/v2/dynamic_preference/", "updatePreferences", patch_prefs)
            .body::<PrefsPatch>(),
        public(Method::GET, "/api/v2/dynamic_preference/{id}/", "getPreference", get_pref),
    ]
}

/// The logo the kit shows when the community has set none (an absolute URL: the kit's
/// page is on another origin).
pub const DEFAULT_LOGO: &str = "/static/default/logo.svg";

/// A preference's JSON. A `logo` preference is an image URL the kit puts in an `<img>`:
/// unset, it is hearth's default logo; a local path, an absolute URL on this server.
fn to_json(p: Pref, base: &PublicUrl) -> PrefJson {
    let value = match (p.section.as_str(), &p.value) {
        ("logo", Value::String(v)) => Value::String(base.resolve(v, DEFAULT_LOGO)),
        _ => p.value,
    };
    PrefJson { id: p.id, section: p.section, name: p.name, value }
}

/// Splits `section.name` at its first dot; `None` without a dot or with an empty part.
fn split_key(key: &str) -> Option<(String, String)> {
    let (s, n) = key.split_once('.')?;
    (!s.is_empty() && !n.is_empty()).then(|| (s.to_owned(), n.to_owned()))
}

crate::query_params! {
    /// The filters and the order of the preference list.
    struct PrefFilters {
        /// A substring of the section or the name, case-insensitively.
        search: Option<String>,
        /// Only this section, exactly (case-sensitively).
        section: Option<String>,
        /// Comma-separated `section.name` keys (split at the first dot). Unknown keys are
        /// simply absent; an entry without a dot, or with an empty section or name (an
        /// empty entry such as a trailing comma included), is 400.
        keys: Option<String>,
        /// Comma-separated among id, section and name, each optionally prefixed with `-`
        /// (descending); anything else is 400. Default id; id always breaks the
        /// remaining ties.
        ordering: Option<String>,
    }
}

/// The list parameters: `search`, `section`, `keys`, `ordering`.
fn filter(q: &Query) -> Result<PrefFilter, ApiError> {
    let p = PrefFilters::read(q)?;
    let text = |v: Option<String>| v.filter(|v| !v.is_empty());
    let keys = match text(p.keys) {
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
    let ordering = match text(p.ordering) {
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
    Ok(PrefFilter { search: text(p.search), section: text(p.section), keys, ordering })
}

/// `GET /api/v2/dynamic_preference/` and `GET /api/v2/dynamic_preference/search/`
async fn list_prefs(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    // the caller is resolved first: a bad token is 401 before any 400 about the
    // parameters
    let base = call.base();
    list_page(&call, move |c, _who, q| {
        let page = Page::from_query_with(q, None, MAX_LIMIT)?;
        let filter = filter(q)?;
        let (count, rows) = crate::db::preferences::search(c, &filter, page.limit, page.offset)?;
        Ok((page, count, rows.into_iter().map(|p| to_json(p, &base)).collect()))
    })
    .await
}

/// `GET /api/v2/dynamic_preference/{id}/`
async fn get_pref(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let base = call.base();
    let pref = call.read_id(crate::db::preferences::by_id).await?;
    Ok(ok(&to_json(pref, &base)))
}

/// `PATCH /api/v2/dynamic_preference/` (staff): every key must exist and every value
/// The body of `PATCH /api/v2/dynamic_preference/`: any subset of the preferences, by
/// `section.name`, each a value of its type. Its schema lists the preferences hearth
/// keeps (`db::seed::default_preferences`, the rows every database is seeded and
/// migrated with, which `patch_prefs` looks its keys up in).
pub struct PrefsPatch;

impl utoipa::PartialSchema for PrefsPatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        let mut o = ObjectBuilder::new().schema_type(Type::Object).description(Some(
            "Any subset of the preferences, by section.name: each a JSON value of its type \
             (a boolean preference takes true or false, never text). An unknown key or a \
             value of another type is 400 on that key; nothing changes then. Answers the \
             changed preferences.",
        ));
        for (section, name, kind, default) in crate::db::seed::default_preferences() {
            let ty = match kind {
                crate::model::preference::PrefKind::Boolean => Type::Boolean,
                crate::model::preference::PrefKind::Integer => Type::Integer,
                crate::model::preference::PrefKind::String => Type::String,
            };
            let property = ObjectBuilder::new()
                .schema_type(ty)
                .description(Some(format!("Default {default}.")));
            o = o.property(format!("{section}.{name}"), property);
        }
        o.additional_properties(Some(AdditionalProperties::FreeForm(false))).into()
    }
}

impl utoipa::ToSchema for PrefsPatch {
    fn name() -> std::borrow::Cow<'static, str> {
        "PreferencesPatch".into()
    }
}

/// fit its type, else nothing changes and the 400 names each bad key.
async fn patch_prefs(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    // read now, judged after authentication (an anonymous PATCH is 401, a non-staff
    // one 403, whatever its body)
    let body = call.json::<Map<String, Value>>().await;
    let base = call.base();
    let updated = call
        .write(move |tx, _who| {
            let body = body?;
            let mut errors = Vec::new();
            let mut changes = Vec::new();
            for (key, value) in &body {
                let found = match split_key(key) {
                    Some((s, n)) => crate::db::preferences::get(tx, &s, &n)?,
                    None => None,
                };
                match found {
                    None => {
                        errors.push(FieldError::new(key.as_str(), "invalid", "No such preference."))
                    }
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
                crate::db::preferences::set(tx, *id, v)?;
                if let Some(p) = crate::db::preferences::by_id(tx, *id)? {
                    out.push(to_json(p, &base));
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

    /// The documented body names every preference a database is seeded with, by its
    /// type, and no other key.
    #[test]
    fn the_patch_body_lists_the_seeded_preferences() {
        let doc = serde_json::to_value(<PrefsPatch as utoipa::PartialSchema>::schema());
        let doc = doc.unwrap_or_default();
        let rows = crate::db::seed::default_preferences();
        assert_eq!(doc["properties"].as_object().map(Map::len), Some(rows.len()));
        let ca = &doc["properties"]["configurations.content_availability"];
        assert_eq!(ca["type"], "boolean");
        assert_eq!(doc["additionalProperties"], false);
    }

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
