//! The HTTP server: we bind and accept ourselves so that the limits SPEC §3 asks for,
//! which warp does not provide, are enforced here: a connection cap and a cap per
//! client address (a connection over either is closed at once), a header-read timeout,
//! a keep-alive idle timeout that the header timeout does not cut short, and graceful
//! shutdown with a deadline. (The body timeout is the body reader's, `http::body`.)
//! Each request gets an id and one access-log line (`access`); `--metrics-listen`
//! serves the metrics on a listener of its own (`metrics`).

mod access;
mod memory;
pub mod metrics;
mod outgoing;
mod socket;
mod watchdog;

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, TryAcquireError, watch};
use tower_service::Service;
use tracing::Instrument;
use warp::http::{HeaderName, HeaderValue, Request};

use crate::http::PeerAddr;
use crate::http::body::HeadersDone;
use crate::http::cors::{Checked, Cors};
use crate::limits::AddrKey;
use crate::state::AppState;
use socket::{Activity, Tracked, millis_since};

/// Binds the listen address, with a clear error when it is taken.
pub async fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    TcpListener::bind(addr).await.map_err(|e| {
        let why = if e.kind() == io::ErrorKind::AddrInUse {
            "the address is already in use (is another hearth running?)".to_owned()
        } else {
            e.to_string()
        };
        io::Error::new(e.kind(), format!("cannot listen on {addr}: {why}"))
    })
}

/// RFC 9112 §3.2: an HTTP/1.1 request without a `Host` header, and any request with
/// more than one or with a value that is no `host[:port]`, is 400 (what a proxy in
/// front and hearth would take the target authority to be could differ).
fn host_rule(req: &Request<Incoming>) -> Result<(), crate::error::ApiError> {
    use crate::error::ApiError::MalformedRequest;
    let mut hosts = req.headers().get_all(hyper::header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (None, _) if req.version() >= hyper::Version::HTTP_11 => {
            Err(MalformedRequest("An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)."))
        }
        (None, _) => Ok(()),
        (Some(_), Some(_)) => Err(MalformedRequest(
            "A request must carry one Host header, not several (RFC 9112 §3.2).",
        )),
        (Some(v), None) => {
            // empty is allowed (a target without an authority); no userinfo
            let valid = v.is_empty()
                || (!v.as_bytes().contains(&b'@')
                    && hyper::http::uri::Authority::try_from(v.as_bytes()).is_ok());
            if valid {
                Ok(())
            } else {
                Err(MalformedRequest("The Host header is not a host and port (RFC 9112 §3.2)."))
            }
        }
    }
}

/// The request id's header, named once (a name given as text is parsed at each use).
const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The request id: the client's `X-Request-Id` when it is short and printable, else a
/// new random one.
fn request_id(req: &Request<Incoming>) -> HeaderValue {
    req.headers()
        .get(REQUEST_ID)
        .filter(|v| {
            !v.is_empty() && v.len() <= 128 && v.as_bytes().iter().all(|b| b.is_ascii_graphic())
        })
        .cloned()
        .unwrap_or_else(new_request_id)
}

/// A new request id: 16 URL-safe characters, 96 bits that look random — a hash of a
/// counter under keys drawn once from the OS (std's `RandomState`), so ids neither
/// repeat in practice (within a process or across restarts) nor tell how many requests
/// came before. Not a secret, so no call to the OS's random source per request (one
/// `getrandom(2)` a request was 1% of the ceiling's CPU, issue 17).
fn new_request_id() -> HeaderValue {
    use base64::Engine as _;
    use std::hash::BuildHasher;
    static KEYS: std::sync::OnceLock<std::hash::RandomState> = std::sync::OnceLock::new();
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let keys = KEYS.get_or_init(std::hash::RandomState::new);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut raw = [0u8; 12];
    raw[..8].copy_from_slice(&keys.hash_one(n).to_le_bytes());
    raw[8..].copy_from_slice(&keys.hash_one((n, 1u8)).to_le_bytes()[..4]);
    let id = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw);
    HeaderValue::from_str(&id).unwrap_or(HeaderValue::from_static("-"))
}

