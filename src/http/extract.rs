//! Request extractors: the authenticated player, and error handlers that turn
//! actix's body, path and query errors into problems.

use std::future::Future;
use std::pin::Pin;

use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use uuid::Uuid;

use super::error::ApiError;
use super::state::AppState;
use crate::app::sign_in;
use crate::auth::{Identity, TokenError};

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
/// move) read the token's player in the game's own statement and then
/// accept what they read ([`sign_in::accept`]): one statement less. Its extraction refuses a missing,
/// malformed, forged or expired token with 401 before the body is read.
pub struct SignedToken {
    identity: Identity,
    expires_at: i64,
}

impl FromRequest for SignedToken {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(verify(req).map(|(_, identity, expires_at)| SignedToken {
            identity,
            expires_at,
        }))
    }
}

impl SignedToken {
    /// The verified identity, whose player is still to check.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// When the token expires (its `exp`, Unix seconds).
    pub fn expires_at(&self) -> i64 {
        self.expires_at
    }
}

/// The application state, and the verified identity of the request's
/// token with its `exp`.
fn verify(req: &HttpRequest) -> Result<(web::Data<AppState>, Identity, i64), ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ApiError::internal("application state missing"))?;
    let (identity, expires_at) = state.app.tokens.verify_until(bearer_token(req)?)?;
    Ok((state, identity, expires_at))
}

/// Checks the request's bearer token. The connection it was checked on is
/// given back before the handler runs.
fn authenticate(req: &HttpRequest) -> impl Future<Output = Result<AuthPlayer, ApiError>> + 'static {
    let verified = verify(req);
    async move {
        let (state, identity, _) = verified?;
        let id = sign_in::authenticate(&state.app, &identity).await?;
        Ok(AuthPlayer { id })
    }
}

fn bearer_token(req: &HttpRequest) -> Result<&str, ApiError> {
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(TokenError::Missing)?;
    let value = value.to_str().map_err(|_| TokenError::Invalid)?;
    let (scheme, token) = value.split_once(' ').ok_or(TokenError::Invalid)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(TokenError::Invalid.into());
    }
    // Borrowed from the request: a token is looked up, not kept.
    Ok(token)
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
        ApiError::not_found(format!("no {what} {raw:?}: not a valid id")).into()
    })
}

/// Query strings: an unknown or out-of-range parameter is a 422.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|error: QueryPayloadError, _| {
        ApiError::validation(format!("query string: {error}")).into()
    })
}
