//! Request extractors: the authenticated player, and error handlers that turn
//! actix's body, path and query errors into problems.

use std::future::Future;
use std::pin::Pin;

use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use sqlx::AnyConnection;
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use crate::auth::{Identity, TokenError};
use crate::store::games::CallerToken;
use crate::store::{cleanup, players};

/// How stale a player's activity mark may get before an authenticated
/// request writes it again: one hour, so a busy player costs one write an
/// hour, not one per request.
pub const TOUCH_EVERY_MICROS: i64 = 3600 * 1_000_000;

/// The largest request body accepted, in bytes.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The player a valid bearer token speaks for. A handler that takes this
/// argument answers 401 (with `WWW-Authenticate: Bearer`) to any other caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthPlayer {
    /// The player's id.
    pub id: Uuid,
}

impl FromRequest for AuthPlayer {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(authenticate(req))
    }
}

/// A bearer token whose signature and expiry are checked, but whose player
/// is not read yet. The two commonest requests (reading a game, making a
/// move) read the token's player in the game's own statement
/// ([`crate::store::games::load_for`]) and then [`accept`](Self::accept)
/// what they read: one statement less. Its extraction refuses a missing,
/// malformed, forged or expired token with 401 before the body is read.
pub struct SignedToken(Identity);

impl FromRequest for SignedToken {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(verify(req).map(|(_, identity)| SignedToken(identity)))
    }
}

impl SignedToken {
    /// The player the token names, to read beside a game; `None` for an
    /// external identity, which [`check`](Self::check) maps to a player.
    pub fn player(&self) -> Option<Uuid> {
        match self.0 {
            Identity::Player { id, .. } => Some(id),
            Identity::External { .. } => None,
        }
    }

    /// The caller, given what was read about the token's player (`found`:
    /// its token generation and last activity, `None` when there is no
    /// such player); marks the player active when that is due.
    ///
    /// # Errors
    /// 401 for a player that does not exist (never did, or was removed as
    /// an idle guest) or signed out since the token was issued; a token of
    /// an external identity is never accepted this way.
    pub async fn accept(
        &self,
        state: &AppState,
        conn: &mut AnyConnection,
        found: CallerToken,
    ) -> Result<AuthPlayer, ApiError> {
        let Identity::Player { id, generation } = self.0 else {
            return Err(ApiError::Internal(
                "an external identity is checked, not accepted".into(),
            ));
        };
        match found {
            Some((current, seen)) if current == generation => {
                let now = state.clock.now_micros();
                if seen < now - TOUCH_EVERY_MICROS {
                    // Activity keeps a guest (docs/operations.md); a failed
                    // mark costs the caller nothing.
                    if let Err(error) = cleanup::touch(conn, id, now).await {
                        tracing::warn!(%error, "could not mark the player active");
                    }
                }
                Ok(AuthPlayer { id })
            }
            Some(_) => Err(TokenError::SignedOut.into()),
            None => Err(TokenError::Invalid.into()),
        }
    }

    /// The caller, read on `conn` with a statement of its own: the token's
    /// player for a token of ours, the player of an external identity's
    /// subject (made on its first visit) otherwise.
    ///
    /// # Errors
    /// As [`accept`](Self::accept), or the database's error.
    pub async fn check(
        &self,
        state: &AppState,
        conn: &mut AnyConnection,
    ) -> Result<AuthPlayer, ApiError> {
        match &self.0 {
            Identity::Player { id, .. } => {
                let found = cleanup::player_for_token(conn, *id).await?;
                self.accept(state, conn, found).await
            }
            Identity::External { subject, name } => {
                let player = players::for_external_subject(conn, subject, name).await?;
                Ok(AuthPlayer { id: player.id })
            }
        }
    }
}

/// The application state and the verified identity of the request's token.
fn verify(req: &HttpRequest) -> Result<(web::Data<AppState>, Identity), ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ApiError::Internal("application state missing".into()))?;
    let identity = state.tokens.verify(bearer_token(req)?)?;
    Ok((state, identity))
}

/// Checks the request's bearer token. The connection it was checked on is
/// given back before the handler runs.
fn authenticate(req: &HttpRequest) -> impl Future<Output = Result<AuthPlayer, ApiError>> + 'static {
    let verified = verify(req);
    async move {
        let (state, identity) = verified?;
        let token = SignedToken(identity);
        match token.player() {
            // One primary-key read per request makes sign-out immediate on
            // every instance (docs/api.md, tokens).
            Some(id) => {
                let (mut conn, found) = state
                    .store
                    .acquire_with(async |conn| cleanup::player_for_token(conn, id).await)
                    .await?;
                token.accept(&state, &mut conn, found).await
            }
            None => {
                let mut conn = state.store.acquire().await?;
                token.check(&state, &mut conn).await
            }
        }
    }
}

