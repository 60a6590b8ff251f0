//! `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5): the code is single
//! use, lives 60 s, and is bound to the client, user, redirect URI, scope and PKCE
//! challenge. A second use fails and revokes every token issued from the code
//! (RFC 6749 §4.1.2, §10.5); a code whose first exchange was refused issued none, and
//! its second use says so.

use super::{Ctx, TokenResponse, decide, issue, refused, required, unauthorized_client};
use crate::model::app::AppGrant;
use crate::oauth::errors::OAuthError;
use crate::oauth::pkce;
use crate::oauth::scope::Scope;
use crate::telemetry::security;
use crate::token;

/// Exchanges a code.
pub async fn exchange(ctx: Ctx<'_>) -> Result<TokenResponse, OAuthError> {
    if ctx.app.grant != AppGrant::AuthorizationCode {
        return Err(unauthorized_client());
    }
    let code = required(&ctx.form.code, "code")?;
    let redirect_uri = required(&ctx.form.redirect_uri, "redirect_uri")?.to_owned();
    let verifier = ctx.form.code_verifier.clone().filter(|v| !v.is_empty());
    let hash = token::storage_hash(code);
    let ex = ctx.exchange();
    decide(ctx.state, move |tx| {
        // another client's code is as unknown as a made-up one
        let row = crate::db::tokens::code(tx, &hash)?.filter(|r| r.app_id == ex.app_id);
        let Some(row) = row else {
            return refused("The code is invalid.");
        };
        if row.used_at.is_some() {
            security::code_reused(ex.client);
            let Some(g) = row.grant_id else {
                // an earlier exchange of it was refused: nothing was issued to revoke
                return refused(
                    "The code was already used in an exchange that was refused, which issued no tokens; start a new authorization request.",
                );
            };
            crate::db::tokens::revoke_grant(tx, g)?;
            return refused("The code was already used; the tokens issued from it are revoked.");
        }
        if ex.now >= row.expires_at {
            crate::db::tokens::use_code(tx, &hash, None, ex.now)?;
            return refused("The code has expired.");
        }
        if row.authorization.redirect_uri != redirect_uri {
            crate::db::tokens::use_code(tx, &hash, None, ex.now)?;
            return refused("The redirect_uri does not match the authorization request.");
        }
        let a = &row.authorization;
        let pkce_ok = match (&a.code_challenge, &verifier) {
            (None, None) => true,
            (Some(ch), Some(v)) => {
                let m = pkce::Method::parse(a.code_challenge_method.as_deref())
                    .unwrap_or(pkce::Method::S256);
                pkce::verify(m, ch, v)
            }
            _ => false,
        };
        if !pkce_ok {
            crate::db::tokens::use_code(tx, &hash, None, ex.now)?;
            return refused("The code_verifier does not match the code_challenge.");
        }
        if !crate::db::users::is_live(tx, row.user_id)? {
            crate::db::tokens::use_code(tx, &hash, None, ex.now)?;
            return refused("The code is invalid.");
        }
        let scope = Scope::parse(Some(&a.scope), Scope::ALL).unwrap_or(Scope::ALL);
        let grant =
            crate::db::tokens::insert_grant(tx, ex.app_id, row.user_id, scope.as_str(), ex.now)?;
        crate::db::tokens::use_code(tx, &hash, Some(grant), ex.now)?;
        Ok(Ok(issue(tx, grant, scope, ex.ttl, ex.now)?))
    })
    .await
}
