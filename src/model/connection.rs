//! Connections (friendship, SPEC §10 People): the status one user has towards another
//! as the kit names it (`SCConnectionStatus`), and a request's JSON
//! (`SCUserConnectionRequestType`).

use serde::Serialize;

use super::user::UserJson;

/// Where the caller stands with another user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// They are connected.
    Connected,
    /// The caller asked and the other has not answered (or rejected: the sender is not
    /// told).
    Sent,
    /// The other asked the caller, who has not answered or rejected.
    Received,
}

impl Status {
    /// Its name in JSON (`connection_status`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Connected => "connected",
            Status::Sent => "sent_connection_request",
            Status::Received => "received_connection_request",
        }
    }
}

/// A connection request as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub id: i64,
    pub from_user: i64,
    pub to_user: i64,
    pub created_at: crate::clock::Timestamp,
    pub rejected_at: Option<crate::clock::Timestamp>,
    pub viewed_at: Option<crate::clock::Timestamp>,
}

/// Connection request JSON.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = ConnectionRequest)]
pub struct RequestJson {
    pub id: i64,
    pub from_user: UserJson,
    pub to_user: UserJson,
    #[schema(format = DateTime)]
    pub created: String,
    /// When the receiver rejected it; null while it is open (and always null in the
    /// sender's list: a sender is not told).
    #[schema(format = DateTime)]
    pub rejected: Option<String>,
    /// When the receiver marked it seen.
    #[schema(format = DateTime)]
    pub viewed: Option<String>,
}

/// The answer of a connection action and of `connection_status`: the caller's status
/// towards the user afterwards (null: none).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct StatusJson {
    pub connection_status: Option<&'static str>,
}

impl From<Option<Status>> for StatusJson {
    fn from(s: Option<Status>) -> Self {
        StatusJson { connection_status: s.map(Status::as_str) }
    }
}
