//! `serve --metrics-listen ADDR`: `GET /metrics` in the Prometheus text format on a
//! listener of its own (SPEC §7 "Metrics"), never the public one.
//!
//! The recorder is metrics-exporter-prometheus's, built without its HTTP listener,
//! push gateway or threads: this module serves the page and runs the recorder's upkeep
//! (draining histogram samples) on the runtime it already has. What is a state rather
//! than an event (database and WAL sizes, body memory, process metrics, dropped log
//! lines) is read when a scrape comes.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use metrics::{counter, gauge};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use warp::http::{Method, Request, Response, StatusCode, header};

use crate::state::AppState;
use crate::telemetry;

/// Connections the metrics listener serves at once (scrapers are few; more wait).
const CONNECTIONS: usize = 8;
/// A scrape's request must arrive within this (and an idle keep-alive closes then).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How often histogram samples are folded into their buckets between scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);
/// The text format's content type.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The installed recorder and what a scrape reads besides it.
#[derive(Clone)]
pub struct Exporter {
    handle: PrometheusHandle,
    process: Arc<metrics_process::Collector>,
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter").finish_non_exhaustive()
    }
}

impl Exporter {
    /// Builds the Prometheus recorder with hearth's histogram buckets and installs it as
    /// the process's recorder (once per process).
    pub fn install() -> Result<Exporter, String> {
        let full = |name: &str| Matcher::Full(name.to_owned());
        let handle = PrometheusBuilder::new()
            .set_buckets_for_metric(full(telemetry::HTTP_DURATION), &telemetry::DURATION_BUCKETS)
            .and_then(|b| {
                b.set_buckets_for_metric(full(telemetry::DB_READ_WAIT), &telemetry::WAIT_BUCKETS)
            })
            .and_then(|b| {
                b.set_buckets_for_metric(full(telemetry::DB_WRITE_WAIT), &telemetry::WAIT_BUCKETS)
            })
            .and_then(PrometheusBuilder::install_recorder)
            .map_err(|e| format!("cannot start the metrics recorder: {e}"))?;
        telemetry::describe();
        let process = metrics_process::Collector::default();
        process.describe();
        Ok(Exporter { handle, process: Arc::new(process) })
    }

    /// The page: the gauges read now, then every series.
    pub fn render(&self, state: &AppState) -> String {
        let path = state.db.path();
        gauge!(telemetry::DB_SIZE).set(file_size(path));
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        gauge!(telemetry::DB_WAL).set(file_size(std::path::Path::new(&wal)));
        let budget = &state.body_budget;
        gauge!(telemetry::BODY_MEMORY).set(as_f64(budget.held()));
        gauge!(telemetry::BODY_MEMORY_LIMIT).set(as_f64(budget.total()));
        counter!(telemetry::LOG_DROPPED).absolute(crate::logs::dropped_lines());
        // listed at 0 before the first release
        counter!(telemetry::MEMORY_RELEASES).increment(0);
        self.process.collect();
        telemetry::tally::flush();
        self.handle.render()
    }
}

#[expect(clippy::cast_precision_loss, reason = "byte counts far below 2^53 are exact")]
fn as_f64(n: usize) -> f64 {
    n as f64
}

/// A file's size (0 when it does not exist, as the WAL after a checkpoint on close).
fn file_size(path: &std::path::Path) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "file sizes far below 2^53 are exact")]
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64)
}

/// Serves `/metrics` on `listener` until the task is aborted, and keeps the recorder's
/// upkeep running.
pub async fn serve(listener: TcpListener, exporter: Exporter, state: AppState) {
    let slots = Arc::new(Semaphore::new(CONNECTIONS));
    let mut upkeep = tokio::time::interval(UPKEEP_EVERY);
    loop {
        let (stream, _) = tokio::select! {
            _ = upkeep.tick() => {
                let handle = exporter.handle.clone();
                let _ = tokio::task::spawn_blocking(move || handle.run_upkeep()).await;
                continue;
            }
            r = super::accept(&listener, "metrics listener: accept failed") => match r {
                Some(c) => c,
                None => continue,
            },
        };
        let Ok(permit) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let (exporter, state) = (exporter.clone(), state.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let (exporter, state) = (exporter.clone(), state.clone());
                async move { Ok::<_, Infallible>(answer(&req, exporter, state).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "metrics connection ended with an error");
            }
            drop(permit);
        });
    }
}

async fn answer(
    req: &Request<Incoming>,
    exporter: Exporter,
    state: AppState,
) -> Response<Full<Bytes>> {
    let plain = |status: StatusCode, body: &'static str| {
        let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
        *r.status_mut() = status;
        r
    };
    if req.uri().path() != "/metrics" {
        return plain(StatusCode::NOT_FOUND, "not found: the metrics are at /metrics\n");
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        r.headers_mut().insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    // /proc and the database files are read: off the async workers
    let page = tokio::task::spawn_blocking(move || exporter.render(&state)).await;
    match page {
        Ok(text) => {
            let mut r = Response::new(Full::new(Bytes::from(text)));
            r.headers_mut()
                .insert(header::CONTENT_TYPE, header::HeaderValue::from_static(CONTENT_TYPE));
            r
        }
        Err(e) => {
            tracing::error!(error = %e, "rendering the metrics failed");
            plain(StatusCode::INTERNAL_SERVER_ERROR, "rendering the metrics failed\n")
        }
    }
}
