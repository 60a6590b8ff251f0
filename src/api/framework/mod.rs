//! What the areas' handlers are written with: the caller resolved by auth class in the
//! handler's own database call (`call`, `auth`), paginated lists (`listing`), toggles
//! (`toggle`), people's JSON (`people`), bodies with an image (`upload`) and the OpenAPI
//! document (`openapi`). `api` re-exports them (`api::call`...).

pub mod auth;
pub mod call;
pub(in crate::api) mod listing;
pub(in crate::api) mod members;
pub mod openapi;
pub(in crate::api) mod people;
pub(in crate::api) mod toggle;
pub(in crate::api) mod upload;
