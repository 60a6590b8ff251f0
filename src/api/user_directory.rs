//! The community's users as members list and name them (SPEC §10 People, issue 32):
//! `GET /api/v2/user/` (the SDK's `UserList`), `POST /api/v2/user/match/` (the kit's
//! `UserAutocomplete` resolves pasted usernames with it), and the link to the
//! community's control panel that the kit offers staff (`GET
//! /api/v2/user/me/platform_url/`), which exists only when the operator names one.
//! What a caller may see is `db::user_directory`'s: live users, less those it hides.

use serde_json::{Value, json};
use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::api::listing::list_page;
use crate::db::user_directory::{self, Order};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::field::FieldError;
use crate::model::ids::{MAX_ITEMS, too_many};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/user/", "listUsers", list).list::<UserList>(),
        write(Method::POST, "/api/v2/user/match/", "matchUsernames", match_usernames)
            .body::<Usernames>(),
        user(Method::GET, "/api/v2/user/me/platform_url/", "getPlatformUrl", platform_url)
            .query::<PanelPath>(),
    ]
}

crate::query_params! {
    /// The user list's search, name and order, and the platform's filters that hearth
    /// does not serve: each would need a scan of the community (no index orders or
    /// narrows by them); `search` finds people by name instead. Those are answered 400,
    /// so that no client takes the whole list for a filtered one.
    struct UserList {
        /// Words to find in usernames and real names, as the user search does (each
        /// word the start of a word, best match first); at most 200 characters, else 400
        /// `max_length`. With `username` or `ordering`, 400. Empty: no search.
        search: Option<String>,
        /// One username, matched case-insensitively (the page holds it or nothing); with
        /// `search`, 400. Empty: no name.
        username: Option<String>,
        /// `id` or `date_joined` (the default: oldest first), `username`; a leading `-`
        /// reverses. Anything else is 400 `invalid_choice`.
        #[param(schema_with = orders)]
        ordering: Option<String>,
        /// Not served (a filter by it would scan the community): present, even empty, is
        /// 400 `invalid` on it.
        gender: Option<String>,
        /// Not served: present, even empty, is 400 `invalid` on it; `search` finds real
        /// names.
        real_name: Option<String>,
        /// Not served: present, even empty, is 400 `invalid` on it.
        location: Option<String>,
        /// Not served: present, even empty, is 400 `invalid` on it.
        description: Option<String>,
    }
}

/// The orders `ordering` takes ([`Order::parse`]).
const ORDERS: [&str; 6] = ["id", "-id", "date_joined", "-date_joined", "username", "-username"];

fn orders() -> utoipa::openapi::schema::Object {
    crate::http::query_params::one_of(&ORDERS)
}

/// `GET /api/v2/user/` (auth): the live users the caller does not hide, paginated, by
/// join date (`ordering`: [`Order::CHOICES`]); `search` finds them by name as the user
/// search does (best first), `username` names one (case-insensitively).
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    let base = call.base();
    list_page(&call, move |c, who, q| {
        let page = Page::from_query(q)?;
        let p = UserList::read(q)?;
        let unserved = [
            ("gender", &p.gender),
            ("real_name", &p.real_name),
            ("location", &p.location),
            ("description", &p.description),
        ];
        if let Some((f, _)) = unserved.iter().find(|(_, v)| v.is_some()) {
            return Err(ApiError::field(
                *f,
                "invalid",
                "hearth does not filter users by this field; use search (username and real name).",
            ));
        }
        let order = ordering(p.ordering.as_deref())?;
        let search = p.search.as_deref().filter(|s| !s.trim().is_empty());
        let username = p.username.as_deref().filter(|s| !s.trim().is_empty());
        let viewer = who.user_id;
        let (count, users) = match (search, username) {
            (Some(_), Some(_)) => {
                return Err(ApiError::field(
                    "username",
                    "invalid",
                    "Give search or username, not both.",
                ));
            }
            (Some(_), None) => {
                if order.is_some() {
                    return Err(ApiError::field(
                        "ordering",
                        "invalid",
                        "A search is ordered by relevance; ordering applies to the whole list.",
                    ));
                }
                let Some(expr) = crate::api::search::expr_of(search.unwrap_or(""))? else {
                    return Ok((page, 0, Vec::new()));
                };
                crate::db::search::users(c, &expr, Some(viewer), page.limit, page.offset)?
            }
            (None, Some(name)) => {
                let found = user_directory::by_usernames(c, &[name.trim().to_owned()], viewer)?;
                let n = found.len() as i64;
                (n, crate::api::listing::window(&found, page).to_vec())
            }
            (None, None) => user_directory::page(
                c,
                viewer,
                order.unwrap_or(Order::Joined),
                page.limit,
                page.offset,
            )?,
        };
        let results = crate::api::people::users_json(c, users, Some(viewer), &base)?;
        Ok((page, count, results))
    })
    .await
}

/// `ordering`: one of [`Order::CHOICES`], or absent.
fn ordering(value: Option<&str>) -> Result<Option<Order>, ApiError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(o) => Order::parse(o).map(Some).ok_or_else(|| {
            ApiError::field("ordering", "invalid_choice", format!("One of {}.", Order::CHOICES))
        }),
    }
}

/// The body of a match (`UsernameList`): a JSON array (what the SDK's `matchUsernames`
/// sends), not an object; its errors are on `usernames`.
#[derive(Debug)]
struct Usernames(Vec<String>);

