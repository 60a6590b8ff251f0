//! hearth: a self-hosted community-platform API server, one binary and one SQLite file.
//!
//! Data flows one way: `http` filters → `api`/`oauth` handlers → `db` functions →
//! SQLite, and back as `model` types serialised at the edge. `token` and `model`
//! depend on nothing above them.

pub mod api;
pub mod cli;
pub mod clock;
pub mod config;
pub mod db;
pub mod error;
pub mod http;
pub mod images;
pub mod limits;
pub mod model;
pub mod oauth;
pub mod replica;
pub mod reply;
pub mod role;
pub mod server;
pub mod state;
pub mod token;
