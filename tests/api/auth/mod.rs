//! Bearer authentication over real HTTP: the JWT rules of SPEC §4, opaque tokens,
//! scopes, `verify_token`, and the table of protected routes.

mod jwt;
mod routes;
mod tokens;
