//! Liveness and readiness probes.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::ApiError;
use super::state::AppState;

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

/// How long readiness waits for the database before it reports it down.
pub const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// Readiness: the database answers within a second and every migration is applied.
#[utoipa::path(tag = "health", responses(
    (status = 200, description = "Ready", body = Health),
    (status = 503, description = "Database unreachable or migrations missing", body = Health),
))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let ready = tokio::time::timeout(READY_TIMEOUT, state.app.store.ready())
        .await
        .unwrap_or_else(|_| Err(sqlx::Error::PoolTimedOut));
    match ready {
        Ok(()) => Ok(HttpResponse::Ok().json(Health { status: "ok" })),
        Err(error) => {
            tracing::warn!(%error, "not ready");
            Ok(HttpResponse::ServiceUnavailable().json(Health {
                status: "unavailable",
            }))
        }
    }
}
