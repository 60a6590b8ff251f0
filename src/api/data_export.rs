//! `/api/v2/udp/` (SPEC §10 People, the kit's "Download your data"): a member asks for
//! everything hearth holds about them (`db::export`), which is built off the request
//! path (`jobs::Exports`: one job per member, two at once) into a zip kept in the
//! database; they follow its progress, then download it.

use serde_json::json;
use warp::http::{HeaderValue, Method, StatusCode, header};
use warp::reply::Response;

use crate::api::call::{Call, user, write};
use crate::clock::{SECOND, Timestamp, rfc3339};
use crate::db::export;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::route::Endpoint;
use crate::http::{bytes_response, ok};
use crate::state::AppState;

/// The least time between two exports of one member (from the last one made).
pub const EVERY: Timestamp = 24 * 3600 * SECOND;

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        write(Method::POST, "/api/v2/udp/", "generateDataPortability", request),
        user(Method::GET, "/api/v2/udp/", "dataPortabilityStatus", status),
        // a GET that writes (it records the download) with a token that may
        user(Method::GET, "/api/v2/udp/download/", "downloadDataPortability", download).writes(),
    ]
}

/// The status JSON of `user`'s export (`SCDataPortabilityType`, and `progress`).
fn status_json(state: &AppState, user: i64, found: Option<export::State>) -> serde_json::Value {
    let progress = state.exports.percent(user);
    let computing = progress.is_some();
    let (requested, generated, downloaded) = match found {
        Some((r, g, d)) => (Some(r), g, d),
        None => (None, None, None),
    };
    // a request whose job ended without an archive (a restart, a fault) is not shown:
    // the member may ask again at once
    let requested = requested.filter(|r| computing || generated.is_some_and(|g| g >= *r));
    json!({
        "computing": computing,
        "progress": progress,
        "requested_at": requested.or(generated).map(rfc3339),
        "generated_at": generated.map(rfc3339),
        "downloaded_at": downloaded.map(rfc3339),
    })
}

/// `POST /api/v2/udp/` (auth, write, no body): starts building the caller's export,
/// unless one is being built; once a day at most (429 with `Retry-After` until a day has
/// passed since the last one was made). Answers the status.
async fn request(mut call: Call<Principal>) -> Result<Response, ApiError> {
    call.before_body().await?;
    let now = call.now;
    let no_body = call.no_body().await;
    let user = call
        .write(move |tx, who| {
            no_body?;
            if let Some((_, Some(made), _)) = export::state(tx, who.user_id)?
                && now < made + EVERY
            {
                let wait = (made + EVERY - now + SECOND - 1) / SECOND;
                return Err(ApiError::Throttled(u64::try_from(wait).unwrap_or(1)));
            }
            export::requested(tx, who.user_id, now)?;
            Ok(who.user_id)
        })
        .await?;
    let state = call.state().clone();
    if state.exports.start(user) {
        tokio::spawn(build(state.clone(), user));
    }
    let found = state.db.read(move |c| Ok::<_, ApiError>(export::state(c, user)?)).await?;
    Ok(ok(&status_json(&state, user, found)))
}

/// Ends a member's job however the job ends.
struct Running(AppState, i64);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.exports.finish(self.1);
    }
}

/// The job: reads the member's data in one snapshot, zips it, stores the archive.
async fn build(state: AppState, user: i64) {
    let _running = Running(state.clone(), user);
    let Ok(_turn) = state.exports.slots.clone().acquire_owned().await else { return };
    let st = state.clone();
    let made = tokio::task::spawn_blocking(move || {
        let now = st.clock.now();
        let files = st.db.read_blocking(|c| {
            let snapshot = c.unchecked_transaction()?;
            let progress = |done, total| st.exports.progress(user, done, total);
            Ok::<_, ApiError>(export::files(&snapshot, user, now, &progress)?)
        })?;
        let Some(files) = files else { return Ok(None) };
        let bytes = crate::model::archive::zip(&files).map_err(ApiError::internal)?;
        Ok::<_, ApiError>(Some((bytes, now)))
    })
    .await;
    let stored = match made {
        Ok(Ok(Some((bytes, now)))) => {
            let size = bytes.len();
            let r = state
                .db
                .write(move |tx| Ok::<_, ApiError>(export::generated(tx, user, &bytes, now)?))
                .await;
            r.map(|()| tracing::info!(user, bytes = size, "data export made"))
        }
        Ok(Ok(None)) => Ok(()),
        Ok(Err(e)) => Err(e),
        Err(e) => Err(ApiError::internal(e)),
    };
    if let Err(e) = stored {
        tracing::warn!(user, error = ?e, "data export failed: the member may ask again");
    }
}

/// `GET /api/v2/udp/` (auth): the caller's export: `computing` and its `progress` (0–100)
/// while it is built, `requested_at`, `generated_at`, `downloaded_at`.
async fn status(call: Call<Principal>) -> Result<Response, ApiError> {
    let state = call.state().clone();
    let (user, found) = call
        .read(|c, who| Ok::<_, ApiError>((who.user_id, export::state(c, who.user_id)?)))
        .await?;
    Ok(ok(&status_json(&state, user, found)))
}

/// `GET /api/v2/udp/download/` (auth): the caller's archive (`application/zip`), 404
/// before one was made; the download is recorded unless the token is read-only.
async fn download(call: Call<Principal>) -> Result<Response, ApiError> {
    let now = call.now;
    let (who, archive) =
        call.read(|c, who| Ok::<_, ApiError>((who, export::archive(c, who.user_id)?))).await?;
    let archive = archive.ok_or(ApiError::NotFound)?;
    if who.can_write {
        call.write(move |tx, who| Ok::<_, ApiError>(export::downloaded(tx, who.user_id, now)?))
            .await?;
    }
    let mut r = bytes_response(StatusCode::OK, "application/zip", archive);
    r.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"hearth-data.zip\""),
    );
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}
