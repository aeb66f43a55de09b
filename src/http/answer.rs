//! A use case's answer as an HTTP response.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;

use super::error::ApiError;
use crate::app::answer::Answer;

/// `answer` as a JSON response; a replayed one says so in
/// `Idempotent-Replayed`.
///
/// # Errors
/// [`ApiError::internal`] for a kept status that is not one.
pub fn respond(answer: Answer) -> Result<HttpResponse, ApiError> {
    let status = StatusCode::from_u16(answer.status).map_err(ApiError::internal)?;
    let mut response = HttpResponse::build(status);
    for header in answer.headers {
        response.insert_header(header);
    }
    response.content_type("application/json");
    if answer.replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(response.body(answer.body))
}
