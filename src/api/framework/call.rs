//! What an API handler receives: the request, its path parameters, the time, and a
//! database call that first resolves the caller as the endpoint's auth class says
//! ([`Who`]). The preamble every handler used to write (credentials, clock,
//! `db.read(|c| { auth::resolve(..)?; .. })`) is written once, here; the caller is
//! resolved inside the handler's own database call, so an authenticated read still
//! costs one blocking hop.
//!
//! Every write is charged here, once a request, to its caller's write quota
//! ([`crate::limits::writes`]): the one place all of the API's writes go through.
//!
//! The endpoint constructors ([`public`], [`ca`], [`user`], [`write`], [`staff`]) tie a
//! handler's caller type to its auth class: a `write` handler can only be declared with
//! a handler that takes a `Call<Principal>`.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

use rusqlite::{Connection, Transaction};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use warp::http::Method;
use warp::reply::Response;

use crate::api::auth;
use crate::clock::Timestamp;
use crate::error::ApiError;
use crate::http::auth::{Credentials, Principal};
use crate::http::body::{self, Body};
use crate::http::route::{Auth, Caller, Endpoint, Params};
use crate::http::{Req, respond};
use crate::model::PublicUrl;
use crate::state::AppState;

/// The caller an auth class resolves to: `Option<Principal>` for public and (CA)
/// endpoints, `Principal` for the others.
pub trait Who: Sized + Send + 'static {
    /// Resolves the caller inside a database call (401/403 as SPEC §4 says).
    fn resolve(
        c: &Connection,
        creds: &Credentials,
        now: Timestamp,
        auth: Auth,
    ) -> Result<Self, ApiError>;

    /// The caller's user id, when there is one.
    fn user_id(&self) -> Option<i64>;

    /// Whether the caller is staff.
    fn is_staff(&self) -> bool;
}

impl Who for Option<Principal> {
    fn resolve(
        c: &Connection,
        creds: &Credentials,
        now: Timestamp,
        auth: Auth,
    ) -> Result<Self, ApiError> {
        match auth {
            Auth::None => Ok(None),
            Auth::Ca => auth::resolve_ca(c, creds, now),
            _ => auth::resolve(c, creds, now),
        }
    }

    fn user_id(&self) -> Option<i64> {
        self.as_ref().map(|p| p.user_id)
    }

    fn is_staff(&self) -> bool {
        self.is_some_and(|p| p.is_staff)
    }
}

impl Who for Principal {
    fn resolve(
        c: &Connection,
        creds: &Credentials,
        now: Timestamp,
        auth: Auth,
    ) -> Result<Self, ApiError> {
        let who = auth::require(c, creds, now)?;
        match auth {
            Auth::Write => who.require_write(),
            // scope first: a read-only staff token is `insufficient_scope`, like any
            Auth::Staff => {
                let who = who.require_write()?;
                if who.is_staff { Ok(who) } else { Err(ApiError::PermissionDenied) }
            }
            _ => Ok(who),
        }
    }

    fn user_id(&self) -> Option<i64> {
        Some(self.user_id)
    }

    fn is_staff(&self) -> bool {
        self.is_staff
    }
}

/// One API request, as its handler sees it.
pub struct Call<W> {
    /// The request (its body still locked).
    pub req: Req,
    /// The path's parameters.
    pub params: Params,
    /// When the request is served.
    pub now: Timestamp,
    creds: Credentials,
    auth: Auth,
    /// The user id the last database call resolved (0: none), for [`Caller`].
    seen: Arc<AtomicI64>,
    /// Bytes of the request body read so far (the body adds them as it is read).
    body_bytes: Arc<AtomicU64>,
    /// Whether a write of this request was charged to the write quota already.
    charged: AtomicBool,
    /// The endpoint's operation id (what a blocked member may still do: [`BLOCKED_MAY`]).
    op: &'static str,
    who: PhantomData<fn() -> W>,
}

impl<W: Who> Call<W> {
    fn new(
        mut req: Req,
        params: Params,
        auth: Auth,
        op: &'static str,
        seen: Arc<AtomicI64>,
    ) -> Self {
        let body_bytes = Arc::new(AtomicU64::new(0));
        req.body.metered(Arc::clone(&body_bytes));
        Call {
            now: req.state.clock.now(),
            creds: req.credentials(),
            req,
            params,
            auth,
            seen,
            body_bytes,
            charged: AtomicBool::new(false),
            op,
            who: PhantomData,
        }
    }

    /// The template's first id (`{id}`).
    pub fn id(&self) -> i64 {
        self.params.id(0)
    }

    /// Shared state.
    pub fn state(&self) -> &AppState {
        &self.req.state
    }

    /// The public base URL (for absolute links in responses).
    pub fn base(&self) -> PublicUrl {
        self.req.state.config.public_url.clone()
    }

    /// The parsed query string.
    pub fn query(&self) -> Result<crate::http::query::Query, ApiError> {
        self.req.query()
    }

