//! `/api/v2/custom_menu/...` (SPEC §10): the menus the kit's footer reads, by id or by
//! the names it asks for (`base`, `not_logged`, `user`); public, like the footer.

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, public};
use crate::api::listing::list_page;
use crate::db::custom_menus::{self, MenuKey};
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::custom_menu::MENUS;

/// The endpoints of this module: the list, the search, a menu by id, and a menu by
/// each of the three names (the router's `{id}` is numeric, so each name is a path of
/// its own).
pub fn endpoints() -> Vec<Endpoint> {
    let mut all = vec![
        public(Method::GET, "/api/v2/custom_menu/", "listCustomMenus", list).list::<MenuSearch>(),
        public(Method::GET, "/api/v2/custom_menu/search/", "searchCustomMenus", list)
            .list::<MenuSearch>(),
        public(Method::GET, "/api/v2/custom_menu/{id}/", "getCustomMenu", |c| get(c, None)),
    ];
    for (_, name) in MENUS {
        let (path, op) = match name {
            "base" => ("/api/v2/custom_menu/base/", "getCustomMenuBase"),
            "not_logged" => ("/api/v2/custom_menu/not_logged/", "getCustomMenuNotLogged"),
            _ => ("/api/v2/custom_menu/user/", "getCustomMenuUser"),
        };
        all.push(public(Method::GET, path, op, move |c| get(c, Some(name))));
    }
    all
}

crate::query_params! {
    /// The menus' search.
    struct MenuSearch {
        /// A case-insensitive substring of the menu's name (empty: every menu).
        search: Option<String>,
    }
}

/// `GET /api/v2/custom_menu/` and `.../search/`: menus by id; `search` matches names.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    list_page(&call, |c, _who, q| {
        let page = Page::from_query(q)?;
        let search = MenuSearch::read(q)?.search;
        let search = search.as_deref().filter(|s| !s.is_empty());
        let (count, menus) = custom_menus::page(c, search, page.limit, page.offset)?;
        Ok((page, count, menus.iter().map(|m| m.to_json()).collect()))
    })
    .await
}

/// `GET /api/v2/custom_menu/{id}/` (or by name): the menu with its items in order.
async fn get(
    call: Call<Option<Principal>>,
    name: Option<&'static str>,
) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, _who| {
            let key = name.map_or(MenuKey::Id(id), MenuKey::Name);
            let menu = custom_menus::get(c, key)?.ok_or(ApiError::NotFound)?;
            Ok::<_, ApiError>(menu.to_json())
        })
        .await?;
    Ok(ok(&json))
}
