//! In-memory limits that every request shares and [`crate::state::AppState`] holds:
//! the memory budget of request bodies and the brute-force limit on password checks.
//! Below `state`, so that the HTTP layer and the handlers both reach them through it.

pub mod budget;
pub mod login;