/// Written out: utoipa's derive takes no `max_items` on a newtype.
impl utoipa::PartialSchema for Usernames {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
        ArrayBuilder::new()
            .items(ObjectBuilder::new().schema_type(Type::String))
            .max_items(Some(MAX_ITEMS))
            .description(Some(
                "At most 1000 usernames (trimmed; 400 max_length beyond, checked before any \
                 item; invalid on an item that is no string). A name that matches nobody is \
                 left out.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for Usernames {
    fn name() -> std::borrow::Cow<'static, str> {
        "UsernameList".into()
    }
}

impl Usernames {
    /// The usernames of a match's body: an array of at most [`MAX_ITEMS`] strings.
    fn parse(body: &Value) -> Result<Self, FieldError> {
        const FIELD: &str = "usernames";
        let Value::Array(items) = body else {
            return Err(FieldError::new(FIELD, "invalid", "A JSON array of usernames."));
        };
        if items.len() > MAX_ITEMS {
            return Err(too_many(FIELD));
        }
        items
            .iter()
            .map(|v| v.as_str().map(|s| s.trim().to_owned()))
            .collect::<Option<Vec<_>>>()
            .map(Usernames)
            .ok_or_else(|| {
                FieldError::new(FIELD, "invalid", "Each item must be a username (a string).")
            })
    }
}

/// `POST /api/v2/user/match/` (auth, write scope; reads only): the body is a JSON array
/// of usernames; answers a plain array of the live users they name
/// (case-insensitively, each once, in the order first named), less those the caller
/// hides. A name that matches nobody (or cannot be a username) is left out.
async fn match_usernames(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let base = call.base();
    let body = match call.json::<Value>().await {
        Ok(v) => v,
        Err(e) => {
            // the caller first: a token that no longer holds is 401, whatever the body
            call.read(|_, _| Ok::<_, ApiError>(())).await?;
            return Err(e);
        }
    };
    let names = Usernames::parse(&body).map(|u| u.0);
    let json = call
        .read(move |c, who| {
            let names = names.as_ref().map_err(|e| ApiError::Invalid(vec![e.clone()]))?;
            let users = user_directory::by_usernames(c, names, who.user_id)?;
            crate::api::people::users_json(c, users, Some(who.user_id), &base)
        })
        .await?;
    Ok(ok(&json))
}

/// The longest `next` taken.
const NEXT_MAX: usize = 1000;

crate::query_params! {
    /// Where on the control panel its link leads.
    struct PanelPath {
        /// A path on the control panel, e.g. `/moderation/flags/`, added to the link's
        /// query: one leading `/`, at most 1000 characters, no control characters
        /// (anything else is 400 `invalid`); empty is absent.
        next: Option<String>,
    }
}

/// `next`: a path on the control panel (`/moderation/flags/`), not an address
/// elsewhere: it starts with one `/` and holds no control characters.
fn next_of(next: Option<&str>) -> Result<Option<&str>, ApiError> {
    let Some(next) = next.filter(|n| !n.is_empty()) else { return Ok(None) };
    let path = next.starts_with('/') && !next.starts_with("//") && !next.starts_with("/\\");
    if !path || next.len() > NEXT_MAX || next.chars().any(char::is_control) {
        return Err(ApiError::field(
            "next",
            "invalid",
            format!("A path that starts with /, at most {NEXT_MAX} characters."),
        ));
    }
    Ok(Some(next))
}

/// `GET /api/v2/user/me/platform_url/` (auth, staff): the control panel the operator
/// named (`serve --platform-url`), with `next` added to its query; 404 when none was
/// named (hearth has no control panel of its own). A member who is not staff is 403.
/// `token_details` is null: hearth signs nobody in elsewhere.
async fn platform_url(call: Call<Principal>) -> Result<Response, ApiError> {
    let next = PanelPath::read(&call.query()?)?.next;
    let configured = call.state().config.platform_url.clone();
    let who = call.read(|_, who| Ok::<_, ApiError>(who)).await?;
    if !who.is_staff {
        return Err(ApiError::PermissionDenied);
    }
    let Some(url) = configured else { return Err(ApiError::NotFound) };
    let url = match next_of(next.as_deref())? {
        None => url,
        Some(next) => {
            let sep = if url.contains('?') { '&' } else { '?' };
            let pair = serde_urlencoded::to_string([("next", next)]).unwrap_or_default();
            format!("{url}{sep}{pair}")
        }
    };
    Ok(ok(&json!({"platform_url": url, "token_details": null})))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body is an array, not an object: no property to set; its documented limit is
    /// the one the parser keeps, and an item that is no string is refused.
    #[test]
    fn the_documented_array_is_read() {
        let doc = serde_json::to_value(<Usernames as utoipa::PartialSchema>::schema())
            .unwrap_or_default();
        assert_eq!((&doc["type"], &doc["maxItems"]), (&json!("array"), &json!(MAX_ITEMS)));
        assert_eq!(doc["items"]["type"], "string");
        let too_many = Value::Array(vec![json!("a"); MAX_ITEMS + 1]);
        assert!(Usernames::parse(&too_many).is_err());
        assert!(Usernames::parse(&json!(["a", {}])).is_err());
        assert!(Usernames::parse(&json!({"usernames": ["a"]})).is_err());
        assert_eq!(Usernames::parse(&json!([" a "])).map(|u| u.0), Ok(vec!["a".to_owned()]));
    }

    /// The documented orders are the ones `ordering` takes, and its message names.
    #[test]
    fn every_documented_order_parses() {
        for o in ORDERS {
            assert!(Order::parse(o).is_some(), "{o}");
        }
        assert_eq!(ORDERS.join(", "), Order::CHOICES);
    }
}
