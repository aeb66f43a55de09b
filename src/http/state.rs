//! What every handler shares: the application, and what only HTTP needs
//! (live streams and their keep-alive).

use std::sync::Arc;
use std::time::Duration;

use super::open_streams::OpenStreams;
use crate::app::context::App;

/// The state of one HTTP worker: the application, with the worker's own
/// database pool ([`App::for_worker`]), and the HTTP layer's own parts.
pub struct AppState {
    /// The use cases' context.
    pub app: App,
    /// How often an idle stream gets a keep-alive comment.
    pub sse_keep_alive: Duration,
    /// The live streams each player holds on this instance.
    pub streams: Arc<OpenStreams>,
}

impl AppState {
    /// The state of one of `workers` HTTP workers, made on its thread: its
    /// own database pool, everything else shared.
    pub fn for_worker(&self, workers: usize) -> AppState {
        AppState {
            app: self.app.for_worker(workers),
            sse_keep_alive: self.sse_keep_alive,
            streams: Arc::clone(&self.streams),
        }
    }
}
