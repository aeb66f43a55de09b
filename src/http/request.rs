//! The request headers a change reads, documented once ([`IdempotencyKey`],
//! [`IfMatch`]), and the change a request asks for, as the use cases take
//! it.

use actix_web::HttpRequest;
use actix_web::http::header;
use serde::Serialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::app::change::{Caller, Change};
use crate::app::error::Error;
use crate::app::idempotency::Keyed;

/// The `Idempotency-Key` header, as the document states it.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyKey {
    /// Makes a retry return the first answer: 1 to 255 visible ASCII characters
    #[param(
        rename = "Idempotency-Key",
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]+$"
    )]
    pub key: Option<String>,
}

/// The `If-Match` header, as the document states it.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatch {
    /// The game's ETag; 412 if it changed
    #[param(rename = "If-Match", required = false)]
    pub etag: String,
}

/// The request's `Idempotency-Key`, checked and tied to the request
/// (method, path as routed, `body`); `None` without one.
///
/// # Errors
/// [`Error::Invalid`] for a key that is no key.
pub fn keyed(req: &HttpRequest, body: &impl Serialize) -> Result<Option<Keyed>, Error> {
    let Some(value) = req.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    Keyed::new(
        value.to_str().ok(),
        req.method().as_str(),
        req.match_info().as_str(),
        body,
    )
    .map(Some)
}

/// The request's `If-Match` as text (empty when it is not text).
pub fn if_match(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get(header::IF_MATCH)
        .map(|value| value.to_str().unwrap_or_default())
}

/// The change to game `id` that `req`, with `body`, asks for on behalf of
/// `caller`.
pub fn change<'a>(
    req: &'a HttpRequest,
    caller: impl Into<Caller<'a>>,
    id: Uuid,
    body: &impl Serialize,
    expected_version: Option<i64>,
) -> Change<'a> {
    Change {
        caller: caller.into(),
        game: id,
        keyed: keyed(req, body),
        if_match: if_match(req),
        expected_version,
    }
}
