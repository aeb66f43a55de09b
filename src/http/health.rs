//! Liveness and readiness probes.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::error::ApiError;

/// A probe's answer.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` when the probe passed.
    #[schema(example = "ok")]
    pub status: &'static str,
}

/// Liveness: the process is up and answering.
#[utoipa::path(tag = "health", responses((status = 200, description = "Alive", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok" })
}

/// Readiness: the database answers and every migration is applied.
#[utoipa::path(tag = "health", responses(
    (status = 200, description = "Ready", body = Health),
    (status = 503, description = "Database unreachable or migrations missing", body = Health),
))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    match state.store.ready().await {
        Ok(()) => Ok(HttpResponse::Ok().json(Health { status: "ok" })),
        Err(error) => {
            tracing::warn!(%error, "not ready");
            Ok(HttpResponse::ServiceUnavailable().json(Health {
                status: "unavailable",
            }))
        }
    }
}
