//! hearth: a self-hosted community-platform API server, one binary and one SQLite file.
//!
//! Data flows one way: `http` filters → `api`/`oauth` handlers → `db` functions →
//! SQLite, and back as `model` types serialised at the edge. `token` and `model`
//! depend on nothing above them.

/// `Type { a, b, …; c: value, … }` read from a SQLite row: the fields before `;` are
/// the row's first columns, in that order (rusqlite's tuple conversion, so each field
/// is named once and no column index is kept by hand); the ones after it are
/// computed. Declared here, above every module, so that `db` (the only user: SQL and
/// rows stay there) can read its records with it; it expands to a block that uses
/// `?`, inside a function returning `rusqlite::Result`.
macro_rules! from_columns {
    ($row:expr => $ty:ident { $($field:ident),+ $(,)? $(; $($extra:ident: $value:expr),+ $(,)?)? }) => {{
        let ($($field,)+) = $row.try_into()?;
        $ty { $($field,)+ $($($extra: $value,)+)? }
    }};
}

pub mod api;
pub mod cli;
pub mod clock;
pub mod config;
pub mod db;
pub mod error;
pub mod http;
pub mod hub;
pub mod images;
pub mod jobs;
pub mod limits;
pub mod litestream;
pub mod logs;
pub mod mail;
pub mod model;
pub mod oauth;
pub mod replica;
pub mod reply;
pub mod role;
pub mod server;
pub mod state;
pub mod telemetry;
pub mod token;
