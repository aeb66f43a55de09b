//! Writing an accepted change: the one path of a player's change, a
//! computer player's move and the clock's. The version goes up by one, the
//! deadline and when automatic work falls due are set, the seat change and
//! the event are written in the transaction; after the commit, streams,
//! long polls and the scheduler are woken and the move is counted.

use uuid::Uuid;

use super::context::App;
use super::error::Error;
use super::friends::after_change;
use super::notifications::{self, Before};
use crate::store::events::EventRow;
use crate::store::record::changed_row;
use crate::store::{Tx, games};
use crate::table::{Game, SeatedPlayer};

/// What a change records in the event log.
pub struct Event {
    /// `joined`, `left`, `deal`, `move`, `back`, `rematch` or `abandoned`.
    pub kind: &'static str,
    /// The seat that acted.
    pub seat: Option<u8>,
    /// The change itself (public parts only; the event log redacts the
    /// rest for each reader).
    pub payload: serde_json::Value,
    /// A seat to add or free in the seats table.
    pub seat_change: Option<SeatChange>,
}

/// A change to who sits where.
pub enum SeatChange {
    /// The caller took this seat.
    Took(u8),
    /// The caller left this seat.
    Left(u8),
    /// A computer player, a new player row, took this seat.
    Bot(u8, SeatedPlayer),
}

impl Event {
    /// An event that changes no seat.
    pub fn new(kind: &'static str, seat: Option<u8>, payload: serde_json::Value) -> Event {
        Event {
            kind,
            seat,
            payload,
            seat_change: None,
        }
    }

    /// Whether the change sets the awaited seats' deadline anew: every
    /// change does but a seat's seed and a seat's `back`, which leave the
    /// game where it was, so that nobody holds a table by sending them.
    pub fn restarts_the_clock(&self) -> bool {
        let seed = self.payload.get("type").and_then(serde_json::Value::as_str) == Some("seed");
        !(seed || self.kind == "back")
    }
}

/// Who makes a change, and when.
#[derive(Clone, Copy, Debug)]
pub enum By<'a> {
    /// A player's request, made now.
    Player(Uuid),
    /// The scheduler: `actor` `bot` (a computer player) or `clock` (a seat
    /// whose clock ran out, or away), for the seat's `player`, made `at`
    /// (Unix microseconds, whole milliseconds).
    Scheduler {
        actor: &'a str,
        player: Option<Uuid>,
        at: i64,
    },
}

impl By<'_> {
    /// The player the change is made by or for.
    pub fn player(&self) -> Option<Uuid> {
        match *self {
            By::Player(player) => Some(player),
            By::Scheduler { player, .. } => player,
        }
    }

    /// When the change is made: now for a player's, whole milliseconds.
    pub fn at(&self, app: &App) -> i64 {
        match self {
            By::Player(_) => app.now(),
            By::Scheduler { at, .. } => *at,
        }
    }
}

/// The row that stores `game` after an accepted change made `at` to the
/// game `loaded` held: the version goes up by one, and the deadline and
/// when automatic work falls due are set; and when that is.
pub(super) fn next_row(
    app: &App,
    game: &mut Game,
    loaded: &games::GameRow,
    event: &Event,
    at: i64,
) -> Result<(games::GameRow, Option<i64>), Error> {
    game.version += 1;
    let due_at = game.schedule(
        loaded.created_at,
        at,
        event.restarts_the_clock(),
        app.bot_times,
    );
    let mut row = changed_row(game, loaded)?;
    row.due_at = due_at;
    Ok((row, due_at))
}

/// The event log's row for `event`, the game's change to `version`, made
/// `at` by `by`.
pub(super) fn event_row(event: &Event, version: i64, by: By<'_>, at: i64) -> EventRow {
    let (player, actor) = match by {
        By::Player(player) => (Some(player), None),
        By::Scheduler { actor, player, .. } => (player, Some(actor.to_owned())),
    };
    EventRow {
        seq: version,
        player_id: player,
        seat: event.seat,
        kind: event.kind.to_owned(),
        payload: event.payload.to_string(),
        created_at: at,
        actor,
    }
}

/// Writes an accepted change inside `tx` (see the module). `loaded` is the
/// game's row as loaded, locked, in `tx`, and `before` the game as it was
/// before the change: the notifications the change causes go to the
/// outbox in `tx`. Returns when automatic work on the game falls due, for
/// [`after_commit`].
///
/// # Errors
/// The database's; [`Error::Internal`] if the locked row changed.
pub async fn record_change(
    app: &App,
    tx: &mut Tx,
    game: &mut Game,
    loaded: &games::GameRow,
    change: (&Before, &Event),
    by: By<'_>,
) -> Result<Option<i64>, Error> {
    let (before, event) = change;
    let at = by.at(app);
    let (row, due_at) = next_row(app, game, loaded, event, at)?;
    let player = by.player();
    match event.seat_change {
        Some(SeatChange::Took(seat)) => {
            if let Some(player) = player {
                games::add_seat(tx, game.id, seat, player).await?;
            }
        }
        Some(SeatChange::Left(seat)) => games::remove_seat(tx, game.id, seat).await?,
        Some(SeatChange::Bot(seat, ref bot)) => {
            let level = bot.bot.map_or("basic", crate::table::Level::as_str);
            crate::store::players::insert_bot(tx, bot.id, &bot.name, level).await?;
            games::add_seat(tx, game.id, seat, bot.id).await?;
        }
        None => {}
    }
    let event = event_row(event, game.version, by, at);
    // The row is locked, so it is at the version read.
    if !games::write_change(tx, app.store.backend(), &row, &event, due_at).await? {
        return Err(Error::Internal(format!(
            "game {}: changed under its lock",
            game.id
        )));
    }
    after_change(tx, app.store.backend(), game).await?;
    let actor = match by {
        By::Player(player) => Some(player),
        By::Scheduler { .. } => None,
    };
    let caused = notifications::caused(before, game, actor, at, app.notifications.delay);
    notifications::write(tx, &caused).await?;
    Ok(due_at)
}

/// After a change's commit: wakes streams and long polls, and the scheduler
/// if the change made automatic work due at `due_at` (as [`record_change`]
/// returned it), and counts the move (`actor` `bot` or `clock` for an
/// automatic one).
pub fn after_commit(
    app: &App,
    game: &Game,
    event: &Event,
    due_at: Option<i64>,
    actor: Option<&str>,
) {
    app.notifier.publish(game.id, game.version);
    app.notifier.work_due(due_at);
    if matches!(event.kind, "deal" | "move") {
        let move_type = event.payload["type"].as_str().unwrap_or("unknown");
        app.metrics.count_move(game.kind.as_str(), move_type);
    }
    if let Some(actor) = actor {
        app.metrics.count_automatic(actor);
    }
    if event.kind == "abandoned" {
        app.metrics.count_abandoned();
    }
}
