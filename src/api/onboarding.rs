//! `/api/v2/onboarding/...` (SPEC §10, "Onboarding"): the six steps of the kit's
//! `OnBoardingWidget`, for staff only (the widget shows them to the community's
//! creator; members get 403). hearth records when a step is started and completed and
//! does none of the hosted platform's work: starting "contents" or "categories" (its
//! AI generation) is refused with a message saying so (`model::onboarding`).

use warp::http::Method;
use warp::reply::Response;

use crate::api::call::{Call, staff, user};
use crate::api::listing::{list_page, window};
use crate::db::onboarding as store;
use crate::error::ApiError;
use crate::http::auth::Principal;
use crate::http::ok;
use crate::http::pagination::Page;
use crate::http::route::Endpoint;
use crate::model::onboarding::{GENERATED, STEPS, Status, StepJson, step_json};

/// The endpoints of this module.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        user(Method::GET, "/api/v2/onboarding/", "listOnboardingSteps", list).paged(),
        user(Method::GET, "/api/v2/onboarding/{id}/", "getOnboardingStep", get),
        staff(Method::POST, "/api/v2/onboarding/{id}/start/", "startOnboardingStep", |c| {
            change(c, false)
        }),
        staff(Method::POST, "/api/v2/onboarding/{id}/complete/", "completeOnboardingStep", |c| {
            change(c, true)
        }),
    ]
}

/// What the hosted platform's start of a generated step does, and hearth does not.
const NO_GENERATION: &str = "hearth does not generate content: create the categories and \
    the first posts yourself, then mark this step complete.";

fn step(c: &rusqlite::Connection, id: i64) -> Result<StepJson, ApiError> {
    step_json(id, store::status(c, id)?).ok_or(ApiError::NotFound)
}

/// `GET /api/v2/onboarding/` (staff): the six steps, by id, paginated.
async fn list(call: Call<Principal>) -> Result<Response, ApiError> {
    list_page(&call, |c, who, q| {
        if !who.is_staff {
            return Err(ApiError::PermissionDenied);
        }
        let page = Page::from_query(q)?;
        let all = STEPS.iter().map(|(id, _)| step(c, *id)).collect::<Result<Vec<_>, _>>()?;
        Ok((page, i64::try_from(all.len()).unwrap_or(0), window(&all, page).to_vec()))
    })
    .await
}

/// `GET /api/v2/onboarding/{id}/` (staff): one step; an unknown id is 404.
async fn get(call: Call<Principal>) -> Result<Response, ApiError> {
    let id = call.id();
    let json = call
        .read(move |c, who| {
            if !who.is_staff {
                return Err(ApiError::PermissionDenied);
            }
            step(c, id)
        })
        .await?;
    Ok(ok(&json))
}

/// `POST /api/v2/onboarding/{id}/start/` and `.../complete/` (staff): records the step
/// started (not again once started or completed) or completed; 200 with the step.
/// Starting "contents" (1) or "categories" (2) is 403: that start is the platform's
/// content generation.
async fn change(mut call: Call<Principal>, complete: bool) -> Result<Response, ApiError> {
    call.before_body().await?;
    // the kit sends generation parameters to start/; none of them applies here
    let _ = call.take_body();
    let (id, now) = (call.id(), call.now);
    let json = call
        .write(move |tx, _who| {
            // after the caller is resolved: a bad token is 401 whatever the step
            if step_json(id, Status::NotStarted).is_none() {
                return Err(ApiError::NotFound);
            }
            if complete {
                store::complete(tx, id, now)?;
            } else if GENERATED.contains(&id) {
                return Err(ApiError::Refused(NO_GENERATION));
            } else {
                store::start(tx, id, now)?;
            }
            step(tx, id)
        })
        .await?;
    Ok(ok(&json))
}
