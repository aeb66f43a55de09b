//! The one error type of the HTTP layer, rendered as RFC 9457
//! `application/problem+json` with a stable machine `code`.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::app::error::Error;
use crate::auth::TokenError;

/// The `Retry-After` of a 503 `database_unavailable`, in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 1;

/// An RFC 9457 problem, as every error answer carries it.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:kaarttafel:problem:must_follow_suit",
    "title": "Move refused",
    "status": 422,
    "detail": "you hold hearts, so you must follow suit",
    "code": "must_follow_suit",
    "legal_moves": [{"type": "play", "card": "10H"}]
}))]
pub struct Problem {
    /// A URI naming the problem type: `urn:kaarttafel:problem:<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    /// A short summary of the problem type.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// What went wrong with this request.
    pub detail: String,
    /// A stable, machine-readable code (listed in docs/api.md, "Errors").
    pub code: String,
    /// For a refused move: the moves the caller may make now.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Vec<crate::api::moves::MoveSchema>)]
    pub legal_moves: Option<serde_json::Value>,
}

/// Everything a request can fail with: a use case's refusal, which keeps
/// its kind and code, or one that only the HTTP layer finds.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A use case's refusal; its kind sets the status (`status_code`).
    #[error(transparent)]
    App(#[from] Error),
    /// A body or parameter that is not well-formed (400).
    #[error("{detail}")]
    BadRequest {
        /// The stable code.
        code: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The path is ours but not with this method (405); lists the methods
    /// it answers, for `Allow`.
    #[error("this path answers {0} only")]
    MethodNotAllowed(String),
    /// The player holds as many live streams on this instance as it may
    /// (429).
    #[error("at most {0} live streams per player on one instance: close one first")]
    TooManyStreams(u32),
    /// Too many requests of one kind from one client (429).
    #[error("too many requests ({policy}: {quota} per {window} s); retry after {retry_after} s")]
    RateLimited {
        /// The limit's name (`signups`, `auth_failures`, `not_found`, `reads`, `writes`).
        policy: &'static str,
        /// Requests allowed per window.
        quota: u32,
        /// The window, in seconds.
        window: u64,
        /// Seconds until the next request is allowed.
        retry_after: u64,
    },
    /// The body did not arrive in time (408); the connection is closed.
    #[error("{0}")]
    RequestTimeout(String),
    /// A body that is not sent as `application/json` (415).
    #[error("send the body as `Content-Type: application/json`")]
    UnsupportedMediaType,
    /// The body is larger than the limit (413).
    #[error("the request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
}

impl From<TokenError> for ApiError {
    fn from(error: TokenError) -> Self {
        ApiError::App(Error::Token(error))
    }
}

/// The `RateLimit-Policy` and `RateLimit` values of a refusal
/// (draft-ietf-httpapi-ratelimit-headers).
pub fn rate_limit_headers(
    policy: &str,
    quota: u32,
    window: u64,
    retry_after: u64,
) -> (String, String) {
    (
        format!("\"{policy}\";q={quota};w={window}"),
        format!("\"{policy}\";r=0;t={retry_after}"),
    )
}

impl ApiError {
    /// A 422 `validation_failed` with `detail`.
    pub fn validation(detail: impl Into<String>) -> ApiError {
        ApiError::App(Error::invalid(detail))
    }

    /// A 404 `not_found` with `detail`.
    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::App(Error::NotFound(detail.into()))
    }

    /// A 500 `internal_error`; `cause` goes to the log only.
    pub fn internal(cause: impl ToString) -> ApiError {
        ApiError::App(Error::Internal(cause.to_string()))
    }

    /// The stable machine code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::App(error) => match error {
                Error::Invalid(_) => "validation_failed",
                Error::Token(_) => "invalid_token",
                Error::Forbidden { code, .. }
                | Error::Conflict { code, .. }
                | Error::MoveRefused { code, .. } => code,
                Error::NotFound(_) => "not_found",
                Error::PreconditionFailed(_) => "version_conflict",
                Error::IdempotencyMismatch => "idempotency_mismatch",
                Error::DatabaseUnavailable(_) => "database_unavailable",
                Error::Internal(_) => "internal_error",
            },
            ApiError::BadRequest { code, .. } => code,
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::RequestTimeout(_) => "request_timeout",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::TooManyStreams(_) => "too_many_streams",
            ApiError::PayloadTooLarge(_) => "payload_too_large",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
        }
    }

    fn title(&self) -> &'static str {
        match self {
            ApiError::App(error) => match error {
                Error::Invalid(_) => "Invalid request",
                Error::Token(_) => "Not authenticated",
                Error::Forbidden { .. } => "Not allowed",
                Error::NotFound(_) => "Not found",
                Error::Conflict { .. } => "Conflict with the game's state",
                Error::PreconditionFailed(_) => "Precondition failed",
                Error::IdempotencyMismatch => "Idempotency key reused",
                Error::MoveRefused { .. } => "Move refused",
                Error::DatabaseUnavailable(_) => "Database unavailable",
                Error::Internal(_) => "Internal error",
            },
            ApiError::BadRequest { .. } => "Malformed request",
            ApiError::MethodNotAllowed(_) => "Method not allowed",
            ApiError::RequestTimeout(_) => "Request body too slow",
            ApiError::RateLimited { .. } => "Too many requests",
            ApiError::TooManyStreams(_) => "Too many live streams",
            ApiError::PayloadTooLarge(_) => "Request body too large",
            ApiError::UnsupportedMediaType => "Unsupported media type",
        }
    }

    /// The problem body sent to the caller.
    pub fn problem(&self) -> Problem {
        let detail = match self {
            // The cause goes to the log (see `error_response`), never to the caller.
            ApiError::App(Error::Internal(_)) => {
                "something went wrong on our side; nothing was changed".to_owned()
            }
            ApiError::App(Error::DatabaseUnavailable(_)) => {
                "the database is unavailable; retry after the time in Retry-After".to_owned()
            }
            other => other.to_string(),
        };
        Problem {
            type_uri: format!("urn:kaarttafel:problem:{}", self.code()),
            title: self.title().to_owned(),
            status: self.status_code().as_u16(),
            detail,
            code: self.code().to_owned(),
            legal_moves: match self {
                ApiError::App(Error::MoveRefused { legal_moves, .. }) => Some(legal_moves.clone()),
                _ => None,
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            // The one place a use case's kind of refusal gets its status.
            ApiError::App(error) => match error {
                Error::Invalid(_) | Error::IdempotencyMismatch | Error::MoveRefused { .. } => {
                    StatusCode::UNPROCESSABLE_ENTITY
                }
                Error::Token(_) => StatusCode::UNAUTHORIZED,
                Error::Forbidden { .. } => StatusCode::FORBIDDEN,
                Error::NotFound(_) => StatusCode::NOT_FOUND,
                Error::Conflict { .. } => StatusCode::CONFLICT,
                Error::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
                Error::DatabaseUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
                Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::RequestTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::RateLimited { .. } | ApiError::TooManyStreams(_) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        match self {
            ApiError::App(Error::Internal(cause)) => tracing::error!(%cause, "request failed"),
            ApiError::App(Error::DatabaseUnavailable(cause)) => {
                tracing::warn!(%cause, "database unavailable");
                response.insert_header((header::RETRY_AFTER, RETRY_AFTER_SECONDS.to_string()));
            }
            ApiError::App(Error::Token(error)) => {
                let challenge = match error {
                    TokenError::Missing => "Bearer".to_owned(),
                    other => {
                        format!("Bearer error=\"invalid_token\", error_description=\"{other}\"")
                    }
                };
                if let Ok(value) = HeaderValue::from_str(&challenge) {
                    response.insert_header((header::WWW_AUTHENTICATE, value));
                }
            }
            ApiError::RateLimited {
                policy,
                quota,
                window,
                retry_after,
            } => {
                let (policy, state) = rate_limit_headers(policy, *quota, *window, *retry_after);
                response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
                response.insert_header(("RateLimit-Policy", policy));
                response.insert_header(("RateLimit", state));
            }
            ApiError::RequestTimeout(_) => {
                response.insert_header((header::CONNECTION, HeaderValue::from_static("close")));
            }
            ApiError::MethodNotAllowed(allow) => {
                if let Ok(value) = HeaderValue::from_str(allow) {
                    response.insert_header((header::ALLOW, value));
                }
            }
            _ => {}
        }
        response.body(serde_json::to_string(&self.problem()).unwrap_or_default())
    }
}
