//! The paginated lists (SPEC §3): each reads its page of rows, and how many rows there
//! are, in the handler's one database read, and answers the envelope whose `next` and
//! `previous` links point at the same path and query.

use rusqlite::Connection;
use serde::Serialize;
use warp::reply::Response;

use crate::api::call::{Call, Who};
use crate::error::ApiError;
use crate::http::ok;
use crate::http::pagination::{Page, envelope};
use crate::http::query::Query;

/// Answers one page of a list: `rows` runs after the caller is resolved, with the
/// caller and the query, and returns the page it read (its parameters judged where
/// the list wants them among its other parameters), the number of rows and the page's
/// rows.
pub(crate) async fn list_page<W, T, F>(call: &Call<W>, rows: F) -> Result<Response, ApiError>
where
    W: Who,
    T: Serialize + Send + 'static,
    F: Fn(&Connection, W, &Query) -> Result<(Page, i64, Vec<T>), ApiError> + Send + 'static,
{
    let q = call.query()?;
    let url = call.base().at(&call.req.path);
    let json = call
        .read(move |c, who| {
            let (page, count, results) = rows(c, who, &q)?;
            Ok(envelope(&url, &q, page, count, results))
        })
        .await?;
    Ok(ok(&json))
}

/// The part of a bounded list that a page shows.
pub(crate) fn window<T>(all: &[T], page: Page) -> &[T] {
    let from = usize::try_from(page.offset).unwrap_or(usize::MAX).min(all.len());
    let to = from.saturating_add(usize::try_from(page.limit).unwrap_or(0)).min(all.len());
    &all[from..to]
}
