//! The one integration-test crate (STYLE rule 12): every test drives a real hearth
//! server on 127.0.0.1:0 with a temp-file database and a manual clock.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, reason = "tests fail loudly")]
#![expect(
    clippy::disallowed_methods,
    reason = "these tests wait for real servers and processes in real time; the code under test reads time only through src/clock.rs"
)]

mod common;
mod conformance;

mod auth;
mod community;
mod consistency;
mod contributions;
mod cors;
mod courses;
mod events;
mod feeds;
mod groups;
mod hardening;
mod kit;
mod lists;
mod messages;
mod notifications;
mod oauth;
mod openapi;
mod read_path;
mod server;
mod smtp_sink;