fn bearer_token(req: &HttpRequest) -> Result<&str, ApiError> {
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(TokenError::Missing)?;
    let value = header_text(value).ok_or(TokenError::Invalid)?;
    let (scheme, token) = value.split_once(' ').ok_or(TokenError::Invalid)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(TokenError::Invalid.into());
    }
    // Borrowed from the request: a token is looked up, not kept.
    Ok(token)
}

/// A header's value as text when `HeaderValue::to_str` would give it: a
/// value holds no control character (the HTTP parser and `HeaderValue`
/// refuse them), so the values `to_str` accepts are the ASCII ones. This
/// checks them a word at a time where `to_str` checks each byte: 1,000
/// instructions for a token, on every request that carries one.
fn header_text(value: &header::HeaderValue) -> Option<&str> {
    let bytes = value.as_bytes();
    if bytes.is_ascii() {
        std::str::from_utf8(bytes).ok()
    } else {
        None
    }
}

/// A JSON body that may be left out. No body at all (or `null`) is `None`; a body that
/// is there is read as [`web::Json`] reads it, so malformed JSON, unknown
/// fields and values out of range (`{"seat": -1}`) are refused, never
/// mistaken for an absent body.
#[derive(Debug)]
pub struct OptionalJson<T>(pub Option<T>);

impl<T: serde::de::DeserializeOwned + 'static> FromRequest for OptionalJson<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let headers = req.headers();
        let chunked = headers.contains_key(header::TRANSFER_ENCODING);
        let length = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if !chunked && length == 0 {
            return Box::pin(async { Ok(OptionalJson(None)) });
        }
        // A JSON `null` is no body too, as the document's nullable schema says.
        let json = web::Json::<Option<T>>::from_request(req, payload);
        Box::pin(async move { Ok(OptionalJson(json.await?.into_inner())) })
    }
}

/// JSON bodies: a size limit, and problems instead of actix's plain-text errors.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(BODY_LIMIT)
        .error_handler(|error, _| json_error(error).into())
}

fn json_error(error: JsonPayloadError) -> ApiError {
    match error {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            ApiError::PayloadTooLarge(BODY_LIMIT)
        }
        JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
        JsonPayloadError::Payload(actix_web::error::PayloadError::Io(error))
            if error.kind() == std::io::ErrorKind::TimedOut =>
        {
            ApiError::RequestTimeout(error.to_string())
        }
        JsonPayloadError::Deserialize(error) if error.is_data() => {
            ApiError::validation(error.to_string())
        }
        JsonPayloadError::Deserialize(error) => ApiError::BadRequest {
            code: "malformed_json",
            detail: format!("the body is not valid JSON: {error}"),
        },
        other => ApiError::BadRequest {
            code: "malformed_json",
            detail: format!("the body could not be read: {other}"),
        },
    }
}

/// Path parameters: an id that is not a UUID names nothing here (404).
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|_: PathError, req| {
        // The parser's own message ("Path deserialize error: …") is ours,
        // not the caller's: name the segment that is no id instead.
        let raw = req
            .match_info()
            .iter()
            .map(|(_, value)| value)
            .find(|value| uuid::Uuid::parse_str(value).is_err())
            .unwrap_or_default();
        let what = if req.path().contains("/games/") {
            "game"
        } else {
            "resource"
        };
        ApiError::NotFound(format!("no {what} {raw:?}: not a valid id")).into()
    })
}

/// Query strings: an unknown or out-of-range parameter is a 422.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|error: QueryPayloadError, _| {
        ApiError::validation(format!("query string: {error}")).into()
    })
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    /// Every byte a header value can hold, alone and inside a token:
    /// `header_text` accepts a value exactly when `to_str` does, and gives
    /// the same text.
    #[test]
    fn a_header_is_read_as_text_exactly_when_to_str_reads_it() {
        let mut compared = 0;
        for byte in 0..=u8::MAX {
            for bytes in [
                vec![byte],
                [b"Bearer ab".as_slice(), &[byte], b"cd"].concat(),
            ] {
                // Values the HTTP parser would refuse cannot be made either.
                let Ok(value) = HeaderValue::from_bytes(&bytes) else {
                    continue;
                };
                assert_eq!(header_text(&value), value.to_str().ok(), "{bytes:?}");
                compared += 1;
            }
        }
        assert!(compared > 400, "most bytes make a value: {compared}");
        // Characters of several bytes: UTF-8, but not what `to_str` reads.
        for text in ["Bearer \u{e9}", "Bearer ab\u{3000}", "Bearer \u{1f0a1}"] {
            let value = HeaderValue::from_str(text).unwrap();
            assert_eq!(header_text(&value), None, "{text:?}");
            assert!(value.to_str().is_err(), "{text:?}");
        }
    }
}
