//! Token revocation (RFC 7009): `POST /oauth/revoke_token/`. Refresh tokens take the
//! access token issued with them along; access tokens go alone; a JWT (bound to no app)
//! may be revoked by any registered client, by its `jti`, until it expires. An unknown
//! token or one issued to another client is 200 and changes nothing (RFC 7009 §2.2).

use warp::http::StatusCode;
use warp::reply::Response;

use crate::http::Req;
use crate::http::route::Endpoint;
use crate::oauth::errors::OAuthError;
use crate::oauth::token::{client, read_form, required};
use crate::token::{self, jwt};

/// `POST /oauth/revoke_token/`
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        super::json_endpoint("/oauth/revoke_token/", "oauthRevokeToken", revoke)
            .body::<RevokeForm>(),
    ]
}

crate::form_fields! {
    /// A revocation request (RFC 7009 §2.1): a form whose parameters do not repeat. The
    /// client authenticates as at the token endpoint.
    #[schema(as = RevokeRequest)]
    pub struct RevokeForm {
        /// The access or refresh token (or JWT) to revoke (required).
        #[schema(required = true)]
        token: Option<String>,
        /// access_token or refresh_token: which kind is looked up first (only an order).
        token_type_hint: Option<String>,
        /// The app's client id (unless HTTP Basic carries it).
        client_id: Option<String>,
        /// A confidential app's secret (unless HTTP Basic carries it).
        client_secret: Option<String>,
    }
}

async fn revoke(mut req: Req) -> Result<Response, OAuthError> {
    let form = RevokeForm::read(&read_form(&mut req).await?)
        .map_err(|_| OAuthError::invalid_request("The form cannot be read."))?;
    let app = client(&req, form.client_id.as_deref(), form.client_secret.as_deref()).await?;
    let presented = required(&form.token, "token")?;
    let now = req.state.clock.now();
    if jwt::looks_like_jwt(presented) {
        // Only a JWT this server would accept can be revoked: a forged one has no jti
        // worth remembering.
        let keys = req.state.jwt_keys();
        if let Ok(payload) = jwt::verify_signature(presented, &keys.accepted(now)) {
            let jti = payload.get("jti").and_then(serde_json::Value::as_str);
            let exp = payload.get("exp").and_then(serde_json::Value::as_f64);
            if let (Some(jti), Some(exp)) = (jti.filter(|j| !j.is_empty()), exp) {
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "NumericDate rounded up to whole seconds"
                )]
                let until = (exp.ceil() as i64).saturating_mul(crate::clock::SECOND);
                if until > now {
                    let jti = jti.to_owned();
                    let stored = jti.clone();
                    req.state
                        .db
                        .write(move |tx| {
                            crate::db::jwt::revoke(tx, &stored, until, now)
                                .map_err(crate::db::DbError::from)
                        })
                        .await?;
                    req.state.note_revoked(jti, until);
                }
            }
        }
    } else {
        let hash = token::storage_hash(presented);
        let hint = form.token_type_hint.clone();
        let app_id = app.id;
        req.state
            .db
            .write(move |tx| -> Result<(), OAuthError> {
                // token_type_hint only orders the lookups (RFC 7009 §2.1)
                if hint.as_deref() == Some("access_token") {
                    if !crate::db::tokens::revoke_access_of_app(tx, &hash, app_id)? {
                        crate::db::tokens::revoke_refresh_of_app(tx, &hash, app_id)?;
                    }
                } else if !crate::db::tokens::revoke_refresh_of_app(tx, &hash, app_id)? {
                    crate::db::tokens::revoke_access_of_app(tx, &hash, app_id)?;
                }
                Ok(())
            })
            .await?;
    }
    let mut resp = crate::http::empty(StatusCode::OK);
    super::no_store(resp.headers_mut());
    Ok(resp)
}