    fn resolver(&self) -> Resolver {
        Resolver {
            creds: self.creds.clone(),
            now: self.now,
            auth: self.auth,
            seen: Arc::clone(&self.seen),
        }
    }

    /// A read: `f` runs on a reader connection after the caller was resolved on it
    /// (`Fn`: a read that overruns its time on the runtime's thread runs again on a
    /// blocking thread, see `Db::read`).
    pub async fn read<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: Fn(&Connection, W) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let r = self.resolver();
        self.req.state.db.read(move |c| f(c, r.resolve(c)?)).await
    }

    /// The record the template's `{id}` names, read by `get` after the caller was
    /// resolved; 404 when there is none.
    pub async fn read_id<T, F>(&self, get: F) -> Result<T, ApiError>
    where
        F: Fn(&Connection, i64) -> rusqlite::Result<Option<T>> + Send + 'static,
        T: Send + 'static,
    {
        let id = self.id();
        self.read(move |c, _who| get(c, id)?.ok_or(ApiError::NotFound)).await
    }

    /// A write: `f` runs in the writer's transaction after the caller was resolved in
    /// it (so a token revoked a moment ago cannot write) and, on the request's first
    /// write, charged to the caller's write quota with the bytes of the body read so
    /// far (429 when over it; staff are not charged). The check runs where writes are
    /// one at a time, so it is exact however many of a user's writes race; a write
    /// that fails gives its bytes back. A member whom staff blocked (SPEC §10 People:
    /// `PATCH /moderation/user/{id}/`, `hearth user suspend`) is refused here (403),
    /// in the same transaction, unless the endpoint is one of [`BLOCKED_MAY`].
    pub async fn write<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce(&Transaction<'_>, W) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let r = self.resolver();
        let quota = (!self.charged.swap(true, Ordering::Relaxed)).then(|| QuotaCheck {
            quota: Arc::clone(&self.req.state.write_quota),
            client: self.req.client_addr(),
            bytes: self.body_bytes.load(Ordering::Relaxed),
            now: self.now,
        });
        let blocked_may = BLOCKED_MAY.contains(&self.op);
        let now = self.now;
        self.req
            .state
            .db
            .write(move |tx| {
                let who: W = r.resolve(tx)?;
                if !blocked_may
                    && let Some(id) = who.user_id()
                    && crate::db::user_blocks::is_blocked(tx, id, now)?
                {
                    return Err(ApiError::Refused(BLOCKED));
                }
                let charge = match &quota {
                    Some(q) => q.charge(&who)?,
                    None => None,
                };
                let out = f(tx, who);
                if out.is_err()
                    && let (Some(q), Some(c)) = (&quota, charge)
                {
                    q.quota.refund(c);
                }
                out
            })
            .await
    }

    /// The answer to a write that committed, built by `f` on a reader connection, so
    /// that the writer, which takes writes one at a time, runs only the write (issue
    /// 34). It reads what is committed now: the write, and any write committed since.
    /// The caller was resolved in the write and is not again, so a token revoked in
    /// between cannot turn a committed write into a 401.
    pub async fn answer<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: Fn(&Connection) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.req.state.db.read(f).await
    }

    /// Takes the body out to read it (once; an empty body is left behind).
    pub fn take_body(&mut self) -> Body {
        std::mem::replace(&mut self.req.body, Body::empty())
    }

    /// Reads a JSON body (see [`body::json`]); the body must have been unlocked.
    pub async fn json<T: DeserializeOwned>(&mut self) -> Result<T, ApiError> {
        let b = self.take_body();
        body::json(b, &self.req.headers).await
    }

    /// Reads a JSON object body (see [`body::object`]).
    pub async fn object(&mut self) -> Result<Map<String, Value>, ApiError> {
        let b = self.take_body();
        body::object(b, &self.req.headers).await
    }

    /// Reads the body of a route that takes none (see [`body::none`]).
    pub async fn no_body(&mut self) -> Result<(), ApiError> {
        let b = self.take_body();
        body::none(b, &self.req.headers).await
    }

    /// Unlocks the body of a protected route after the checks that need no database
    /// (see [`auth::before_body`]); the handler's own call authenticates fully.
    pub async fn before_body(&mut self) -> Result<(), ApiError> {
        auth::before_body(&mut self.req).await
    }
}

/// What a database call needs to resolve the caller: taken from the [`Call`] before
/// the call moves to its connection.
struct Resolver {
    creds: Credentials,
    now: Timestamp,
    auth: Auth,
    seen: Arc<AtomicI64>,
}

impl Resolver {
    /// The caller, resolved on `c`; noted for the response's [`Caller`].
    fn resolve<W: Who>(&self, c: &Connection) -> Result<W, ApiError> {
        let who = W::resolve(c, &self.creds, self.now, self.auth)?;
        if let Some(id) = who.user_id() {
            self.seen.store(id, Ordering::Relaxed);
        }
        Ok(who)
    }
}

