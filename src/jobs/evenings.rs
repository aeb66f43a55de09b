//! Club evenings' rounds that run themselves: every instance runs this
//! loop. A table of an event that finishes makes its event due in the
//! same transaction (`app::friends::after_change`); the loop takes due
//! events one at a time under their row's lock (on Postgres skipping those
//! another instance holds) and starts the next round in one transaction,
//! so a round starts once however many instances run, and an instance
//! killed mid-way leaves the event due for the next look.

use std::time::Duration;

use crate::app::context::App;
use crate::app::evenings::advance;

/// How often the loop looks for due events.
const POLL: Duration = Duration::from_millis(250);

/// Runs until the server shuts down.
pub async fn run(app: App) {
    while !app.notifier.is_shutting_down() {
        loop {
            match advance(&app).await {
                Ok(true) => continue,
                Ok(false) => break,
                Err(error) => {
                    tracing::warn!(%error, "club evening round change failed");
                    break;
                }
            }
        }
        tokio::select! {
            () = app.notifier.shutting_down() => {}
            () = tokio::time::sleep(POLL) => {}
        }
    }
}
