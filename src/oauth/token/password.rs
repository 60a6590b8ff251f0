//! `grant_type=password` (RFC 6749 §4.3): only for apps registered with the password
//! grant; behind the brute-force limit (429 `temporarily_unavailable` with
//! `Retry-After` when reached).

use super::{Ctx, Exchange, TokenResponse, issue, unauthorized_client};
use crate::model::app::AppGrant;
use crate::oauth::errors::{ErrorCode, OAuthError};
use crate::oauth::password::Outcome;
use crate::oauth::scope::{self, Scope};

/// Exchanges resource owner credentials.
pub async fn exchange(ctx: Ctx<'_>) -> Result<TokenResponse, OAuthError> {
    if ctx.app.grant != AppGrant::Password {
        return Err(unauthorized_client());
    }
    let username = ctx.form.username.as_deref().filter(|u| !u.is_empty());
    let (Some(username), Some(password)) = (username, ctx.form.password.as_deref()) else {
        return Err(OAuthError::invalid_request("username and password are required."));
    };
    let scope = Scope::parse(ctx.form.scope.as_deref(), Scope::ALL)
        .ok_or_else(|| OAuthError::invalid_scope(scope::NOT_A_SUBSET))?;
    let user_id =
        match crate::oauth::password::check(ctx.state, ctx.addr, username, password).await? {
            Outcome::Ok(id) => id,
            Outcome::Wrong => return Err(OAuthError::invalid_grant("Invalid credentials given.")),
            Outcome::AwaitingApproval => {
                return Err(OAuthError::invalid_grant(crate::oauth::password::AWAITING_APPROVAL));
            }
            Outcome::Throttled(secs) => {
                let mut e = OAuthError::new(
                    ErrorCode::TemporarilyUnavailable,
                    format!("Too many failed attempts. Try again in {secs} seconds."),
                );
                e.retry_after = Some(secs);
                return Err(e);
            }
        };
    let Exchange { app_id, now, ttl, .. } = ctx.exchange();
    ctx.state
        .db
        .write(move |tx| -> Result<TokenResponse, OAuthError> {
            let grant = crate::db::tokens::insert_grant(tx, app_id, user_id, scope.as_str(), now)?;
            Ok(issue(tx, grant, scope, ttl, now)?)
        })
        .await
}
