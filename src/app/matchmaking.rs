//! Quick match: a seat at the oldest public table of a game waiting for
//! players whose options match those asked for, or a new one.

use uuid::Uuid;

use super::answer::{Answer, CREATED, OK};
use super::commit::{By, Event, SeatChange, after_commit, record_change};
use super::context::App;
use super::error::Error;
use super::friends::release_reservations;
use super::idempotency::{Keyed, commit_answer, replay};
use super::new_table::{room_for_a_new_table, seated_player, store_new_table};
use super::notifications::Before;
use crate::store::friends as store;
use crate::store::games;
use crate::store::record::{game_from_row, shown_options_of, system_rng};
use crate::table::{Game, GameKind, Status, TableOptions};

/// How many waiting tables matchmaking reads at a time.
const WAITING_PAGE: i64 = 100;

/// Seats `caller` at the oldest public table of `kind` waiting for players
/// whose options match `options` (an option left out matches any value),
/// answering 200; or makes one with these options and the caller as host,
/// answering 201 with its address. Callers arriving together never both
/// get the last seat, and never get two tables where one would do (one at
/// a time per game, also across instances). A caller already waiting at a
/// matching table gets it back.
///
/// # Errors
/// [`Error::Invalid`] for options that cannot be, or `private`;
/// [`Error::Conflict`] `too_many_tables` when a new table is needed; the
/// key's; the database's.
pub async fn quick_match(
    app: &App,
    caller: Uuid,
    keyed: Option<Keyed>,
    kind: GameKind,
    options: Option<serde_json::Value>,
) -> Result<Answer, Error> {
    let given = options.unwrap_or_else(|| serde_json::json!({}));
    let (options, table) = TableOptions::parse_with(kind, Some(given.clone()))
        .map_err(|e| Error::invalid(e.to_string()))?;
    if table.private {
        return Err(Error::invalid(
            "options.private: matchmaking finds and makes public tables only",
        ));
    }
    let mut tx = app.store.begin_write().await?;
    let backend = app.store.backend();
    store::lock_matchmaking(&mut tx, backend, kind.as_str()).await?;
    // Checked under the matchmaking lock, so a retry racing its original
    // waits for it and then replays its answer.
    if let Some(replayed) = replay(&mut tx, caller, keyed.as_ref(), app.now()).await? {
        return Ok(replayed);
    }
    let player = seated_player(&mut tx, caller).await?;
    let now = app.now();
    let mut fresh = Game::create(
        Uuid::new_v4(),
        kind,
        options,
        table,
        player.clone(),
        None,
        &mut system_rng(),
    )
    .map_err(|e| Error::invalid(e.to_string()))?;
    // The options asked for, as a table shows them (defaults filled in).
    let wanted = fresh.options_json();
    let matches = |shown: &serde_json::Value| {
        given
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
            .all(|name| shown.get(name) == wanted.get(name))
    };
    // Every waiting public table is looked over, a page at a time, by the
    // options it stores; only a table that matches is read and locked.
    let mut after = None;
    let mut more = true;
    while more {
        let page =
            store::waiting_public(&mut tx, kind.as_str(), after.as_ref(), WAITING_PAGE).await?;
        more = page.len() as i64 == WAITING_PAGE;
        after = page.last().cloned();
        for waiting in page {
            if !shown_options_of(kind, &waiting.options).is_some_and(|shown| matches(&shown)) {
                continue;
            }
            let Some(row) = games::load(&mut tx, backend, waiting.id, true).await? else {
                continue;
            };
            // Its options were matched above, from the same stored text
            // (a table's options never change); its status may have.
            let mut game = game_from_row(&row)?;
            if game.status != Status::Waiting {
                continue;
            }
            if game.seat_of(caller).is_some() {
                let answer = Answer::view(OK, &game, caller, None)?;
                return commit_answer(tx, caller, keyed.as_ref(), answer, app.now()).await;
            }
            release_reservations(&mut game, now);
            let before = Before::of(&game);
            let Ok(seat) = game.join(player.clone(), None) else {
                continue;
            };
            let event = Event {
                kind: "joined",
                seat: Some(seat.0),
                payload: serde_json::json!({"type": "joined", "seat": seat, "matchmaking": true}),
                seat_change: Some(SeatChange::Took(seat.0)),
            };
            let change = (&before, &event);
            let due_at =
                record_change(app, &mut tx, &mut game, &row, change, By::Player(caller)).await?;
            let answer = Answer::view(OK, &game, caller, None)?;
            let answer = commit_answer(tx, caller, keyed.as_ref(), answer, app.now()).await?;
            after_commit(app, &game, &event, due_at, None);
            return Ok(answer);
        }
    }
    room_for_a_new_table(&mut tx, caller).await?;
    let due_at = store_new_table(&mut tx, &mut fresh, caller, now, app.bot_times).await?;
    let answer = Answer::view(CREATED, &fresh, caller, Some(app.game_location(fresh.id)))?;
    let answer = commit_answer(tx, caller, keyed.as_ref(), answer, app.now()).await?;
    app.notifier.work_due(due_at);
    Ok(answer)
}
