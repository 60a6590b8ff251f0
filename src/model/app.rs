//! OAuth applications: the stored record and the grant it may use.

use serde::Serialize;

use crate::clock::Timestamp;

/// What a user's consent authorizes, carried by the authorization code to the token
/// endpoint: the consent form posts it back, `oauth_code` stores it, and the exchange
/// checks the redirect URI (RFC 6749 §4.1.3) and the PKCE challenge (RFC 7636 §4.6)
/// against it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Authorization {
    pub redirect_uri: String,
    /// The granted scope, as the request wrote it.
    pub scope: String,
    /// PKCE (RFC 7636 §4.3), when the client sent a challenge.
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
}

/// The grant type an application may use (SPEC §2 `--grant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AppGrant {
    /// RFC 6749 §4.1.
    AuthorizationCode,
    /// RFC 6749 §4.2.
    Implicit,
    /// RFC 6749 §4.3.
    Password,
}

impl AppGrant {
    /// The stored / command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            AppGrant::AuthorizationCode => "authorization-code",
            AppGrant::Implicit => "implicit",
            AppGrant::Password => "password",
        }
    }

    /// Parses the stored / command-line name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "authorization-code" => Some(AppGrant::AuthorizationCode),
            "implicit" => Some(AppGrant::Implicit),
            "password" => Some(AppGrant::Password),
            _ => None,
        }
    }
}

/// An application as stored (the secret only as its hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    pub id: i64,
    pub client_id: String,
    pub secret_hash: Vec<u8>,
    pub name: String,
    pub description: String,
    pub image: String,
    pub grant: AppGrant,
    /// Confidential apps must authenticate with their secret.
    pub confidential: bool,
    pub skip_consent: bool,
    pub redirect_uris: Vec<String>,
    pub created_at: Timestamp,
}