/// The next connection, or `None` after an accept error (EMFILE and friends), logged
/// as `failed` and followed by a 50 ms back-off instead of spinning.
pub(crate) async fn accept(
    listener: &TcpListener,
    failed: &str,
) -> Option<(TcpStream, SocketAddr)> {
    match listener.accept().await {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::warn!(error = %e, "{failed}");
            tokio::time::sleep(Duration::from_millis(50)).await;
            None
        }
    }
}

/// Open connections per client address (an IPv6 client by its /64: [`AddrKey`]).
#[derive(Default, Clone)]
struct PerAddress(Arc<std::sync::Mutex<HashMap<AddrKey, usize>>>);

/// One connection counted against its address until dropped.
struct AddressSlot {
    map: PerAddress,
    ip: AddrKey,
}

impl PerAddress {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<AddrKey, usize>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts a connection from `ip`, unless it already has `max`.
    fn enter(&self, ip: IpAddr, max: usize) -> Option<AddressSlot> {
        let ip = AddrKey::of(ip);
        let mut m = self.map();
        let n = m.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(AddressSlot { map: self.clone(), ip })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut m = self.map.map();
        if let Some(n) = m.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

/// The job that moves the events' order keys on as their occurrences pass
/// (`db::events::order`), every `REFRESH_EVERY` from the start; on the primary only (a
/// replica's reads recompute the keys that went stale themselves, as the primary's do
/// between two runs).
fn spawn_event_keys(state: &AppState) -> Option<tokio::task::JoinHandle<()>> {
    use crate::db::events::order::{REFRESH_EVERY, REFRESH_MAX, refresh_keys};
    if !matches!(state.role(), crate::role::Role::Primary) {
        return None;
    }
    let state = state.clone();
    Some(tokio::spawn(async move {
        let mut tick = tokio::time::interval(REFRESH_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let now = state.clock.now();
            let moved = state
                .db
                .write(move |tx| {
                    refresh_keys(tx, now, REFRESH_MAX).map_err(crate::db::DbError::from)
                })
                .await;
            match moved {
                Ok(n) => tracing::debug!(keys = n, "event order keys moved on"),
                Err(e) => tracing::warn!(error = %e, "moving the event order keys on failed"),
            }
        }
    }))
}

/// Serves `listener` until `shutdown` resolves, then stops accepting, lets in-flight
/// requests finish for up to `config.shutdown_timeout`, and checkpoints the database.
pub async fn serve_on(listener: TcpListener, state: AppState, shutdown: impl Future<Output = ()>) {
    let api = crate::api::service(state.clone());
    let config = Arc::clone(&state.config);
    let cors = Arc::new(Cors::new(config.cors_origins.clone(), crate::api::router().clone()));
    let slots = Arc::new(Semaphore::new(config.max_connections));
    let (stop_tx, stop_rx) = watch::channel(false);
    let key_reloader = state.spawn_key_reloader();
    let memory = memory::spawn(&state);
    let event_keys = spawn_event_keys(&state);
    // SPEC §9: role and position headers; on a read replica, forwarding
    let me = listener.local_addr().map_or_else(|_| "hearth".to_owned(), |a| a.to_string());
    let node = crate::replica::Node::start(&state, &me);
    tokio::pin!(shutdown);

    let per_address = PerAddress::default();
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            r = accept(&listener, "accept failed") => match r {
                Some(c) => c,
                None => continue,
            },
        };
        // over either cap: closed at once (dropping the stream), costing the others
        // nothing; trusted proxies carry many clients and are not capped per address
        let permit = match Arc::clone(&slots).try_acquire_owned() {
            Ok(p) => p,
            Err(TryAcquireError::NoPermits) => {
                tracing::debug!(%peer, "connection cap reached; closing");
                continue;
            }
            Err(TryAcquireError::Closed) => break,
        };
        let ip = crate::config::canonical(peer.ip());
        let held = if config.is_trusted_proxy(ip) {
            None
        } else {
            match per_address.enter(ip, config.max_connections_per_address) {
                Some(h) => Some(h),
                None => {
                    tracing::debug!(%peer, "per-address connection cap reached; closing");
                    continue;
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let svc = node.wrap(api.clone());
        let config = Arc::clone(&config);
        let mut stop = stop_rx.clone();
        let open = access::Open::count();
        let cors = Arc::clone(&cors);
        let live = state.clone();
        tokio::spawn(async move {
            serve_connection(stream, peer, svc, config, cors, live, &mut stop).await;
            drop(open);
            drop(held);
            drop(permit);
        });
    }

    state.set_stopping();
    drop(listener);
    key_reloader.abort();
    if let Some(m) = memory {
        m.abort();
    }
    if let Some(k) = event_keys {
        k.abort();
    }
    drop(node);
    let _ = stop_tx.send(true);
    let all = u32::try_from(config.max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(config.shutdown_timeout, slots.acquire_many(all)).await.is_err() {
        tracing::warn!("shutdown deadline passed with requests still in flight");
    }
    let db = state.db.clone();
    let _ = tokio::task::spawn_blocking(move || db.close()).await;
}

/// What a request comes to once its headers are checked.
enum Next<F> {
    /// An answer already (a bad `Host`, a CORS preflight or refusal).
    Answer(warp::reply::Response),
    /// The live socket's upgrade.
    Upgrade((hyper::upgrade::OnUpgrade, warp::http::HeaderMap, AppState)),
    /// The router's future, and what CORS adds to its response.
    Route(F, crate::http::cors::Finish),
}

async fn serve_connection<S>(
    stream: TcpStream,
    peer: SocketAddr,
    svc: S,
    config: Arc<crate::config::Config>,
    cors: Arc<Cors>,
    live: AppState,
    stop: &mut watch::Receiver<bool>,
) where
    S: Service<
            Request<Incoming>,
            Response = warp::reply::Response,
            Error = std::convert::Infallible,
        > + Send
        + 'static,
    S::Future: Send,
{
    let start = crate::clock::instant();
    // what every request of this connection uses, in handles of the connection's own:
    // a request's clone then counts in this connection's `Arc`, not in one that every
    // core writes (issue 34); the service is called under a lock only its requests take
    let budget = Arc::new(live.body_budget.clone());
    let svc = std::sync::Mutex::new(svc);
    let activity = Arc::new(Activity { reading_since: AtomicI64::new(-1), ..Activity::default() });
    let io = TokioIo::new(Tracked::new(stream, Arc::clone(&activity), start));
    let act = Arc::clone(&activity);
    let logged = Arc::clone(&config);
    let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
        let act = Arc::clone(&act);
        act.in_flight.fetch_add(1, Ordering::AcqRel);
        let id = request_id(&req);
        let entry = access::Access::new(&req, id.clone(), peer, &logged);
        let (method, owner) = (req.method().clone(), AddrKey::of(entry.client()));
        let budget = Arc::clone(&budget);
        req.extensions_mut().insert(PeerAddr(peer));
        req.extensions_mut().insert(HeadersDone(tokio::time::Instant::from_std(entry.began())));
        let span = tracing::info_span!("request", request_id = id.to_str().unwrap_or("-"));
        let host = host_rule(&req);
        let checked = cors.check(req.method(), req.uri().path(), req.headers());
        // the live socket takes the connection over (api::live), before the router
        let upgrade = crate::api::live::is_upgrade(req.method(), req.uri().path(), req.headers())
            .then(|| (hyper::upgrade::on(&mut req), req.headers().clone(), live.clone()));
        let next = match (host, checked, upgrade) {
            (Err(e), _, _) => Next::Answer(e.to_response()),
            (Ok(()), _, Some(up)) => Next::Upgrade(up),
            (Ok(()), Checked::Answer(r), None) => Next::Answer(r),
            (Ok(()), Checked::Pass(finish), None) => {
                // the handler starts here (authentication included): inside the span
                let routed = span.in_scope(|| {
                    svc.lock().unwrap_or_else(std::sync::PoisonError::into_inner).call(req)
                });
                Next::Route(routed.instrument(span), finish)
            }
        };
        async move {
            let resp = match next {
                Next::Answer(r) => r,
                Next::Upgrade((on, headers, state)) => {
                    crate::api::live::accept(state, headers, peer, on).await
                }
                Next::Route(routed, finish) => match routed.await {
                    Ok(r) => finish.apply(r),
                    Err(never) => match never {},
                },
            };
            let mut resp = outgoing::account(resp, &method, &budget, owner, || {
                crate::error::ApiError::Unavailable(crate::error::Unavailable::Memory).to_response()
            });
            resp.headers_mut().insert(REQUEST_ID, id);
            let done = entry.finish(&resp);
            let idle_since = done.saturating_duration_since(start).as_millis();
            act.idle_since.store(i64::try_from(idle_since).unwrap_or(i64::MAX), Ordering::Release);
            act.reading_since.store(-1, Ordering::Release);
            act.served.fetch_add(1, Ordering::AcqRel);
            act.in_flight.fetch_sub(1, Ordering::AcqRel);
            Ok::<_, std::convert::Infallible>(resp)
        }
    });
    // hyper's own header timeout also runs while a keep-alive connection waits for its
    // next request, so it would cut the 75 s idle time at 30 s: the watchdog below
    // keeps both clocks instead.
    // What a connection buffers is bounded by `max_buf_size` (headers: 431 past it).
    // Pipelined requests are not read ahead (issue 27, Medium 6): hyper runs the next
    // request's handler only once the previous response has left its write queue for
    // the socket (`can_write_head`), and while a response is in flight reads at most
    // one buffer's worth to notice a closed connection; `pipeline_flush` stays off.
    // Tested in tests/api/hardening/connections.rs.
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .max_buf_size(crate::config::MAX_HEADER_BYTES)
        .keep_alive(true)
        .serve_connection(io, service)
        // `GET /ws/notify` takes the connection over (api::live): the socket's task then
        // owns it, outside this loop's timeouts and the connection cap (the live
        // sockets have their own, in `hub`)
        .with_upgrades();
    tokio::pin!(conn);
    let header_limit = i64::try_from(config.header_read_timeout.as_millis()).unwrap_or(i64::MAX);
    let idle_limit = i64::try_from(config.keep_alive_idle.as_millis()).unwrap_or(i64::MAX);
    let tick_every = (config.header_read_timeout.min(config.keep_alive_idle) / 8)
        .clamp(Duration::from_millis(10), Duration::from_secs(1));
    let mut tick = tokio::time::interval(tick_every);
    tick.tick().await;
    let mut stopping = *stop.borrow();
    if stopping {
        conn.as_mut().graceful_shutdown();
    }
    let stop_signal = stop.changed();
    tokio::pin!(stop_signal);
    let watch = watchdog::Watch::new();
    loop {
        let signal = (!stopping).then_some(stop_signal.as_mut());
        match watch.next(conn.as_mut(), &mut tick, signal).await {
            watchdog::Event::Done(r) => {
                if let Err(e) = r {
                    tracing::debug!(error = %e, %peer, "connection ended with an error");
                }
                return;
            }
            watchdog::Event::Tick => {
                if activity.in_flight.load(Ordering::Acquire) > 0 {
                    continue;
                }
                let now = millis_since(start);
                let reading = activity.reading_since.load(Ordering::Acquire);
                let idle = activity.idle_since.load(Ordering::Acquire);
                let fresh = activity.served.load(Ordering::Acquire) == 0;
                // headers: 30 s from their first byte (or from the accept for a new
                // connection); idle keep-alive: 75 s since the last response
                let timed_out = (reading >= 0 && now - reading >= header_limit)
                    || (reading < 0 && fresh && now >= header_limit)
                    || (reading < 0 && now - idle >= idle_limit);
                if timed_out {
                    return;
                }
            }
            watchdog::Event::Stop => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn request_ids_are_short_url_safe_and_distinct() {
        let ids: std::collections::HashSet<_> = (0..20_000)
            .map(|_| super::new_request_id().to_str().unwrap_or("").to_owned())
            .collect();
        assert_eq!(ids.len(), 20_000);
        assert!(ids.iter().all(|id| {
            id.len() == 16
                && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        }));
    }

    /// Issue 27, Low 13: the per-address connection cap counts an IPv6 client by its
    /// /64; a slot given back frees its place.
    #[test]
    fn the_connection_cap_counts_an_ipv6_slash_64_as_one_address() {
        let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap_or(std::net::IpAddr::from([0; 4]));
        let per = super::PerAddress::default();
        let a = per.enter(ip("2001:db8:1:2::1"), 2);
        let b = per.enter(ip("2001:db8:1:2:ffff::2"), 2);
        assert!(a.is_some() && b.is_some());
        assert!(per.enter(ip("2001:db8:1:2::3"), 2).is_none(), "a third address of the /64");
        assert!(per.enter(ip("2001:db8:1:3::1"), 2).is_some(), "another /64");
        drop(a);
        assert!(per.enter(ip("2001:db8:1:2::3"), 2).is_some());
        drop(b);
    }
}
