//! `/api/v2/community/...` and `/api/v2/contact/request/` (SPEC §10, "Community info",
//! "Contact us"). A hearth is one community: the list holds it alone, with its name (the
//! preference `text.application_name`) and public URL, and no paywalls (payments are not
//! in turn 3). A contact request is a member's message to staff, as the platform has it
//! ("It requires an authenticated user"): on while `configurations.contact_api_enabled`
//! is (404 while off, like a feature that is not there), stored for
//! `hearth contact list` and mailed to the staff accounts' addresses when `serve
//! --smtp-url` names a relay. Each member, and each client address, may send
//! `--mail-rate` requests an hour (the mail limit: each causes mail), besides the write
//! quota every write has.

use std::sync::Arc;

use warp::http::{Method, StatusCode};
use warp::reply::Response;

use crate::api::call::{Call, public, write};
use crate::api::listing::{list_page, window};
use crate::db::contact;
use crate::db::preferences;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::http::{json_response, ok};
use crate::limits::AddrKey;
use crate::limits::login::LimitKey;
use crate::model::community::{COMMUNITY_ID, CommunityJson, ContactInput, ContactRequest};

/// The largest body a contact request reads: its four short fields.
const BODY_LIMIT: usize = 32 * 1024;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        public(Method::GET, "/api/v2/community/", "listCommunities", list).paged(),
        public(Method::GET, "/api/v2/community/{id}/", "getCommunity", get),
        write(Method::POST, "/api/v2/contact/request/", "contactRequest", request)
            .body_limit(BODY_LIMIT)
            .body::<ContactInput>(),
    ]
}

/// The community's name: `text.application_name`.
fn name(c: &rusqlite::Connection) -> rusqlite::Result<String> {
    Ok(preferences::get(c, "text", "application_name")?
        .and_then(|p| p.value.as_str().map(str::to_owned))
        .unwrap_or_default())
}

/// `GET /api/v2/community/`: the one community, paginated like any list.
async fn list(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let url = call.base().0;
    list_page(&call, move |c, _who, q| {
        let page = Page::from_query(q)?;
        let all = [CommunityJson::new(name(c)?, url.clone())];
        Ok((page, 1, window(&all, page).to_vec()))
    })
    .await
}

/// `GET /api/v2/community/{id}/`: the community, whose id is 1.
async fn get(call: Call<Option<Principal>>) -> Result<Response, ApiError> {
    let (id, url) = (call.id(), call.base().0);
    let json = call
        .read(move |c, _who| {
            if id != COMMUNITY_ID {
                return Err(ApiError::NotFound);
            }
            Ok(CommunityJson::new(name(c)?, url.clone()))
        })
        .await?;
    Ok(ok(&json))
}

/// `POST /api/v2/contact/request/`: `{name, surname, email, message}` (see
/// [`ContactInput::parse`]; `email` defaults to the member's own). 201 with the stored
/// request; the mail to staff is queued after the commit, and a full queue loses only
/// the mail (staff still read the request with the CLI).
async fn request(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let body = call.object().await;
    let limiter = Arc::clone(&call.state().mail_limiter);
    let (addr, now) = (AddrKey::of(call.req.client_addr()), call.now);
    let (saved, staff, community) = call
        .write(move |tx, who| {
            if !preferences::get_bool(tx, "configurations", "contact_api_enabled", false)? {
                return Err(ApiError::NotFound);
            }
            let input =
                ContactInput::parse(&body?, true).map_err(|e| ApiError::Invalid(vec![e]))?;
            let email = match input.email {
                Some(e) => e,
                None => contact::member_address(tx, who.user_id)?.ok_or_else(|| {
                    ApiError::field("email", "required", "Your account has no address: give one.")
                })?,
            };
            limiter
                .reserve(&[LimitKey::Addr(addr), LimitKey::Member(who.user_id)], now)
                .map_err(ApiError::Throttled)?
                .failed();
            let saved = contact::add(
                tx,
                ContactRequest {
                    id: 0,
                    user_id: Some(who.user_id),
                    name: input.name,
                    surname: input.surname,
                    email,
                    message: input.message,
                    created_at: now,
                },
            )?;
            Ok((saved, contact::staff_addresses(tx)?, name(tx)?))
        })
        .await?;
    if let Some(mailer) = &call.state().mailer {
        let subject = format!("Contact request {} to {community}", saved.id);
        for to in &staff {
            if mailer.send(to, &subject, saved.mail_body(&community)).is_err() {
                tracing::warn!(
                    request = saved.id,
                    "a contact request's mail to staff was not queued"
                );
            }
        }
    }
    Ok(json_response(StatusCode::CREATED, &saved.to_json()))
}
