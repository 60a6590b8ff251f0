//! The API as the service `server.rs` hands to hyper for each connection (behind the
//! replica layer): the router picks the endpoint and the handler answers
//! ([`Router::serve`]). warp's filters are not on this path (issue 34: they cost a
//! tenth of the CPU of the cheapest request); see docs/architecture.md.

use std::convert::Infallible;
use std::task::{Context, Poll};

use futures_util::FutureExt as _;
use futures_util::future::{BoxFuture, Map};
use hyper::body::Incoming;
use tower_service::Service;
use warp::http::Request;
use warp::reply::Response;

use super::route::Router;
use crate::state::AppState;

/// Every endpoint of `router`, served with `state`.
#[derive(Clone)]
pub struct Api {
    router: &'static Router,
    state: AppState,
}

impl Api {
    /// The service of `router`'s endpoints.
    pub fn new(router: &'static Router, state: AppState) -> Api {
        Api { router, state }
    }
}

impl Service<Request<Incoming>> for Api {
    type Response = Response;
    type Error = Infallible;
    type Future = Map<BoxFuture<'static, Response>, fn(Response) -> Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Incoming>) -> Self::Future {
        self.router.serve(&self.state, req).map(Ok)
    }
}
