//! `grant_type=refresh_token` (RFC 6749 §6, RFC 9700 §4.14.2): the refresh token is
//! rotated; presenting a rotated one again revokes the whole grant (every token issued
//! from the same authorization).

use super::{Ctx, TokenResponse, decide, issue, refused, required, unauthorized_client};
use crate::model::app::AppGrant;
use crate::oauth::errors::OAuthError;
use crate::oauth::scope::{self, Scope};
use crate::telemetry::security;
use crate::token;

/// Exchanges a refresh token.
pub async fn exchange(ctx: Ctx<'_>) -> Result<TokenResponse, OAuthError> {
    if ctx.app.grant == AppGrant::Implicit {
        return Err(unauthorized_client());
    }
    let presented = required(&ctx.form.refresh_token, "refresh_token")?;
    let requested = ctx.form.scope.clone();
    let hash = token::storage_hash(presented);
    let ex = ctx.exchange();
    decide(ctx.state, move |tx| {
        // another client's token is as unknown as a made-up one
        let row = crate::db::tokens::refresh(tx, &hash)?.filter(|r| r.app_id == ex.app_id);
        let Some(row) = row else {
            return refused("The refresh token is invalid.");
        };
        if row.rotated_at.is_some() {
            security::refresh_reused(ex.client);
            crate::db::tokens::revoke_grant(tx, row.grant_id)?;
            return refused(
                "The refresh token was already used; every token of this grant is revoked.",
            );
        }
        if row.revoked || row.grant_revoked || ex.now >= row.expires_at {
            return refused("The refresh token is invalid, expired or revoked.");
        }
        if !crate::db::users::is_live(tx, row.user_id)? {
            return refused("The refresh token is invalid.");
        }
        let granted = Scope::parse(Some(&row.grant_scope), Scope::ALL).unwrap_or(Scope::ALL);
        let Some(scope) = Scope::parse(requested.as_deref(), granted) else {
            return Ok(Err(OAuthError::invalid_scope(scope::NOT_A_SUBSET)));
        };
        if !scope.within(granted) {
            return Ok(Err(OAuthError::invalid_scope("scope may only narrow the granted scope.")));
        }
        crate::db::tokens::rotate_refresh(tx, &hash, &row.access_hash, ex.now)?;
        Ok(Ok(issue(tx, row.grant_id, scope, ex.ttl, ex.now)?))
    })
    .await
}
