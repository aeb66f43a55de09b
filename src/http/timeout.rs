//! A request body must arrive within a set time after its headers, so a
//! client that sends half a body cannot hold a connection forever. Past the
//! deadline the body reads as a timed-out I/O error, which the JSON
//! extractor turns into a 408 `request_timeout`; the connection is then
//! closed, as the rest of the body was never read.

use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use futures_util::StreamExt;

/// How long a request body may take to arrive (`REQUEST_BODY_TIMEOUT`).
#[derive(Clone, Copy, Debug)]
pub struct BodyTimeout(pub Duration);

/// Middleware: gives the request's body a deadline.
pub async fn body_deadline(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if let Some(timeout) = req.app_data::<web::Data<BodyTimeout>>().map(|t| t.0) {
        let deadline = tokio::time::Instant::now() + timeout;
        let payload = req.take_payload();
        let limited = futures_util::stream::unfold(Some(payload), move |payload| async move {
            let mut payload = payload?;
            match tokio::time::timeout_at(deadline, payload.next()).await {
                Ok(Some(chunk)) => Some((chunk, Some(payload))),
                Ok(None) => None,
                Err(_) => Some((Err(timed_out(timeout)), None)),
            }
        });
        req.set_payload(Payload::Stream {
            payload: Box::pin(limited),
        });
    }
    next.call(req).await
}

fn timed_out(timeout: Duration) -> PayloadError {
    PayloadError::Io(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!(
            "the request body did not arrive within {} s",
            timeout.as_secs()
        ),
    ))
}
