//! Responses a client has not read yet, in the memory budget (issue 27, Medium 6: 600
//! clients that pipelined requests for large pages and never read held ~1 MB each).
//!
//! hyper serves a connection's requests one at a time and runs the next handler only
//! once the response before it has left its write queue, so a client that never reads
//! holds one response. A response body of [`ACCOUNT_FROM`] bytes or more holds its size
//! of the request memory budget (`serve --max-body-memory`, counted in its client
//! address's share, `limits::budget`) until the socket has taken all of it: it is handed
//! to hyper in chunks of [`CHUNK`] bytes, each a copy, so that the whole body's
//! allocation goes with the last chunk, when the permit is given back; hyper asks for
//! the next chunk only when its queue is under `config::MAX_HEADER_BYTES`. So what
//! unread responses hold beyond the budget is at most two chunks a connection.
//!
//! A GET or HEAD whose response does not fit (the budget is spent, or the address holds
//! its share already) is answered 503 `service_unavailable` with `Retry-After` instead,
//! as a body would be, and its connection closed (requests pipelined behind it would
//! each be computed to be refused again); one response may pass the share of an address that holds
//! nothing, so a client that reads what it asks for always gets a large page. Any other
//! method's response is sent whatever the budget says (its write has happened; a 503
//! would invite a retry that repeats it), chunked and counted when it fits.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use hyper::body::{Body, Frame, SizeHint};
use warp::http::{Method, Response};

use crate::limits::AddrKey;
use crate::limits::budget::{Budget, Permit};

/// Responses from this size on are counted.
pub const ACCOUNT_FROM: usize = 64 * 1024;
/// What a counted response is handed to hyper in.
pub const CHUNK: usize = 64 * 1024;

/// A response body, counted in the budget while it is unsent.
pub(super) struct Outgoing<B> {
    inner: B,
    /// What is left of a frame larger than [`CHUNK`].
    rest: Bytes,
    /// The budget's bytes (none for a small or uncounted response).
    permit: Option<Permit>,
    chunked: bool,
}

/// `resp`, its body counted when large (see the module doc); a GET or HEAD over the
/// budget becomes the 503 of `ApiError::Unavailable(Memory)`.
pub(super) fn account<B>(
    resp: Response<B>,
    method: &Method,
    budget: &Budget,
    owner: AddrKey,
    refused: impl FnOnce() -> Response<B>,
) -> Response<Outgoing<B>>
where
    B: Body<Data = Bytes> + Unpin,
{
    let len = resp.body().size_hint().exact().and_then(|n| usize::try_from(n).ok());
    let Some(len) = len.filter(|n| *n >= ACCOUNT_FROM) else {
        return resp.map(|inner| Outgoing::plain(inner));
    };
    match budget.response(owner, len) {
        Ok(permit) => resp.map(|inner| Outgoing {
            inner,
            rest: Bytes::new(),
            permit: Some(permit),
            chunked: true,
        }),
        Err(_) if *method == Method::GET || *method == Method::HEAD => {
            // what the route and the CORS check put on it (the access line's route and
            // user, a browser's right to read the 503) stays
            let (parts, _) = resp.into_parts();
            let mut r = refused();
            for (name, value) in &parts.headers {
                let n = name.as_str();
                if n.starts_with("access-control-") || n == "vary" {
                    r.headers_mut().append(name.clone(), value.clone());
                }
            }
            *r.extensions_mut() = parts.extensions;
            // the connection's pipelined requests would each be computed and refused
            // again: the client that reads nothing gets no more of them served
            r.headers_mut().insert(
                warp::http::header::CONNECTION,
                warp::http::HeaderValue::from_static("close"),
            );
            r.map(Outgoing::plain)
        }
        Err(_) => {
            resp.map(|inner| Outgoing { inner, rest: Bytes::new(), permit: None, chunked: true })
        }
    }
}

impl<B> Outgoing<B> {
    fn plain(inner: B) -> Self {
        Outgoing { inner, rest: Bytes::new(), permit: None, chunked: false }
    }

    /// The next chunk of `rest`, a copy; the last one lets go of the allocation and the
    /// permit.
    fn next_chunk(&mut self) -> Bytes {
        let n = self.rest.len().min(CHUNK);
        let chunk = Bytes::copy_from_slice(&self.rest[..n]);
        self.rest.advance(n);
        if self.rest.is_empty() {
            self.rest = Bytes::new();
        }
        chunk
    }
}

impl<B> Body for Outgoing<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = &mut *self;
        if !this.rest.is_empty() {
            return Poll::Ready(Some(Ok(Frame::data(this.next_chunk()))));
        }
        match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) if this.chunked => match frame.into_data() {
                Ok(data) => {
                    this.rest = data;
                    Poll::Ready(Some(Ok(Frame::data(this.next_chunk()))))
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            None => {
                this.permit = None;
                Poll::Ready(None)
            }
            other => Poll::Ready(other),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = u64::try_from(self.rest.len()).unwrap_or(u64::MAX);
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower().saturating_add(rest));
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper.saturating_add(rest));
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, Full};

    fn owner() -> AddrKey {
        AddrKey::of(std::net::IpAddr::from([192, 0, 2, 1]))
    }

    fn response(len: usize) -> Response<Full<Bytes>> {
        Response::new(Full::new(Bytes::from(vec![b'x'; len])))
    }

    fn refused() -> Response<Full<Bytes>> {
        let mut r = Response::new(Full::new(Bytes::from_static(b"busy")));
        *r.status_mut() = warp::http::StatusCode::SERVICE_UNAVAILABLE;
        r
    }

    #[tokio::test]
    async fn a_large_body_holds_the_budget_until_its_last_chunk() {
        let budget = Budget::new(8 * 1024 * 1024);
        let mut body =
            account(response(300_000), &Method::GET, &budget, owner(), refused).into_body();
        assert_eq!(budget.held(), 300_000);
        assert_eq!(body.size_hint().exact(), Some(300_000));
        let mut sizes = Vec::new();
        while let Some(Ok(f)) = body.frame().await {
            sizes.push(f.into_data().map(|d| d.len()).unwrap_or(0));
            if sizes.len() < 5 {
                assert_eq!(budget.held(), 300_000, "given back before the last chunk");
            }
        }
        assert_eq!(sizes, [CHUNK, CHUNK, CHUNK, CHUNK, 300_000 - 4 * CHUNK]);
        assert_eq!(budget.held(), 0);
        // a small body is neither counted nor cut
        let small = account(response(1000), &Method::GET, &budget, owner(), refused);
        assert_eq!(budget.held(), 0);
        let got = small.into_body().collect().await.map(|c| c.to_bytes().len()).ok();
        assert_eq!(got, Some(1000));
    }

    #[tokio::test]
    async fn a_get_over_the_budget_is_503_and_a_write_is_sent_anyway() {
        let budget = Budget::new(1024 * 1024);
        let held = account(response(600_000), &Method::GET, &budget, owner(), refused);
        // the address holds 600 KB (past its share of 128 KB, as one response may)
        let r = account(response(100_000), &Method::GET, &budget, owner(), refused);
        assert_eq!(r.status(), warp::http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[warp::http::header::CONNECTION], "close");
        let r = account(response(100_000), &Method::POST, &budget, owner(), refused);
        assert_eq!(r.status(), warp::http::StatusCode::OK);
        let got = r.into_body().collect().await.map(|c| c.to_bytes().len()).ok();
        assert_eq!(got, Some(100_000));
        // dropped unsent (the client went away): given back
        drop(held);
        assert_eq!(budget.held(), 0);
    }
}