/// A write's charge to its caller's write quota, prepared before the write moves to
/// the writer.
struct QuotaCheck {
    quota: Arc<crate::limits::writes::WriteQuota>,
    client: std::net::IpAddr,
    bytes: u64,
    now: Timestamp,
}

impl QuotaCheck {
    /// Charges the write to `who` (nothing for an anonymous or staff caller); 429 with
    /// `Retry-After` over the quota, and a security event.
    fn charge<W: Who>(&self, who: &W) -> Result<Option<crate::limits::writes::Charge>, ApiError> {
        let Some(user) = who.user_id().filter(|_| !who.is_staff()) else { return Ok(None) };
        match self.quota.charge(user, self.bytes, self.now) {
            Ok(c) => Ok(Some(c)),
            Err(refused) => {
                crate::telemetry::security::write_throttled(
                    self.client,
                    user,
                    refused.limit.as_str(),
                    refused.log,
                );
                Err(ApiError::Throttled(refused.retry_after))
            }
        }
    }
}

fn declare<W, F, Fut>(
    auth: Auth,
    method: Method,
    path: &'static str,
    operation_id: &'static str,
    handler: F,
) -> Endpoint
where
    W: Who,
    F: Fn(Call<W>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Response, ApiError>> + Send + 'static,
{
    Endpoint::new(method, path, auth, operation_id, move |req, params| {
        let seen = Arc::new(AtomicI64::new(0));
        let fut = handler(Call::new(req, params, auth, operation_id, Arc::clone(&seen)));
        async move {
            let mut resp = respond(fut.await);
            // ids start at 1; the database call that resolved the caller has returned
            let id = seen.load(Ordering::Relaxed);
            if id > 0 {
                resp.extensions_mut().insert(Caller(id));
            }
            resp
        }
    })
}

/// What a member whom staff blocked may still do (by operation id): look after their
/// own account (password, address, settings, legal answers, their data, deleting it),
/// read and dismiss what reaches them, follow categories, take back what they wrote,
/// and end relations (hide, unfollow a course, cancel, reject or remove connections).
/// Everything else that writes is 403 while the block lasts: contributions, comments,
/// votes, flags, follows of users, connection requests, the profile (the platform's
/// `status: b` rules, `@selfcommunity/types` `SCUserType.status`).
pub const BLOCKED_MAY: [&str; 26] = [
    "ackLegalPage",
    "changeUserMail",
    "changeUserPassword",
    "confirmUserChangeMail",
    "deleteComment",
    "deleteDiscussion",
    "deletePost",
    // a private message: taken back (what they wrote) or hidden for themselves; a
    // thread deleted for themselves
    "deletePrivateMessage",
    "deletePrivateMessageThread",
    "deleteStatus",
    "disposeBanners",
    "followCategory",
    "generateDataPortability",
    // reading a thread marks it read for the reader (their own marks)
    "getPrivateMessages",
    "getUserConnectionStatuses",
    "hideUser",
    "leaveCourse",
    "markBannersRead",
    "markFeedRead",
    "markNotificationsRead",
    "updateUserSettings",
    "userCancelRequestConnection",
    "userDelete",
    "userMarkSeenConnectionRequest",
    "userRejectConnectionRequest",
    "userRemoveConnection",
];

/// What a blocked member is told.
const BLOCKED: &str = "Your account is blocked: you cannot do this until the block ends.";

/// The six constructors, one per auth class: each ties its handler's caller type to
/// the class (`Option<Principal>` where an anonymous caller can be served).
macro_rules! constructors {
    ($($(#[$doc:meta])* $name:ident: $auth:ident, $who:ty;)+) => {$(
        $(#[$doc])*
        pub fn $name<F, Fut>(method: Method, path: &'static str, op: &'static str, f: F) -> Endpoint
        where
            F: Fn(Call<$who>) -> Fut + Send + Sync + 'static,
            Fut: Future<Output = Result<Response, ApiError>> + Send + 'static,
        {
            declare(Auth::$auth, method, path, op, f)
        }
    )+};
}

constructors! {
    /// Declares an endpoint that takes no authentication: the caller it resolves is
    /// always `None`, whatever bearer token was sent.
    anonymous: None, Option<Principal>;
    /// Declares an endpoint anyone may call; a bearer token, when sent, must be valid.
    public: Public, Option<Principal>;
    /// Declares a (CA) read: anonymous callers only while content is available.
    ca: Ca, Option<Principal>;
    /// Declares an endpoint for any caller with a valid token.
    user: User, Principal;
    /// Declares an endpoint that needs the `write` scope.
    write: Write, Principal;
    /// Declares an endpoint for staff callers with the `write` scope.
    staff: Staff, Principal;
}

#[cfg(test)]
mod tests {
    use super::BLOCKED_MAY;

    #[test]
    fn what_a_blocked_member_may_do_names_real_writes() {
        let router = crate::api::router();
        for op in BLOCKED_MAY {
            let e = router.endpoints().find(|e| e.operation_id == op);
            assert!(e.is_some_and(|e| e.writes), "{op} is no write of the router");
        }
    }
}
