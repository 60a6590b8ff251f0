//! The database engine, apart from the tables: opening and checking a file, the read
//! pool, the writer's health, the schema and its migrations, the seed data, integrity
//! and invariant checks, bulk-load index repair, a read replica's copy. `db` re-exports
//! what the rest of the crate names (`db::migrate`, `db::check`...).

pub mod check;
pub mod checkpoint;
pub(super) mod checkpointer;
pub(super) mod copy_check;
pub(super) mod error;
pub(super) mod faults;
pub(super) mod file_lock;
pub mod indexes;
pub(super) mod integrity;
pub mod location;
pub mod migrate;
pub mod position;
pub(super) mod readers;
mod rebuild;
pub(super) mod replica_copy;
pub mod seed;
mod unique_names;
mod writable;
pub mod writer;
