//! Share links over HTTP: the signed-in API that makes, lists, previews and revokes them
//! ([`api`]), the public routes under `/s/<token>` ([`public`]) and their rate limit
//! ([`limit`]). What a link shows is built in `pages::share_view` from the redacted
//! view of [`crate::share`].

pub mod api;
pub mod limit;
pub mod public;
