//! Request extractors: the authenticated player, and error handlers that turn
//! actix's body, path and query errors into problems.

use std::future::Future;
use std::pin::Pin;

use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use sqlx::Any;
use sqlx::pool::PoolConnection;
use uuid::Uuid;

use super::AppState;
use super::error::ApiError;
use crate::auth::{Identity, TokenError};
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
        let authenticated = authenticate(req);
        // The connection goes back to the pool here, before the handler runs.
        Box::pin(async move { Ok(authenticated.await?.0) })
    }
}

/// The authenticated player together with the pooled connection its token
/// was checked on, for a handler whose first database work is a plain read
/// ([`super::games::get_game`]): it reads on that connection instead of
/// acquiring a second one, which saves the pool's release and acquire round
/// trips. A handler that waits or writes takes [`AuthPlayer`] instead, so
/// no connection is held while it waits for anything else.
pub struct AuthPlayerConnection {
    /// The player.
    pub player: AuthPlayer,
    /// The connection the token was checked on.
    pub conn: PoolConnection<Any>,
}

impl FromRequest for AuthPlayerConnection {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let authenticated = authenticate(req);
        Box::pin(async move {
            let (player, conn) = authenticated.await?;
            Ok(AuthPlayerConnection { player, conn })
        })
    }
}

/// Checks the request's bearer token, on a connection it returns.
fn authenticate(
    req: &HttpRequest,
) -> impl Future<Output = Result<(AuthPlayer, PoolConnection<Any>), ApiError>> + 'static {
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let token = bearer_token(req);
    async move {
        let state = state.ok_or_else(|| ApiError::Internal("application state missing".into()))?;
        match state.tokens.verify(&token?)? {
            Identity::Player { id, generation } => {
                // One primary-key read per request makes sign-out
                // immediate on every instance (docs/api.md, tokens).
                // A player that does not exist (never did, or was
                // removed as an idle guest) is refused like a bad token.
                let (mut conn, found) = state
                    .store
                    .acquire_with(async |conn| cleanup::player_for_token(conn, id).await)
                    .await?;
                match found {
                    Some((current, seen)) if current == generation => {
                        let now = state.clock.now_micros();
                        if seen < now - TOUCH_EVERY_MICROS {
                            // Activity keeps a guest (docs/operations.md);
                            // a failed mark costs the caller nothing.
                            if let Err(error) = cleanup::touch(&mut conn, id, now).await {
                                tracing::warn!(%error, "could not mark the player active");
                            }
                        }
                        Ok((AuthPlayer { id }, conn))
                    }
                    Some(_) => Err(TokenError::SignedOut.into()),
                    None => Err(TokenError::Invalid.into()),
                }
            }
            Identity::External { subject, name } => {
                let mut conn = state.store.acquire().await?;
                let player = players::for_external_subject(&mut conn, &subject, &name).await?;
                Ok((AuthPlayer { id: player.id }, conn))
            }
        }
    }
}

fn bearer_token(req: &HttpRequest) -> Result<String, ApiError> {
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(TokenError::Missing)?;
    let value = value.to_str().map_err(|_| TokenError::Invalid)?;
    let (scheme, token) = value.split_once(' ').ok_or(TokenError::Invalid)?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(TokenError::Invalid.into());
    }
    Ok(token.trim().to_owned())
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
