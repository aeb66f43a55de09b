//! How many live streams each player holds open on this instance, so
//! that one client cannot open thousands.

use uuid::Uuid;

use super::error::ApiError;

/// The most live streams (`GET /v1/games/{id}/stream`) one player may hold
/// open on one instance: a table's view on a phone, a tablet and a few
/// spectated tables, while a client cannot open thousands, each of which
/// reloads its game on every change.
pub const STREAMS_PER_PLAYER: u32 = 16;

/// The live streams each player holds on this instance.
#[derive(Debug, Default)]
pub struct OpenStreams(std::sync::Mutex<std::collections::HashMap<Uuid, u32>>);

impl OpenStreams {
    /// Counts a new stream of `player`'s, or refuses it past
    /// [`STREAMS_PER_PLAYER`]; the count goes down when the guard drops.
    pub fn open(self: &std::sync::Arc<Self>, player: Uuid) -> Result<StreamGuard, ApiError> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(player).or_default();
        if *count >= STREAMS_PER_PLAYER {
            return Err(ApiError::TooManyStreams(STREAMS_PER_PLAYER));
        }
        *count += 1;
        Ok(StreamGuard {
            streams: std::sync::Arc::clone(self),
            player,
        })
    }
}

/// One counted stream; uncounted when the stream ends or its client goes.
#[derive(Debug)]
pub struct StreamGuard {
    streams: std::sync::Arc<OpenStreams>,
    player: Uuid,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut open = self.streams.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.player) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.player);
            }
        }
    }
}
