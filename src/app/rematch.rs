//! Rematch: the next table after a finished one, made once for everyone
//! who played it.

use uuid::Uuid;

use super::answer::{Answer, CREATED, OK};
use super::commit::{By, Event, after_commit, record_change};
use super::context::App;
use super::error::Error;
use super::idempotency::{Keyed, commit_answer, replay};
use super::new_table::{room_for_a_new_table, seated_player, store_new_table};
use super::notifications::Before;
use super::read::no_game;
use super::refusal::refusal;
use crate::store::games;
use crate::store::record::{game_from_row, system_rng};
use crate::table::friends::{RESERVE_MICROS, Reservation};
use crate::table::{Game, GameError, Status};

/// The next table after the finished game `id`, made once: same options,
/// the same computer players in their seats, `caller` in its seat, and
/// every other seat held for the player who sat there for 5 minutes (then
/// free for anyone). Asked again, by anyone seated, it answers the same
/// table (200; 201 when made). The finished game's version goes up by one
/// and its view names the new table, so its streams and long polls hear of
/// it.
///
/// # Errors
/// [`Error::NotFound`]; [`Error::Forbidden`] `not_seated` for a caller
/// who did not play it; [`Error::Conflict`] `not_finished` or
/// `too_many_tables`; the key's; the database's.
pub async fn rematch(
    app: &App,
    caller: Uuid,
    keyed: Option<Keyed>,
    id: Uuid,
) -> Result<Answer, Error> {
    let backend = app.store.backend();
    let mut tx = app.store.begin_write().await?;
    let row = games::load(&mut tx, backend, id, true)
        .await?
        .ok_or_else(|| no_game(id))?;
    // Checked under the finished game's lock, so a retry racing its
    // original waits for it and then replays its answer.
    if let Some(replayed) = replay(&mut tx, caller, keyed.as_ref(), app.now()).await? {
        return Ok(replayed);
    }
    let mut game = game_from_row(&row)?;
    let seat = game
        .seat_of(caller)
        .ok_or_else(|| refusal(&game, caller, GameError::NotSeated))?;
    if game.status != Status::Finished {
        return Err(Error::Conflict {
            code: "not_finished",
            detail: "a rematch follows a finished game".into(),
        });
    }
    if let Some(next) = game.friends.rematch {
        let row = games::load(&mut tx, backend, next, false)
            .await?
            .ok_or_else(|| Error::Internal(format!("rematch {next} missing")))?;
        let next = game_from_row(&row)?;
        let answer = Answer::view(OK, &next, caller, Some(app.game_location(next.id)))?;
        return commit_answer(tx, caller, keyed.as_ref(), answer, app.now()).await;
    }
    room_for_a_new_table(&mut tx, caller).await?;
    let host = seated_player(&mut tx, caller).await?;
    let now = app.now();
    let mut next = Game::create(
        Uuid::new_v4(),
        game.kind,
        game.options.clone(),
        game.table.clone(),
        host,
        Some(seat.0),
        &mut system_rng(),
    )
    .map_err(|e| Error::Internal(e.to_string()))?;
    for (i, player) in game.seats.iter().enumerate() {
        let Some(player) = player else { continue };
        if player.id == caller {
            continue;
        }
        if player.bot.is_some() {
            next.join(player.clone(), Some(i as u8))
                .map_err(|e| Error::Internal(e.to_string()))?;
        } else {
            next.friends.reservations.push(Reservation {
                seat: i as u8,
                player: player.id,
                until: now + RESERVE_MICROS,
            });
        }
    }
    let due_at = store_new_table(&mut tx, &mut next, caller, now, app.bot_times).await?;
    let before = Before::of(&game);
    game.friends.rematch = Some(next.id);
    let event = Event::new(
        "rematch",
        Some(seat.0),
        serde_json::json!({"type": "rematch", "seat": seat, "game": next.id}),
    );
    let change = (&before, &event);
    let changed_due_at =
        record_change(app, &mut tx, &mut game, &row, change, By::Player(caller)).await?;
    let answer = Answer::view(CREATED, &next, caller, Some(app.game_location(next.id)))?;
    let answer = commit_answer(tx, caller, keyed.as_ref(), answer, app.now()).await?;
    after_commit(app, &game, &event, changed_due_at, None);
    app.notifier.work_due(due_at);
    Ok(answer)
}
